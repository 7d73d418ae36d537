#!/bin/bash
# While Nginx runs: every NGINX_TLS_CHECK_SECONDS (an hour), 20-certificate.sh again (a self-signed
# certificate renewed when due), and Nginx reloaded whenever the files changed (renewed, or yours
# replaced). A Swarm's secrets change by a service update instead.
set -euo pipefail
[[ $AVATAR_TLS == on && $NGINX_TLS_DIR != /run/secrets ]] || exit 0
files=("$NGINX_TLS_DIR/fullchain.pem" "$NGINX_TLS_DIR/privkey.pem")
(
  set +e
  seen=$(stat -L -c '%i %s %Y' "${files[@]}")
  while sleep "${NGINX_TLS_CHECK_SECONDS:-3600}"; do
    /docker-entrypoint.d/20-certificate.sh || continue
    now=$(stat -L -c '%i %s %Y' "${files[@]}")
    [[ $now != "$seen" ]] && nginx -s reload || continue
    seen=$now
    echo "nginx-entrypoint: the certificate changed, Nginx reloaded" >&2
  done
) </dev/null &
