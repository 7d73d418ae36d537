#!/bin/bash
# ACME, when AVATAR_ACME_EMAIL is set: a loop beside Nginx gets a certificate for AVATAR_TLS_NAMES
# from AVATAR_ACME_DIRECTORY with Debian's certbot (http-01: the challenge files go to /var/www/acme,
# which Nginx's port 80 serves), installs it as fullchain.pem and privkey.pem of /etc/nginx/tls and
# reloads Nginx (graceful: no request lost). Until then Nginx serves the self-signed placeholder
# (20-certificate.sh). It renews when a third of the certificate's own lifetime is left, and after a
# failure tries again in 10 minutes, doubling up to a day (within the CA's rate limits), each failure
# one log line saying why and when. certbot's account and certificates live in /etc/nginx/tls/acme
# (the volume tls): they outlast the container, an upgrade and a reboot.
set -euo pipefail
[[ -n ${AVATAR_ACME_EMAIL:-} ]] || exit 0
tls=$NGINX_TLS_DIR
conf=$tls/acme
read -r -a names <<<"$AVATAR_TLS_NAMES"
# what an installed certificate was got for (acme.names): a change of names or CA asks for a new one
wanted="${names[*]} $AVATAR_ACME_DIRECTORY"
retry_first=${NGINX_ACME_RETRY_SECONDS:-600}
retry_max=86400
check_max=3600   # looked at again at least hourly, so a certificate changed under it is seen
mkdir -p -m 0700 "$conf"
# the CAs certbot trusts for the directory's HTTPS: Debian's, plus the owner's private ones
export REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
if [[ -n ${AVATAR_ACME_CA_FILE:-} ]]; then
  cat /etc/ssl/certs/ca-certificates.crt "$AVATAR_ACME_CA_FILE" >/tmp/acme-ca.pem
  REQUESTS_CA_BUNDLE=/tmp/acme-ca.pem
fi

log() { echo "nginx-entrypoint: ACME: $*" >&2; }
utc() { date -u -d "@$1" '+%F %T UTC'; }
epoch() { date -d "$(openssl x509 -in "$tls/fullchain.pem" -noout "-$1" | cut -d= -f2)" +%s; }

# When the installed certificate is due (seconds since the epoch): at two thirds of its lifetime,
# from its notBefore and notAfter; 0 (now) when it is not ACME's for these names and this CA.
due() {
  local from until
  [[ -f $tls/acme.names && $(<"$tls/acme.names") == "$wanted" ]] || { echo 0; return; }
  from=$(epoch startdate) && until=$(epoch enddate) || { echo 0; return; }
  echo $((from + (until - from) * 2 / 3))
}

obtain() {
  local args=(certonly --non-interactive --agree-tos --no-eff-email --email "$AVATAR_ACME_EMAIL"
              --server "$AVATAR_ACME_DIRECTORY" --config-dir "$conf" --work-dir /tmp/certbot
              --logs-dir /tmp/certbot/logs --max-log-backups 0 --cert-name fox-avatar --key-type ecdsa
              --webroot --webroot-path /var/www/acme --force-renewal) name
  for name in "${names[@]}"; do args+=(-d "$name"); done
  rm -rf /tmp/certbot && mkdir -p /tmp/certbot
  certbot "${args[@]}" >/tmp/certbot/out 2>&1
}

# certbot's certificate and key into Nginx's files, each moved into place whole
install() {
  local live=$conf/live/fox-avatar
  cp "$live/privkey.pem" "$tls/.acme-privkey.pem" && chmod 0600 "$tls/.acme-privkey.pem" \
    && cp "$live/fullchain.pem" "$tls/.acme-fullchain.pem" && chmod 0644 "$tls/.acme-fullchain.pem" \
    && mv -f "$tls/.acme-privkey.pem" "$tls/privkey.pem" && mv -f "$tls/.acme-fullchain.pem" "$tls/fullchain.pem" \
    && rm -f "$tls/self-signed.names" && printf '%s\n' "$wanted" >"$tls/acme.names"
}

# Why certbot failed, in one line: the CA's problem with the first name it could not validate
# (its challenge token left out), else certbot's own error.
reason() {
  local out=/tmp/certbot/out line
  line=$(awk '/^ *Domain:/ { d = $2 } /^ *Type:/ { t = $2 }
              /^ *Detail:/ { sub(/^ *Detail: */, ""); print d ": " t ": " $0; exit }' "$out")
  [[ -n $line ]] || line=$(grep -A1 -m1 'An unexpected error occurred:' "$out" | sed -n 2p)
  [[ -n $line ]] || line=$(grep -v -e '^[[:space:]]*$' -e 'log' "$out" | tail -n1)
  if [[ $line == *CERTIFICATE_VERIFY_FAILED* ]]; then
    line="its HTTPS certificate is not trusted (AVATAR_ACME_CA_FILE): ${line##*certificate verify failed: }"
    line=${line%% (_ssl*}
  fi
  line=$(sed -E 's#(/\.well-known/acme-challenge/)[A-Za-z0-9_-]+#\1...#g' <<<"${line//$'\r'/}")
  echo "${line:0:300}"
}

(
  set +e
  # the first try once Nginx serves port 80's challenges (its status listener answers)
  for _ in $(seq 60); do
    (exec 3<>/dev/tcp/127.0.0.1/"$NGINX_STATUS_PORT") 2>/dev/null && break
    sleep 1
  done
  delay=$retry_first
  while :; do
    now=$(date +%s) at=$(due)
    if ((at > now)); then
      sleep $((at - now < check_max ? at - now : check_max))
      continue
    fi
    if obtain && install && nginx -s reload 2>>/tmp/certbot/out; then
      log "a certificate for ${names[*]} until $(utc "$(epoch enddate)"), Nginx reloaded; renewal from $(utc "$(due)")"
      delay=$retry_first
    else
      serving="the self-signed placeholder"
      [[ -e $tls/self-signed.names ]] || serving="the certificate until $(utc "$(epoch enddate)")"
      log "no certificate for ${names[*]} from $AVATAR_ACME_DIRECTORY: $(reason); serving $serving; next try at $(utc $(($(date +%s) + delay)))"
      sleep "$delay"
      delay=$((delay * 2 > retry_max ? retry_max : delay * 2))
    fi
  done
) </dev/null &
