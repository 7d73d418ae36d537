#!/usr/bin/env bash
# The acme TLS mode (ansible/roles/fox_avatar_acme) against a real ACME server: Pebble, Let's
# Encrypt's test CA (pinned Go module, tools/docker.sh), in a container on the test network,
# doing real http-01 validation against a fresh systemd host reached by its network alias
# (Docker's embedded DNS). Part of `make test-ansible` (tests/ansible/run.sh); runs alone too.
#
#   1. fresh host, acme mode: converge; Nginx serves a certificate issued by Pebble for the
#      configured name (chain verified against Pebble's root, fetched from its management API).
#   2. second converge: changed=0, nothing re-issued (same serial, one certificate in the lineage).
#   3. the shared HTTP suite (tests/stack, AVATAR_STACK=external) with Pebble's root trusted.
#   4. one more name: the converge re-issues the same lineage for both names; Nginx serves it,
#      reloaded, not restarted.
#   5. forced renewal inside the host (`certbot renew --force-renewal`, with certbot.service's
#      environment): Nginx serves the new certificate (new serial) with no manual reload;
#      certbot.timer enabled and active; the next converge changes nothing.
#   6. a wrong setting (no contact email): the converge fails with one line naming it, having
#      changed nothing.
#
# Settings: ACME_TEST_SUITE (bookworm | trixie, default bookworm), ACME_TEST_KEEP=1 leaves the
# containers running, ACME_TEST_PREFIX names containers and network (default foxacme<PID>, so runs never collide).
. "$(dirname "$0")/lib.sh"

P=${ACME_TEST_PREFIX:-foxacme$$}
SUITE=${ACME_TEST_SUITE:-bookworm}
NET=$P-net
HOST=$P-host
PEBBLE=$P-pebble
NAME=avatar.test
NAME2=www.avatar.test
WORK=$(mktemp -d /tmp/fox-acme-test.XXXXXX)

trap 'hosts_cleanup "${ACME_TEST_KEEP:-${ANSIBLE_TEST_KEEP:-}}" "$NET" "$WORK" "$HOST" "$PEBBLE"' EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------------ prerequisites
section "ACME prerequisites"
ansible_prerequisites
# The apt download cache, when it can fetch the main archive (otherwise the host goes direct).
if apt_cache_ready >/dev/null; then
  if curl -fsS -o /dev/null -m 30 -x "$APT_PROXY" "$(_dk_mirror)/dists/$SUITE/InRelease"; then
    echo "apt cache for the test host: $APT_PROXY"
  else
    echo "apt cache $APT_PROXY cannot fetch $(_dk_mirror)/dists/$SUITE/InRelease: not using it"
    unset APT_PROXY
  fi
fi
pebble_ready >/dev/null || die "Pebble could not be installed"
PEBBLE_CERTS=$(pebble_certs_dir) || die "Pebble's test certificates not found"
systemd_image_ready "$SUITE" || die "no $SUITE systemd image"

# The CA that certbot must trust for Pebble's own API (its test certificate for "pebble").
cp "$PEBBLE_CERTS/pebble.minica.pem" "$WORK/pebble-api-ca.pem"
# Pebble: validation on the standard ports; short Retry-After; every order validated for real.
cat >"$WORK/pebble.json" <<'EOF'
{
  "pebble": {
    "listenAddress": "0.0.0.0:14000",
    "managementListenAddress": "0.0.0.0:15000",
    "certificate": "/certs/localhost/cert.pem",
    "privateKey": "/certs/localhost/key.pem",
    "httpPort": 80,
    "tlsPort": 443,
    "ocspResponderURL": "",
    "externalAccountBindingRequired": false,
    "domainBlocklist": ["blocked-domain.example"],
    "retryAfter": {"authz": 1, "order": 1},
    "keyAlgorithm": "ecdsa",
    "profiles": {"default": {"description": "test", "validityPeriod": 7776000}}
  }
}
EOF

# ------------------------------------------------------------------ containers
section "Pebble and a fresh $SUITE systemd host on network $NET"
systemd_host_rm "$HOST" "$PEBBLE"
docker network inspect "$NET" >/dev/null 2>&1 || docker network create "$NET" >/dev/null \
  || die "cannot create network $NET"
# Pebble runs in a container of the systemd image (any glibc image does; no registry needed), so
# it resolves the host's name with Docker's embedded DNS, like a CA resolving a public name.
docker run -d --name "$PEBBLE" --network "$NET" --network-alias pebble \
  -e PEBBLE_VA_NOSLEEP=1 -e PEBBLE_WFE_NONCEREJECT=0 -e PEBBLE_AUTHZREUSE=0 \
  -v "$PEBBLE_BIN:/usr/local/bin/pebble:ro" -v "$PEBBLE_CERTS:/certs:ro" \
  -v "$WORK/pebble.json:/etc/pebble.json:ro" \
  --entrypoint /usr/local/bin/pebble "local/debian-systemd:$SUITE" -config /etc/pebble.json \
  >/dev/null || die "cannot start Pebble"
systemd_host_run "$HOST" "$SUITE" "$NET" --network-alias "$NAME" --network-alias "$NAME2" \
  || die "the systemd host did not start"
IP=$(systemd_host_ip "$HOST" "$NET")
PEBBLE_IP=$(systemd_host_ip "$PEBBLE" "$NET")
echo "$HOST: $IP ($(docker exec "$HOST" sh -c '. /etc/os-release; echo $PRETTY_NAME')), names $NAME $NAME2"
echo "$PEBBLE: $PEBBLE_IP ($("$PEBBLE_BIN" -version 2>/dev/null | head -n1); $PEBBLE_VERSION)"
pebble_api() { # PATH on the management API (port 15000)
  curl -fsS --cacert "$WORK/pebble-api-ca.pem" --resolve "pebble:15000:$PEBBLE_IP" "https://pebble:15000$1"
}
for _ in $(seq 1 30); do
  curl -fsS -o /dev/null --cacert "$WORK/pebble-api-ca.pem" --resolve "pebble:14000:$PEBBLE_IP" \
    https://pebble:14000/dir && break
  sleep 0.5
done
# Pebble makes a new root at every start: fetch it once it runs.
pebble_api /roots/0 >"$WORK/pebble-root.pem" && grep -q 'BEGIN CERTIFICATE' "$WORK/pebble-root.pem" \
  || { docker logs "$PEBBLE" 2>&1 | tail -n 20; die "Pebble does not answer"; }
echo "Pebble's root: $(openssl x509 -in "$WORK/pebble-root.pem" -noout -subject)"

cat >"$WORK/inventory.yml" <<EOF
all:
  vars:
    ansible_connection: community.docker.docker
    ansible_become: false
    fox_avatar_tls_mode: acme
    fox_avatar_tls_domains: [$NAME]
    fox_avatar_acme_email: hostmaster@$NAME
    fox_avatar_acme_directory_url: https://pebble:14000/dir
    fox_avatar_acme_ca_bundle: $WORK/pebble-api-ca.pem
  children:
    avatar_proxies:
      hosts:
        $HOST:
    avatar_apps:
      hosts:
        $HOST:
EOF

converge() { playbook "$WORK/inventory.yml" "$@"; } # LOG [ansible-playbook args...]

# The certificate Nginx serves for NAME (SNI), from outside the host.
served() { # NAME -> PEM of the leaf
  openssl s_client -connect "$IP:443" -servername "$1" </dev/null 2>/dev/null | openssl x509
}
serial_of() { served "$1" | openssl x509 -noout -serial 2>/dev/null | cut -d= -f2; }
sans_of() { served "$1" | openssl x509 -noout -ext subjectAltName 2>/dev/null | tail -n +2 | tr -d ' '; }
verifies() { # NAME: the served chain verifies against Pebble's root for NAME (curl: TLS + hostname)
  curl -sS -o /dev/null --cacert "$WORK/pebble-root.pem" --resolve "$1:443:$IP" "https://$1/"
}
issued_by_pebble() { served "$1" | openssl x509 -noout -issuer | grep -q 'Pebble Intermediate CA'; }
lineage_count() { docker exec "$HOST" sh -c 'ls /etc/letsencrypt/archive/fox-avatar/cert*.pem | wc -l'; }
installed_is_lineage() { # the fixed paths hold the lineage's current files
  docker exec "$HOST" sh -c 'cmp -s /etc/letsencrypt/live/fox-avatar/fullchain.pem /etc/ssl/fox-avatar/fullchain.pem &&
    cmp -s /etc/letsencrypt/live/fox-avatar/privkey.pem /etc/ssl/fox-avatar/privkey.pem'
}
wait_serial_change() { # NAME OLD: up to 15 s for Nginx to serve another serial
  local i s
  for i in $(seq 1 30); do
    s=$(serial_of "$1"); [ -n "$s" ] && [ "$s" != "$2" ] && return 0; sleep 0.5
  done
  return 1
}

# ------------------------------------------------------------------ 1. fresh host
section "ACME 1. fresh host: converge in acme mode"
converge "$WORK/run1.log" --diff
show_log "first converge" "$WORK/run1.log"
check "acme: first converge on a fresh host succeeds" ran_clean "$WORK/run1.log"
if ! ran_clean "$WORK/run1.log"; then
  grep -A 12 -E '^(fatal|failed)' "$WORK/run1.log" | head -n 60
  die "the first converge failed (log above); the other ACME checks need it"
fi
check "acme: the self-signed placeholder came first (Nginx started before issuance)" \
  grep -q 'Put a self-signed placeholder there' "$WORK/run1.log"
served "$NAME" | openssl x509 -noout -subject -issuer -serial -dates -ext subjectAltName 2>/dev/null | sed 's/^/  served: /'
SERIAL1=$(serial_of "$NAME")
check "acme: Nginx serves a certificate issued by Pebble" issued_by_pebble "$NAME"
check "acme: the served chain verifies against Pebble's root for $NAME" verifies "$NAME"
check "acme: the certificate names exactly $NAME" test "$(sans_of "$NAME")" = "DNS:$NAME"
check "acme: the files Nginx reads are the lineage's" installed_is_lineage
check "acme: certbot.timer enabled and active" \
  docker exec "$HOST" sh -c 'systemctl is-enabled --quiet certbot.timer && systemctl is-active --quiet certbot.timer'
check "acme: certbot.service renews with the configured CA bundle (drop-in)" \
  eval "docker exec $HOST systemctl show -P Environment certbot.service | grep -q REQUESTS_CA_BUNDLE=/etc/letsencrypt/fox-avatar-ca-bundle.pem"
check "acme: no OCSP stapling in the served configuration" \
  eval "! docker exec $HOST sh -c 'nginx -T 2>/dev/null' | grep -Eq '^[[:space:]]*ssl_stapling[[:space:]]+on'"

# ------------------------------------------------------------------ 2. idempotence
section "ACME 2. second converge: nothing changes, nothing re-issued"
converge "$WORK/run2.log"
show_log "second converge" "$WORK/run2.log"
check "acme: second converge reports changed=0" ran_unchanged "$WORK/run2.log"
check "acme: nothing re-issued (same serial $SERIAL1)" test -n "$SERIAL1" -a "$(serial_of "$NAME")" = "$SERIAL1"
check "acme: one certificate in the lineage" test "$(lineage_count)" = 1

# ------------------------------------------------------------------ 3. shared HTTP suite
section "ACME 3. shared HTTP suite with Pebble's root trusted"
new=$([ "$SUITE" = trixie ] && echo 1 || echo 0)   # Debian 13: HTTP/3 and X25519MLKEM768
AVATAR_HTTP3=$new AVATAR_PQ=$new AVATAR_CLIENT_NETWORK=$NET \
check "acme: shared HTTP suite passes against $IP with Pebble's root (AVATAR_HTTP3=$new AVATAR_PQ=$new)" \
  stack_suite "$WORK/pytest.log" "$NAME" "$IP" "$WORK/pebble-root.pem" "$HOST" "$HOST"

# ------------------------------------------------------------------ 4. new name
section "ACME 4. one more name: the same lineage is re-issued"
PID=$(nginx_pid "$HOST")
converge "$WORK/run3.log" --diff -e "{\"fox_avatar_tls_domains\": [\"$NAME\", \"$NAME2\"]}"
show_log "converge with $NAME2 added" "$WORK/run3.log"
check "acme: converge with a new name succeeds" ran_clean "$WORK/run3.log"
check "acme: the new name re-issued the certificate (changed)" eval "recap '$WORK/run3.log' | grep -Eq 'changed=[1-9]'"
SERIAL2=$(serial_of "$NAME2")
check "acme: Nginx serves a new certificate (serial $SERIAL1 -> ${SERIAL2:-none})" \
  test -n "$SERIAL2" -a "$SERIAL2" != "$SERIAL1"
check "acme: the certificate names $NAME and $NAME2" \
  test "$(sans_of "$NAME2" | tr ',' '\n' | sort | tr '\n' ' ')" = "DNS:$NAME DNS:$NAME2 "
check "acme: the served chain verifies against Pebble's root for $NAME2" verifies "$NAME2"
check "acme: still one lineage (fox-avatar), now two certificates in it" \
  eval "[ \"\$(docker exec $HOST ls /etc/letsencrypt/live)\" = \"\$(printf 'README\nfox-avatar')\" ] && [ \"\$(lineage_count)\" = 2 ]"
check "acme: Nginx was reloaded, not restarted (master PID $PID)" test "$(nginx_pid "$HOST")" = "$PID"

# ------------------------------------------------------------------ 5. forced renewal
section "ACME 5. forced renewal inside the host, as certbot.timer would run it"
PID=$(nginx_pid "$HOST")
# certbot.service's environment (the CA bundle drop-in), then certbot renew: the deploy hook
# must install the certificate and reload Nginx by itself.
docker exec "$HOST" sh -c 'env $(systemctl show -P Environment certbot.service) certbot renew --force-renewal --no-random-sleep-on-renew' \
  >"$WORK/renew.log" 2>&1
echo $? >"$WORK/renew.rc"
grep -E 'fox-avatar deploy hook|renewed|Congratulations|error|fail' "$WORK/renew.log" | head -n 10
check "acme: certbot renew --force-renewal succeeds" test "$(cat "$WORK/renew.rc")" = 0
check "acme: the deploy hook ran" grep -q 'fox-avatar deploy hook: installed' "$WORK/renew.log"
check "acme: Nginx serves the renewed certificate without a manual reload (new serial)" \
  wait_serial_change "$NAME" "$SERIAL2"
echo "  served after renewal: $(serial_of "$NAME") (before: $SERIAL2)"
check "acme: the renewed certificate is Pebble's and verifies for $NAME" \
  eval "issued_by_pebble $NAME && verifies $NAME"
check "acme: the files Nginx reads are the renewed lineage's" installed_is_lineage
check "acme: Nginx was reloaded, not restarted (master PID $PID)" test "$(nginx_pid "$HOST")" = "$PID"
SERIAL3=$(serial_of "$NAME")
converge "$WORK/run4.log" -e "{\"fox_avatar_tls_domains\": [\"$NAME\", \"$NAME2\"]}"
show_log "converge after the renewal" "$WORK/run4.log"
check "acme: converge after a renewal reports changed=0" ran_unchanged "$WORK/run4.log"
check "acme: ... and keeps the renewed certificate (serial $SERIAL3)" test "$(serial_of "$NAME")" = "$SERIAL3"

# ------------------------------------------------------------------ 6. bad input
section "ACME 6. a wrong setting"
# The settings are checked by the pre-flight play, before anything runs on any host.
converge "$WORK/bad.log" -e '{"fox_avatar_acme_email": ""}' -e "{\"fox_avatar_tls_domains\": [\"$NAME\", \"$NAME2\"]}"
grep -E 'fox_avatar_acme_email \(' "$WORK/bad.log" | head -n 2
check "acme: no contact email -> the converge fails" eval "! ran_clean '$WORK/bad.log'"
check "acme: ... with one line naming fox_avatar_acme_email" \
  grep -Eq "fox_avatar_acme_email \($HOST\): '' is not an email address" "$WORK/bad.log"
check "acme: ... having changed nothing (changed=0)" eval "! recap '$WORK/bad.log' | grep -Eq 'changed=[1-9]'"

# ------------------------------------------------------------------ summary
section "ACME summary"
checks_summary tests/ansible/acme.sh
