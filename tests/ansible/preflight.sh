#!/usr/bin/env bash
# make test-ansible, part 1: the playbook's pre-flight play (site.yml: each role's
# meta/argument_specs.yml, then roles/*/tasks/assert.yml).
# One FRESH Debian 13 systemd host; for each wrong setting below the run must fail, its [ERROR]
# line must name that setting, no play after the pre-flight may start, and the host must still be
# exactly as fresh as before: no JRE, no Nginx, no fox-avatar user, none of our directories, no
# package index fetched. Nothing may change on the host, so the one host serves every case (and
# checking it after each case is the assertion). A control run first shows the host is reachable
# over the same connection, so "nothing changed" is not "never reached".
#
# Settings: ANSIBLE_TEST_KEEP=1 leaves the host running; ANSIBLE_TEST_PREFIX names it (default foxans).
. "$(dirname "$0")/lib.sh"

P=${ANSIBLE_TEST_PREFIX:-foxans}
NET=$P-pre-net
H=$P-pre
WORK=$(mktemp -d /tmp/fox-ansible-preflight.XXXXXX)
trap 'hosts_cleanup "${ANSIBLE_TEST_KEEP:-}" "$NET" "$WORK" "$H"' EXIT
trap 'exit 130' INT TERM

section "prerequisites"
ansible_prerequisites
unset APT_PROXY
systemd_image_ready trixie || die "no trixie systemd image"
systemd_host_run "$H" trixie "$NET" || die "the systemd host did not start"

# Inventory: FILE PROXIES APPS (YAML host maps, e.g. "$H:" or "{}")
inventory() {
  cat >"$1" <<EOF
all:
  vars:
    ansible_connection: community.docker.docker
    ansible_become: false
    fox_avatar_tls_domains: [avatar.test]
  children:
    avatar_proxies:
      hosts: $2
    avatar_apps:
      hosts: $3
EOF
}
inventory "$WORK/one.yml" "{$H: }" "{$H: }"
inventory "$WORK/noapps.yml" "{$H: }" "{}"
inventory "$WORK/split.yml" "{$H: }" "{$P-pre-app-never-contacted: }"
echo "a certificate" >"$WORK/cert.pem"

# What "fresh" means here: none of this exists on the host.
leftovers() {
  docker exec "$H" sh -c '
    dpkg-query -W -f="\${Package} \${Status}\n" 2>/dev/null | grep "install ok installed" \
      | grep -E "^(nginx|openjdk|default-jre|certbot|python3-cryptography)" ;
    id fox-avatar 2>/dev/null;
    ls -d /opt/fox-avatar /etc/fox-avatar /etc/nginx /etc/ssl/fox-avatar /etc/systemd/system/fox-avatar.service \
      /var/www/fox-avatar-acme 2>/dev/null;
    ls /var/lib/apt/lists 2>/dev/null | grep _Packages'
}

section "control: the host is fresh and reachable over the playbook's connection"
left=$(leftovers); echo "${left:-(nothing of ours)}"
check "fresh host $H has nothing of ours" test -z "$left"
(cd ansible && ansible -i "$WORK/one.yml" all -m ansible.builtin.ping) >"$WORK/ping.log" 2>&1
check "ansible reaches $H (ping)" grep -q '"ping": "pong"\|ping: pong' "$WORK/ping.log"

# CASE: name | the setting the error must name | inventory | extra vars (JSON)
cases=(
  "tls mode bogus|fox_avatar_tls_mode|one|{\"fox_avatar_tls_mode\": \"bogus\"}"
  "app port out of range|fox_avatar_app_port|one|{\"fox_avatar_app_port\": 99999}"
  "app address 0.0.0.0|fox_avatar_app_address|one|{\"fox_avatar_app_address\": \"0.0.0.0\"}"
  "files mode without a key|fox_avatar_tls_key_src|one|{\"fox_avatar_tls_mode\": \"files\", \"fox_avatar_tls_cert_src\": \"$WORK/cert.pem\"}"
  "acme without an e-mail|fox_avatar_acme_email|one|{\"fox_avatar_tls_mode\": \"acme\"}"
  "empty avatar_apps group|avatar_apps|noapps|{}"
  "https port 0|fox_avatar_nginx_https_port|one|{\"fox_avatar_nginx_https_port\": 0}"
  "http3 switch not a boolean|fox_avatar_nginx_http3|one|{\"fox_avatar_nginx_http3\": \"maybe\"}"
  "names given as a string|fox_avatar_tls_domains|one|{\"fox_avatar_tls_domains\": \"avatar.test\"}"
  "separate app host without an address|fox_avatar_app_address|split|{}"
  "memory limit not a size|fox_avatar_app_memory_max|one|{\"fox_avatar_app_memory_max\": \"lots\"}"
  "images without a manifest|fox_avatar_app_images_src|one|{\"fox_avatar_app_images_src\": \"$WORK\"}"
  "app address a host name, not an IP|fox_avatar_app_address|one|{\"fox_avatar_app_address\": \"app1.internal\"}"
  "app port not a number (the spec's type)|fox_avatar_app_port|one|{\"fox_avatar_app_port\": \"eighty\"}"
  "acme key type not a choice (the spec's choices)|fox_avatar_acme_key_type|one|{\"fox_avatar_acme_key_type\": \"dsa\"}"
)
n=0
for c in "${cases[@]}"; do
  IFS='|' read -r name var inv extra <<<"$c"
  n=$((n + 1)); log=$WORK/case$n.log
  section "pre-flight case $n: $name (must name $var)"
  playbook "$WORK/$inv.yml" "$log" -e "$extra"
  err=$(grep -m1 '^\[ERROR\]' "$log"); echo "${err:-no [ERROR] line}"
  check "case $n ($name): the run fails" test "$(cat "$log.rc")" != 0
  check "case $n ($name): the first error line names $var and the host" \
    eval "grep -Eq '^\\[ERROR\\]: Task failed: (Action failed: )?$var \\([A-Za-z0-9_.-]+\\): ' <<<\"\$err\""
  check "case $n ($name): only the pre-flight play ran" \
    eval "[ \"\$(grep -c '^PLAY \[' '$log')\" = 1 ] && grep -q '^PLAY \[Pre-flight' '$log'"
  left=$(leftovers)
  check "case $n ($name): $H is untouched (no JRE, Nginx, user, files of ours, package index)${left:+: $left}" \
    test -z "$left"
done

section "summary"
checks_summary tests/ansible/preflight.sh
