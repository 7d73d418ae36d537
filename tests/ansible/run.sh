#!/usr/bin/env bash
# make test-ansible: the playbook (ansible/site.yml) against real systemd hosts in containers,
# Debian 12 and Debian 13, reached with the community.docker.docker connection.
#
# Scenarios (hosts run in parallel where they do not depend on each other):
#   0. ansible-lint, production profile: nothing reported.
#   4. --check --diff on fresh hosts (both Debian versions) runs through and installs nothing.
#   1. one host (proxy + app), self-signed, Debian 12 and Debian 13: converge; a second converge
#      reports changed=0; the shared HTTP suite (tests/stack, AVATAR_STACK=external) over HTTPS
#      against the host's address; units active and enabled; the service runs as its own
#      unprivileged user; `systemd-analyze security` exposure printed and <= 2.0; the service
#      listens on 127.0.0.1 only. HTTP/3 and the TLS group, with Debian 13's curl and openssl in a
#      container on the test network (tools/docker.sh trixie_client_ready): the Debian 13 host serves
#      the 302 over HTTP/3 (curl --http3-only), sends Alt-Svc and negotiates X25519MLKEM768, and a
#      classic client (Debian 12's OpenSSL) still gets X25519; the Debian 12 host has no UDP listener,
#      sends no Alt-Svc and negotiates X25519 with the same client.
#  1b. fox_avatar_nginx_http3=false on the Debian 13 host: no QUIC listener, no Alt-Svc, no HTTP/3;
#      back to true (the default): HTTP/3 again after a reload (same master PID); the next converge
#      changed=0. Runs beside scenarios 3 and 5 (another host), checked after them.
#   2. three hosts (a proxy on Debian 12, app hosts on Debian 13 and 12) on one network: converge
#      twice (changed=0), the shared HTTP suite through the proxy, each service listens on its
#      host's private address only, the proxy's upstream pool lists both; the Debian 12 proxy:
#      no HTTP/3, no Alt-Svc, X25519.
#   3. `files` mode with a provided certificate, re-converging the Debian 12 host of scenario 1:
#      Nginx serves exactly that certificate (SHA-256 fingerprint), a second converge changed=0.
#   5. a release nginx -t rejects (a bad server name, for one run): the run fails loudly, the
#      previous release stays live, Nginx keeps its master PID and keeps serving; the next good
#      run (a changed value) switches to a new release cleanly: reloaded (serves the new value),
#      same master PID, the replaced release kept as "previous", the rejected one removed.
#   8. the self-signed policy (tests/ansible/selfsigned.sh) on the Debian 12 host of scenario 1, before 3:
#      ECDSA P-256, valid 365 days; one with 20 days left is made again at the next converge.
#   6. ACME with Pebble (tests/ansible/acme.sh), on its own hosts, beside 0-2 (done before 7).
#   9. a set of own pictures: `make images SRC=... OUT=...`, then fox_avatar_images_src on the
#      scenario 3/5 host: Nginx reloaded (same PID), the set served and only it, every size and
#      format, the fallback agrees (tests/stack/custom_set.py); then the fox set again.
#   7. a rolling upgrade on scenario 2's hosts: a new jar rolled out while wrk loads the proxy for
#      the whole run: every answer a 302, no socket error, no fallback answer; each app host
#      drained, restarted and put back before the next; Nginx reloaded, never restarted; the next
#      run changed=0. Prints the run's time per app host.
#
# Settings: ANSIBLE_TEST_KEEP=1 leaves the hosts running (for debugging); ANSIBLE_TEST_PREFIX
# names the containers and the network (default foxans).
. "$(dirname "$0")/lib.sh"

P=${ANSIBLE_TEST_PREFIX:-foxans}
NET=$P-net
H12=$P-one12      # scenario 1 (Debian 12), then 3 and 5
H13=$P-one13      # scenario 1 (Debian 13)
HPX=$P-proxy      # scenarios 2 and 7: the proxy (Debian 12)
HAP=$P-app        # ... an app host (Debian 13)
HAP2=$P-app2      # ... another app host (Debian 12)
HOSTS=("$H12" "$H13" "$HPX" "$HAP" "$HAP2")
WORK=$(mktemp -d /tmp/fox-ansible-test.XXXXXX)
SITE_NAME=avatar.test

trap 'hosts_cleanup "${ANSIBLE_TEST_KEEP:-}" "$NET" "$WORK" "${HOSTS[@]}"' EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------------ prerequisites
section "prerequisites"
ansible_prerequisites
apt_need wrk   # scenario 7's load
CLIENT=$(trixie_client_ready) || die "no Debian 13 client image (tools/docker.sh trixie_client_ready)"
echo "Debian 13 client image: $CLIENT"
# The hosts fetch packages straight from the Debian mirror (fast here; apt_cache_ready's
# apt-cacher-ng answered 503 for the bookworm index during development). Opt in with
# ANSIBLE_TEST_APT_CACHE=1.
unset APT_PROXY
if [ -n "${ANSIBLE_TEST_APT_CACHE:-}" ] && apt_cache_ready >/dev/null; then echo "apt cache for the test hosts: $APT_PROXY"; fi

# 6. ACME (tests/ansible/acme.sh: Pebble, its own host and network) needs nothing from the
# scenarios here: it runs beside them up to the rolling upgrade (7), which waits for it (a load
# test beside it timed out on a loaded machine), and is reported at the end.
ACME_TEST_PREFIX="$P-acme" tests/ansible/acme.sh >"$WORK/acme.out" 2>&1 & acme_pid=$!

# ------------------------------------------------------------------ 0. lint
section "0. ansible-lint (production profile)"
if (cd ansible && ansible-lint --nocolor site.yml roles/ molecule/ 2>&1) | tee "$WORK/lint.log" | tail -n 5 \
   && grep -q 'Profile .production. was required, and it passed' "$WORK/lint.log"; then
  pass "ansible-lint production profile reports nothing"
else
  fail "ansible-lint production profile reports nothing"
fi

# ------------------------------------------------------------------ hosts
section "start systemd hosts (Debian 12 and 13) on network $NET"
systemd_image_ready bookworm || die "no bookworm systemd image"
systemd_image_ready trixie || die "no trixie systemd image"
systemd_host_rm "${HOSTS[@]}"
# the network first: five parallel `docker network create` would make four networks of that name
docker network inspect "$NET" >/dev/null 2>&1 || docker network create "$NET" >/dev/null || die "cannot create network $NET"
pids=()
systemd_host_run "$H12" bookworm "$NET" & pids+=($!)
systemd_host_run "$H13" trixie "$NET" & pids+=($!)
systemd_host_run "$HPX" bookworm "$NET" & pids+=($!)
systemd_host_run "$HAP" trixie "$NET" & pids+=($!)
systemd_host_run "$HAP2" bookworm "$NET" & pids+=($!)
for p in "${pids[@]}"; do wait "$p" || die "a systemd host did not start"; done
declare -A IP
for h in "${HOSTS[@]}"; do
  IP[$h]=$(systemd_host_ip "$h" "$NET")
  echo "$h: ${IP[$h]} ($(docker exec "$h" sh -c '. /etc/os-release; echo $PRETTY_NAME'))"
done

# Inventories (community.docker.docker: `docker exec` as root, so no become needed).
inventory() { # FILE PROXY APP[=ADDRESS]...
  local app apps=""
  for app in "${@:3}"; do
    apps+="
        ${app%%=*}:"
    [[ $app == *=* ]] && apps+=" {fox_avatar_app_address: ${app#*=}}"
  done
  cat >"$1" <<EOF
all:
  vars:
    ansible_connection: community.docker.docker
    ansible_become: false
    fox_avatar_tls_domains: [$SITE_NAME]
  children:
    avatar_proxies:
      hosts:
        $2:
    avatar_apps:
      hosts:$apps
EOF
}
inventory "$WORK/one12.yml" "$H12" "$H12"
inventory "$WORK/one13.yml" "$H13" "$H13"
inventory "$WORK/two.yml" "$HPX" "$HAP=${IP[$HAP]}" "$HAP2=${IP[$HAP2]}"

# One host's (or one topology's) life: --check on the fresh host(s), converge, converge again.
converge_job() { # NAME INVENTORY [FRESH_HOST_TO_CHECK]
  local name=$1 inv=$2 fresh=${3:-}
  if [ -n "$fresh" ]; then
    playbook "$inv" "$WORK/$name.check.log" --check --diff
    docker exec "$fresh" sh -c 'dpkg-query -W -f="\${Package} \${Status}\n" nginx default-jre-headless 2>/dev/null;
      ls -d /etc/systemd/system/fox-avatar.service /etc/ssl/fox-avatar /etc/nginx/fox-avatar /etc/nginx/fox-avatar-releases 2>/dev/null' >"$WORK/$name.check.left" 2>&1
  fi
  playbook "$inv" "$WORK/$name.1.log"
  playbook "$inv" "$WORK/$name.2.log" --diff
}

section "4 + 1 + 2. --check on fresh hosts, converge, converge again (3 runs in parallel)"
jobstart=$SECONDS
pids=()
converge_job one12 "$WORK/one12.yml" "$H12" & pids+=($!)
converge_job one13 "$WORK/one13.yml" "$H13" & pids+=($!)
converge_job two "$WORK/two.yml" & pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done
echo "converge phase: $((SECONDS - jobstart)) s"

not_installed() { ! docker exec "$1" dpkg-query -W -f='${Status}' "$2" 2>/dev/null | grep -q 'install ok installed'; }

section "4. --check --diff on fresh hosts"
for name in one12 one13; do
  h=$P-$name
  show_log "$name --check --diff" "$WORK/$name.check.log"
  check "check mode on fresh $h runs through (exit 0, failed=0)" ran_clean "$WORK/$name.check.log"
  check "check mode on fresh $h shows the Nginx release it would make live" \
    grep -q 'fox-avatar-releases/' "$WORK/$name.check.log"
  echo "left on $h by --check (must be nothing):"; sed 's/^/  /' "$WORK/$name.check.left"
  check "check mode on fresh $h installed and wrote nothing" \
    eval "! grep -q 'install ok installed\\|fox-avatar' '$WORK/$name.check.left'"
done

. tests/ansible/http3.sh   # h3_checks, h3_get, alt_svc, tls_group, udp_443

# ------------------------------------------------------------------ scenario 1 checks
host_checks() { # HOST: units, user, sandbox score
  local h=$1 pid uid user score
  check "$h: fox-avatar and nginx active" docker exec "$h" systemctl is-active --quiet fox-avatar nginx
  check "$h: fox-avatar and nginx enabled" docker exec "$h" systemctl is-enabled --quiet fox-avatar nginx
  pid=$(docker exec "$h" systemctl show -p MainPID --value fox-avatar)
  uid=$(docker exec "$h" stat -c %u "/proc/$pid" 2>/dev/null)
  user=$(docker exec "$h" stat -c %U "/proc/$pid" 2>/dev/null)
  echo "$h: fox-avatar main PID $pid runs as $user (uid $uid)"
  check "$h: the service runs as its own unprivileged user (fox-avatar, system uid)" \
    test "$user" = fox-avatar -a -n "$uid" -a "${uid:-0}" -gt 0 -a "${uid:-1000}" -lt 1000
  docker exec "$h" systemd-analyze security --no-pager fox-avatar.service >"$WORK/$h.security" 2>&1
  grep -E '^✗' "$WORK/$h.security" | head -n 30
  score=$(grep -oE 'Overall exposure level for fox-avatar.service: [0-9.]+' "$WORK/$h.security" | awk '{print $NF}')
  echo "$h: systemd-analyze security fox-avatar.service: exposure ${score:-?} (target <= 2.0)"
  check "$h: systemd-analyze security exposure ${score:-?} <= 2.0" \
    awk -v s="${score:-99}" 'BEGIN { exit !(s <= 2.0) }'
}
listens_only_on() { # HOST ADDRESS: the service's TCP listeners are exactly ADDRESS:8080
  local got
  got=$(docker exec "$1" ss -Hltn 'sport = :8080' | awk '{print $4}' | sort -u | tr '\n' ' ')
  echo "$1: listeners on port 8080: ${got:-none}"
  [ "$got" = "$2:8080 " ]
}
for name in one12 one13; do
  h=$P-$name
  section "1. one host, self-signed: $h ($(docker exec "$h" sh -c '. /etc/os-release; echo $PRETTY_NAME'))"
  show_log "$name converge" "$WORK/$name.1.log"
  check "$h: first converge succeeds" ran_clean "$WORK/$name.1.log"
  check "$h: the first converge warns about nothing (no find on a missing directory)" \
    eval "! grep -q '^\[WARNING\]' '$WORK/$name.1.log'"
  show_log "$name second converge" "$WORK/$name.2.log"
  check "$h: second converge reports changed=0" ran_unchanged "$WORK/$name.2.log"
  docker exec "$h" cat /etc/ssl/fox-avatar/fullchain.pem >"$WORK/$name-ca.pem"
  new=$([ "$name" = one13 ] && echo 1 || echo 0)   # Debian 13: HTTP/3 and X25519MLKEM768
  AVATAR_HTTP3=$new AVATAR_PQ=$new AVATAR_CLIENT_NETWORK=$NET \
  check "$h: shared HTTP suite over HTTPS against ${IP[$h]} (AVATAR_HTTP3=$new AVATAR_PQ=$new)" \
    stack_suite "$WORK/$name.pytest.log" "$SITE_NAME" "${IP[$h]}" "$WORK/$name-ca.pem" "$h" "$h"
  h3_checks "$h" "${IP[$h]}" "$WORK/$name-ca.pem" "$new"
  host_checks "$h"
  check "$h: co-located service listens on 127.0.0.1 only" listens_only_on "$h" 127.0.0.1
done

# ------------------------------------------------------------------ scenario 2
section "2. three hosts: proxy $HPX (Debian 12), app hosts $HAP (Debian 13) and $HAP2 (Debian 12)"
show_log "two-host converge" "$WORK/two.1.log"
check "multi-host: first converge succeeds" ran_clean "$WORK/two.1.log"
check "multi-host: the first converge warns about nothing" eval "! grep -q '^\[WARNING\]' '$WORK/two.1.log'"
show_log "two-host second converge" "$WORK/two.2.log"
check "multi-host: second converge reports changed=0" ran_unchanged "$WORK/two.2.log"
pool() { docker exec "$HPX" sh -c 'cd /etc/nginx/fox-avatar-pool && for f in *; do printf "%s: %s\n" "$f" "$(cat "$f")"; done'; }
pool
check "multi-host: the proxy's upstream pool lists each app host's address, nothing else" \
  test "$(pool)" = "$(printf '%s.conf: server %s:8080;\n' "$HAP" "${IP[$HAP]}" "$HAP2" "${IP[$HAP2]}")"
docker exec "$HPX" cat /etc/ssl/fox-avatar/fullchain.pem >"$WORK/two-ca.pem"
AVATAR_HTTP3=0 AVATAR_PQ=0 AVATAR_CLIENT_NETWORK=$NET \
check "multi-host: shared HTTP suite through the proxy ${IP[$HPX]} (Debian 12: AVATAR_HTTP3=0 AVATAR_PQ=0)" \
  stack_suite "$WORK/two.pytest.log" "$SITE_NAME" "${IP[$HPX]}" "$WORK/two-ca.pem" "$HPX" "$HAP" "$HAP2"
h3_checks "$HPX" "${IP[$HPX]}" "$WORK/two-ca.pem" 0
check "multi-host: the proxy host runs no Java" not_installed "$HPX" default-jre-headless
for h in "$HAP" "$HAP2"; do
  check "$h: runs no Nginx" not_installed "$h" nginx
  check "$h: service listens on its private address ${IP[$h]} only" listens_only_on "$h" "${IP[$h]}"
  check "$h: fox-avatar active and enabled" \
    eval "docker exec $h systemctl is-active --quiet fox-avatar && docker exec $h systemctl is-enabled --quiet fox-avatar"
done

# ------------------------------------------------------------------ scenario 7
wait "$acme_pid"; acme_rc=$?   # scenario 6 (ACME) ends before the load test starts
section "7. rolling upgrade: a new jar on $HAP and $HAP2 while wrk loads $HPX"
# The new jar: today's with one more entry (same code, another checksum); its staleness check is
# off, since it is no build of these sources.
next_jar=$WORK/avatar-next.jar
cp app/target/avatar.jar "$next_jar"
python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "a") as jar:
    jar.writestr("META-INF/fox-avatar-rolling-upgrade-test.txt", "not the deployed jar\n")' "$next_jar"
printf 'fox_avatar_app_jar_src: %s\nfox_avatar_app_jar_sources: []\n' "$next_jar" >"$WORK/next-vars.yml"
app_pid() { docker exec "$1" systemctl show -p MainPID --value fox-avatar; }
fallback_lines() { docker exec "$HPX" sh -c 'cat /var/log/nginx/fox-avatar.fallback.log 2>/dev/null | wc -l'; }
declare -A APP_PID
for h in "$HAP" "$HAP2"; do APP_PID[$h]=$(app_pid "$h"); done
proxy_pid=$(nginx_pid "$HPX"); fallback_before=$(fallback_lines)
echo "before: app PIDs $HAP ${APP_PID[$HAP]}, $HAP2 ${APP_PID[$HAP2]}; Nginx master $proxy_pid; fallback log $fallback_before lines"
# Two loads for the whole run, each wrk in 10-s rounds until the run is over (every status counted
# by bench/wrk-report.lua; the site's name in Host): "fresh", a new connection (TCP + TLS) per request,
# as a page embedding the avatar makes; "reused", 8 keep-alive connections. Each reload makes
# Nginx's old workers close their idle keep-alive connections, and a request the client sent in
# that instant meets a closed connection (a socket error, which browsers retry: RFC 9112 9.3.1);
# so "reused" may see at most one read error per connection and reload, and nothing else. wrk runs
# at the lowest CPU priority: the load fills whatever the playbook leaves of the machine.
wrk_run() { # NAME CONNECTIONS [wrk args...]
  local name=$1 c=$2; shift 2
  while [ ! -e "$WORK/wrk.stop" ]; do
    nice -n 19 wrk -t1 -c"$c" -d10s -H "Host: $SITE_NAME" "$@" -s bench/wrk-report.lua "https://${IP[$HPX]}/" -- count
  done >"$WORK/wrk-$name.log" 2>&1
}
wrk_run fresh 2 -H 'Connection: close' & wrk_fresh=$!
wrk_run reused 8 & wrk_reused=$!
sleep 3
roll_start=$SECONDS
ANSIBLE_CALLBACKS_ENABLED=ansible.posix.profile_tasks playbook "$WORK/two.yml" "$WORK/roll.log" -e "@$WORK/next-vars.yml"
roll_s=$((SECONDS - roll_start))
sleep 3
touch "$WORK/wrk.stop"; wait "$wrk_fresh" "$wrk_reused"
show_log "rolling upgrade" "$WORK/roll.log"
wrk_field() { # NAME FIELD: its sum over the rounds
  sed -n 's/^WRKJSON //p' "$WORK/wrk-$1.log" \
    | python3 -c 'import json, sys; print(sum(json.loads(l)[sys.argv[1]] for l in sys.stdin) if sys.stdin else "x")' "$2" \
    2>/dev/null || echo x
}
reloads=$(grep -cE '^RUNNING HANDLER \[fox_avatar_app : Reload Nginx on those proxies\]' "$WORK/roll.log")
check "rolling upgrade: the run succeeds" ran_clean "$WORK/roll.log"
for name in fresh reused; do
  requests=$(wrk_field $name requests); not302=$(wrk_field $name not302)
  errors="connect $(wrk_field $name connect), read $(wrk_field $name read), write $(wrk_field $name write), timeout $(wrk_field $name timeout)"
  echo "wrk $name during the upgrade: $requests requests, $not302 not 302, socket errors: $errors"
  check "rolling upgrade, $name connections: wrk ran throughout ($requests requests)" \
    eval "[[ '$requests' =~ ^[0-9]+$ ]] && ((requests > 1000))"
  check "rolling upgrade, $name connections: every answer was a 302 ($not302 were not)" test "$not302" = 0
done
errors="connect $(wrk_field fresh connect), read $(wrk_field fresh read), write $(wrk_field fresh write), timeout $(wrk_field fresh timeout)"
check "rolling upgrade, fresh connections: no socket error ($errors)" test "$errors" = "connect 0, read 0, write 0, timeout 0"
errors="connect $(wrk_field reused connect), write $(wrk_field reused write), timeout $(wrk_field reused timeout)"
check "rolling upgrade, reused connections: no connect, write or timeout error ($errors)" \
  test "$errors" = "connect 0, write 0, timeout 0"
read_errors=$(wrk_field reused read)
check "rolling upgrade, reused connections: read errors only at the $reloads reloads ($read_errors <= 8 x $reloads)" \
  eval "[[ '$read_errors' =~ ^[0-9]+$ ]] && ((read_errors <= 8 * reloads))"
check "rolling upgrade: no fallback answer (fallback log $fallback_before -> $(fallback_lines) lines)" \
  test "$(fallback_lines)" = "$fallback_before"
# One host at a time: the drain marks go down, back, down, back, each host restarted between its
# own two marks.
order=$(grep -E '^RUNNING HANDLER \[fox_avatar_app : (Mark this host down in the upstream pools, or take the mark off \| (down|back)|Restart fox-avatar)\]|^changed: \[[^]]+\]' "$WORK/roll.log" \
  | sed -E 's/^RUNNING HANDLER .*\| (down|back)\].*/\1/; s/^RUNNING HANDLER .*/restart/; s/^changed: \[([^] ]+).*/\1/' \
  | awk '$0 == "down" || $0 == "back" || $0 == "restart" { mark = $0; print; next } mark != "" { print; mark = "" }' \
  | tr '\n' ' ')
echo "rolling order: $order"
check "rolling upgrade: one host at a time (drained, restarted, back: $HAP, then $HAP2)" \
  test "$order" = "down $HAP restart $HAP back $HAP down $HAP2 restart $HAP2 back $HAP2 "
for h in "$HAP" "$HAP2"; do
  pid=$(app_pid "$h")
  check "$h: restarted (main PID ${APP_PID[$h]} -> $pid)" test -n "$pid" -a "$pid" != "${APP_PID[$h]}"
  check "$h: runs the new jar" \
    test "$(docker exec "$h" sha256sum /opt/fox-avatar/avatar.jar | cut -d' ' -f1)" = "$(sha256sum "$next_jar" | cut -d' ' -f1)"
done
check "rolling upgrade: Nginx reloaded, never restarted (same master PID $proxy_pid)" test "$(nginx_pid "$HPX")" = "$proxy_pid"
pool
check "rolling upgrade: both app hosts are back in the pool" eval "! pool | grep -q down"
roll2_start=$SECONDS
playbook "$WORK/two.yml" "$WORK/roll.2.log" -e "@$WORK/next-vars.yml"
roll2_s=$((SECONDS - roll2_start))
check "rolling upgrade: the next run reports changed=0" ran_unchanged "$WORK/roll.2.log"
# How long each host was out of the pool: from its "down" mark to its "back" mark (profile_tasks
# prints the run's elapsed time under each task's title).
out=$(awk '/^RUNNING HANDLER .*take the mark off \| (down|back)\]/ { mark = ($0 ~ /down\]/) ? "down" : "back"; next }
           mark != "" && match($0, /[0-9]+:[0-9]+:[0-9]+\.[0-9]+ \*+ *$/) {
             split(substr($0, RSTART), t, /[: ]/); s = t[1] * 3600 + t[2] * 60 + t[3]
             if (mark == "down") d = s; else printf "%.1f s ", s - d; mark = "" }' "$WORK/roll.log")
echo "rolling upgrade under load: ${roll_s} s for the run with 2 app hosts (${roll2_s} s for the same run" \
  "with nothing to do); each host out of the pool for: ${out:-?}"

# ------------------------------------------------------------------ scenario 1b (in the background)
# HTTP/3 off and back on $H13 (tests/ansible/http3.sh h3_toggle_job), beside scenarios 3 and 5 on
# $H12 to save their time; checked after scenario 5.
h3_toggle_job >"$WORK/h3-toggle.out" 2>&1 & h3_toggle=$!
section "8. the self-signed policy on $H12: ECDSA P-256, 365 days, made again with fewer than 30 left"
. tests/ansible/selfsigned.sh
selfsigned_checks "$H12" "$WORK/one12.yml" "$SITE_NAME"
# ------------------------------------------------------------------ scenario 3
section "3. files mode: a provided certificate on $H12"
certs=$WORK/certs; mkdir -p "$certs"
(
  cd "$certs" &&
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem \
    -days 2 -subj '/CN=fox-avatar files-mode test CA' &&
  openssl req -newkey rsa:2048 -nodes -keyout privkey.pem -out leaf.csr -subj "/CN=$SITE_NAME" &&
  printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' "$SITE_NAME" >leaf.ext &&
  openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile leaf.ext \
    -out fullchain.pem
) >"$WORK/certs.log" 2>&1 || { cat "$WORK/certs.log"; die "could not make the test certificate"; }
cat >"$WORK/files-vars.yml" <<EOF
fox_avatar_tls_mode: files
fox_avatar_tls_cert_src: $certs/fullchain.pem
fox_avatar_tls_key_src: $certs/privkey.pem
EOF
playbook "$WORK/one12.yml" "$WORK/files.1.log" --diff -e "@$WORK/files-vars.yml"
show_log "files mode converge" "$WORK/files.1.log"
check "files mode: converge succeeds" ran_clean "$WORK/files.1.log"
want=$(openssl x509 -in "$certs/fullchain.pem" -noout -fingerprint -sha256)
got=$(openssl s_client -connect "${IP[$H12]}:443" -servername "$SITE_NAME" </dev/null 2>/dev/null \
      | openssl x509 -noout -fingerprint -sha256)
echo "provided: $want"; echo "served:   $got"
check "files mode: Nginx serves exactly the provided certificate" test -n "$want" -a "$want" = "$got"
https_code() { # PATH on the Debian 12 host, verified against the test CA
  curl -s -o /dev/null -w '%{http_code}' --cacert "$certs/ca.pem" \
    --resolve "$SITE_NAME:443:${IP[$H12]}" "https://$SITE_NAME$1"
}
code=$(https_code /)
check "files mode: HTTPS verifies against the provided CA (GET / -> 302, got $code)" test "$code" = 302
playbook "$WORK/one12.yml" "$WORK/files.2.log" -e "@$WORK/files-vars.yml"
check "files mode: second converge reports changed=0" ran_unchanged "$WORK/files.2.log"

# ------------------------------------------------------------------ scenario 5
section "5. a release nginx -t rejects, then a good one, on $H12"
releases=/etc/nginx/fox-avatar-releases
live() { docker exec "$H12" readlink /etc/nginx/fox-avatar; }
live_before=$(live)
pid_before=$(nginx_pid "$H12")
echo "live release: $live_before; Nginx master PID $pid_before"
playbook "$WORK/one12.yml" "$WORK/bad.log" -e "@$WORK/files-vars.yml" \
  -e '{"fox_avatar_nginx_server_names": ["avatar.test;bogus_directive"]}'
grep -E '^(fatal|failed)|rejected|emerg' "$WORK/bad.log" | head -n 8
check "bad release: the run fails" eval "! ran_clean '$WORK/bad.log'"
check "bad release: the failure says nginx -t rejected it and the live release stays" \
  grep -q "nginx -t rejected the new configuration .*; $live_before stays live" "$WORK/bad.log"
check "bad release: the previous release is still live ($live_before)" test -n "$live_before" -a "$(live)" = "$live_before"
check "bad release: nginx -t passes on the live tree" docker exec "$H12" nginx -t -q
check "bad release: Nginx was not restarted (same master PID $pid_before)" test "$(nginx_pid "$H12")" = "$pid_before"
code=$(https_code /); img=$(https_code /Renard-1.png)
check "bad release: Nginx keeps serving (GET / -> 302, got $code; an image -> 200, got $img)" \
  test "$code" = 302 -a "$img" = 200

playbook "$WORK/one12.yml" "$WORK/good.log" -e "@$WORK/files-vars.yml" -e '{"fox_avatar_nginx_images_max_age": 3600}'
show_log "a good release after the rejected one" "$WORK/good.log"
live_after=$(live)
check "good release: converge succeeds" ran_clean "$WORK/good.log"
check "good release: a new release is live ($live_after)" test -n "$live_after" -a "$live_after" != "$live_before"
check "good release: Nginx was reloaded (the handler ran)" \
  eval "grep -A1 'RUNNING HANDLER \[fox_avatar_nginx : Reload Nginx\]' '$WORK/good.log' | grep -q '^changed'"
check "good release: ... not restarted (same master PID $pid_before)" test "$(nginx_pid "$H12")" = "$pid_before"
cc=$(curl -s -o /dev/null -D - --cacert "$certs/ca.pem" --resolve "$SITE_NAME:443:${IP[$H12]}" \
     "https://$SITE_NAME/Renard-1.png" | tr -d '\r' | grep -i '^cache-control:')
check "good release: Nginx serves the new value ($cc)" eval "grep -q 'max-age=3600' <<<'$cc'"
code=$(https_code /)
check "good release: GET / -> 302 (got $code)" test "$code" = 302
check "good release: the replaced release is kept as previous" \
  test "$(docker exec "$H12" readlink "$releases/previous")" = "$live_before"
docker exec "$H12" ls -l "$releases"
check "good release: only the live and the previous release are kept (the rejected one is gone)" \
  test "$(docker exec "$H12" find "$releases" -mindepth 1 -maxdepth 1 -type d | sort | tr '\n' ' ')" \
    = "$(printf '%s\n' "$live_after" "$live_before" | sort | tr '\n' ' ')"

wait "$h3_toggle"; cat "$WORK/h3-toggle.out"
h3_toggle_checks

# ------------------------------------------------------------------ scenario 9
section "9. a set of own pictures (fox_avatar_images_src) on $H12, then the fox set again"
own=$WORK/own; mkdir -p "$own" && chmod 0755 "$own"
# three pictures made by tests/stack/custom_set.py, then `make images SRC=... OUT=$own/set`
(cd tests && PYTHONPATH=../tools python -c "from stack.custom_set import make_custom_set; make_custom_set('$own')") \
  >"$WORK/own.make.log" 2>&1
check "own pictures: make images made a set" test -f "$own/set/manifest.tsv"
pid_before=$(nginx_pid "$H12")
playbook "$WORK/one12.yml" "$WORK/own.1.log" -e "@$WORK/files-vars.yml" -e '{"fox_avatar_nginx_images_max_age": 3600}' \
  -e "fox_avatar_images_src=$own/set"
show_log "converge with fox_avatar_images_src" "$WORK/own.1.log"
check "own pictures: converge succeeds" ran_clean "$WORK/own.1.log"
check "own pictures: Nginx was reloaded, not restarted (same master PID $pid_before)" \
  test "$(nginx_pid "$H12")" = "$pid_before"
check "own pictures: the host serves the set and only it, every size and format; the fallback agrees" \
  env AVATAR_HOST="$SITE_NAME" AVATAR_ADDR="${IP[$H12]}" AVATAR_CA="$certs/ca.pem" \
    AVATAR_IMAGES_DIR="$own/set" AVATAR_APP_STOP="docker exec $H12 systemctl stop fox-avatar" \
    AVATAR_APP_START="docker exec $H12 systemctl start fox-avatar" \
    sh -c 'cd tests && PYTHONPATH=../tools python -m stack.custom_set' 
playbook "$WORK/one12.yml" "$WORK/own.2.log" -e "@$WORK/files-vars.yml" -e '{"fox_avatar_nginx_images_max_age": 3600}'
check "own pictures: back to the fox set (converge succeeds)" ran_clean "$WORK/own.2.log"
img=$(https_code /Renard-1.png)
check "own pictures: the fox set is served again (/Renard-1.png -> 200, got $img)" test "$img" = 200

section "6. ACME (tests/ansible/acme.sh, beside the scenarios above)"
cat "$WORK/acme.out"
check "ACME scenario passes (tests/ansible/acme.sh: Pebble, http-01, renewal)" test "$acme_rc" = 0

# ------------------------------------------------------------------ summary
section "summary"
checks_summary tests/ansible
