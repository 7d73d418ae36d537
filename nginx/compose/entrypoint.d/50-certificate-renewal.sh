#!/bin/bash
# The certificate kept current while Nginx runs, with no restart (issue 45): a loop left beside Nginx
# runs 20-certificate.sh again every NGINX_TLS_CHECK_SECONDS (3600: an hour; the tests set a few
# seconds), which makes the self-signed certificate again once fewer than SELFSIGNED_RENEW_DAYS
# remain (or its names changed) and keeps yours; whenever fullchain.pem or privkey.pem changed since
# the last look (renewed here, or your own files replaced by your tool), Nginx is reloaded
# (graceful: no connection refused; the workers that held the old certificate finish what they
# have in flight). Not for the Swarm's secrets (/run/secrets): a new secret is a service update
# (docs/swarm.md, "Rotate the certificate"). Your own certificate near its end is the monitoring's
# to tell (FoxAvatarCertificateExpiresSoon, docs/monitoring.md).
set -euo pipefail
die() { echo "nginx-entrypoint: $*" >&2; exit 2; }
interval=${NGINX_TLS_CHECK_SECONDS:-3600}
[[ $interval =~ ^[1-9][0-9]{0,6}$ ]] || die "NGINX_TLS_CHECK_SECONDS: not a number of seconds: '$interval'"
[[ $NGINX_TLS_DIR != /run/secrets ]] || exit 0
[[ $AVATAR_TLS == on ]] || exit 0   # a proxy in front terminates TLS: Nginx reads no certificate

files=("$NGINX_TLS_DIR/fullchain.pem" "$NGINX_TLS_DIR/privkey.pem")
# what: the files' identity (inode, size, modification time), to see a change
what() { stat -L -c '%i %s %Y' "${files[@]}" 2>/dev/null || true; }
(
  set +e
  seen=$(what)
  while sleep "$interval"; do
    /docker-entrypoint.d/20-certificate.sh || continue   # half-written files: it said why; next time
    now=$(what)
    [[ $now == "$seen" ]] && continue
    if nginx -s reload 2>/dev/null; then
      echo "nginx-entrypoint: the certificate changed ($(openssl x509 -in "${files[0]}" -noout -enddate 2>/dev/null)), Nginx reloaded" >&2
      seen=$now
    fi
  done
) </dev/null &
