# Sourced by tests/ansible/run.sh: HTTP/3 and the TLS group of a test host, seen by Debian 13's
# clients (curl with HTTP/3, OpenSSL 3.5: image $CLIENT, tools/docker.sh trixie_client_ready) in a
# container on the test network $NET, asking for $SITE_NAME (all three set by run.sh).
#   h3_checks HOST ADDR CA 1|0   the checks: a Debian 13 host (1) serves the 302 over HTTP/3, sends
#                                Alt-Svc, listens on UDP 443 and negotiates X25519MLKEM768 (a classic
#                                client still gets X25519); a Debian 12 host (0) does none of it
#   h3_get ADDR CA               "<status> <HTTP version>" of GET / with curl --http3-only
#   alt_svc ADDR CA              the Alt-Svc header of GET / over HTTPS (TCP)
#   tls_group ADDR CA GROUPS     the TLS 1.3 group the host picks from GROUPS (openssl s_client)
#   udp_443 HOST                 the host's UDP listeners on port 443
#   h3_toggle_job, h3_toggle_checks  scenario 1b: fox_avatar_nginx_http3=false on the Debian 13 host
#                                $H13, back to the default, then once more (three converges, what each
#                                step saw written to $WORK); then the checks of what was written down
trixie_client() { # CA-FILE COMMAND...
  local ca=$1; shift
  docker run --rm --network "$NET" -v "$ca:/ca.pem:ro" "$CLIENT" "$@"
}
h3_get() { # ADDR CA: "<status> <HTTP version>" of GET / over HTTP/3 only (curl --http3-only)
  trixie_client "$2" curl -s -o /dev/null -w '%{http_code} %{http_version}' --http3-only --max-time 10 \
    --cacert /ca.pem --resolve "$SITE_NAME:443:$1" "https://$SITE_NAME/" 2>&1
}
alt_svc() { # ADDR CA: the Alt-Svc header of GET / over HTTPS (TCP)
  curl -s -o /dev/null -D - --cacert "$2" --resolve "$SITE_NAME:443:$1" "https://$SITE_NAME/" \
    | tr -d '\r' | sed -n 's/^alt-svc: *//Ip'
}
tls_group() { # ADDR CA GROUPS: the TLS 1.3 group the host picks from those Debian 13's openssl offers
  # (OpenSSL 3.5 prints "Negotiated TLS1.3 group: X25519MLKEM768" for the hybrid KEM, "Peer Temp Key:
  # X25519, 253 bits" for a classic group)
  trixie_client "$2" sh -c 'openssl s_client -connect "$1:443" -servername "$2" -groups "$3" -CAfile /ca.pem </dev/null 2>&1' \
    sh "$1" "$SITE_NAME" "$3" | sed -n 's/^Negotiated TLS1.3 group: //p; s/^Peer Temp Key: \([^,]*\),.*/\1/p' | head -n 1
}
udp_443() { # HOST: its UDP listeners on 443, one per address ("*:443 [::]:443 ")
  docker exec "$1" ss -Hlun 'sport = :443' | awk '{print $4}' | sed 's/^0\.0\.0\.0:/*:/' | sort -u | tr '\n' ' '
}
h3_checks() { # HOST ADDR CA 1|0: the host must (1) or must not (0) serve HTTP/3 and X25519MLKEM768
  local h=$1 addr=$2 ca=$3 want=$4 got alt group classic udp
  got=$(h3_get "$addr" "$ca"); alt=$(alt_svc "$addr" "$ca"); udp=$(udp_443 "$h")
  group=$(tls_group "$addr" "$ca" X25519MLKEM768:X25519)
  echo "$h: HTTP/3 GET / -> '$got'; Alt-Svc '$alt'; UDP listeners on 443: '${udp:-none}'; group offered X25519MLKEM768:X25519 -> '$group'"
  if [ "$want" = 1 ]; then
    check "$h (Debian 13): 302 over HTTP/3 (curl --http3-only: $got)" test "$got" = "302 3"
    check "$h (Debian 13): Alt-Svc on HTTPS answers names HTTP/3 on 443 ($alt)" test "$alt" = 'h3=":443"; ma=86400'
    check "$h (Debian 13): a QUIC listener on UDP 443 per address (${udp:-none})" test "$udp" = "*:443 [::]:443 "
    check "$h (Debian 13): negotiates X25519MLKEM768 with Debian 13's openssl ($group)" test "$group" = X25519MLKEM768
    classic=$(openssl s_client -connect "$addr:443" -servername "$SITE_NAME" </dev/null 2>/dev/null \
              | sed -n 's/^Server Temp Key: \([^,]*\).*/\1/p')
    check "$h (Debian 13): a classic client (Debian 12's OpenSSL $(openssl version | cut -d' ' -f2)) still connects, with X25519 ($classic)" \
      test "$classic" = X25519
  else
    check "$h (Debian 12): no HTTP/3 (curl --http3-only: $got)" eval "[ '$got' != '302 3' ]"
    check "$h (Debian 12): no Alt-Svc header ('$alt')" test -z "$alt"
    check "$h (Debian 12): no UDP listener on 443 ('$udp')" test -z "$udp"
    check "$h (Debian 12): Debian 13's openssl offering X25519MLKEM768 gets X25519 ($group)" test "$group" = X25519
  fi
}

# Scenario 1b: run h3_toggle_job in the background, h3_toggle_checks once it has ended (uses run.sh's
# H13, IP, WORK, playbook).
h3_seen() { # FILE: what HTTP/3 looks like on $H13 now
  printf '%s|%s|%s\n' "$(h3_get "${IP[$H13]}" "$WORK/one13-ca.pem")" "$(alt_svc "${IP[$H13]}" "$WORK/one13-ca.pem")" \
    "$(udp_443 "$H13")" >"$1"
  curl -s -o /dev/null -w '%{http_code}' --cacert "$WORK/one13-ca.pem" \
    --resolve "$SITE_NAME:443:${IP[$H13]}" "https://$SITE_NAME/" >>"$1"
}
h3_toggle_job() {
  nginx_pid "$H13" >"$WORK/h3.pid.before"
  playbook "$WORK/one13.yml" "$WORK/h3off.log" -e '{"fox_avatar_nginx_http3": false}'
  h3_seen "$WORK/h3off.seen"
  playbook "$WORK/one13.yml" "$WORK/h3on.log"
  h3_seen "$WORK/h3on.seen"
  nginx_pid "$H13" >"$WORK/h3.pid.after"
  playbook "$WORK/one13.yml" "$WORK/h3on.2.log"
}
h3_toggle_checks() {
  local got alt udp code pid13
  section "1b. fox_avatar_nginx_http3=false on the Debian 13 host $H13, then back to the default"
  show_log "HTTP/3 off" "$WORK/h3off.log"
  check "HTTP/3 off: converge succeeds" ran_clean "$WORK/h3off.log"
  IFS='|' read -r got alt udp <"$WORK/h3off.seen"; code=$(sed -n 2p "$WORK/h3off.seen")
  echo "HTTP/3 off: curl --http3-only -> '$got'; Alt-Svc '$alt'; UDP listeners on 443: '${udp:-none}'; HTTPS over TCP: $code"
  check "HTTP/3 off: no QUIC listener (ss -uln: '${udp:-none}')" test -z "$udp"
  check "HTTP/3 off: no Alt-Svc ('$alt')" test -z "$alt"
  check "HTTP/3 off: no answer over HTTP/3 ($got)" eval "[ '$got' != '302 3' ]"
  check "HTTP/3 off: HTTPS over TCP still answers 302 ($code)" test "$code" = 302
  show_log "HTTP/3 back on" "$WORK/h3on.log"
  check "HTTP/3 back on: converge succeeds" ran_clean "$WORK/h3on.log"
  IFS='|' read -r got alt udp <"$WORK/h3on.seen"
  echo "HTTP/3 back on: curl --http3-only -> '$got'; Alt-Svc '$alt'; UDP listeners on 443: '${udp:-none}'"
  check "HTTP/3 back on: QUIC listeners again (${udp:-none})" test "$udp" = "*:443 [::]:443 "
  check "HTTP/3 back on: 302 over HTTP/3 ($got) with Alt-Svc ($alt)" test "$got $alt" = '302 3 h3=":443"; ma=86400'
  pid13=$(cat "$WORK/h3.pid.before")
  check "HTTP/3 off and on: Nginx reloaded, never restarted (same master PID $pid13)" \
    test -n "$pid13" -a "$(cat "$WORK/h3.pid.after")" = "$pid13"
  check "HTTP/3 back on: the next converge reports changed=0" ran_unchanged "$WORK/h3on.2.log"
}
