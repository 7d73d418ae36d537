#!/bin/bash
# The certificate in /etc/nginx/tls: yours kept as it is, else a self-signed one for
# AVATAR_TLS_NAMES made or renewed (nginx/selfsigned.sh). Nothing with TLS off or the Swarm's secrets.
set -euo pipefail
[[ $AVATAR_TLS == on && $NGINX_TLS_DIR != /run/secrets ]] || exit 0
read -r -a names <<<"$AVATAR_TLS_NAMES"
selfsigned "$NGINX_TLS_DIR" "${names[@]}" >&2 \
  || { echo "nginx-entrypoint: no certificate in $NGINX_TLS_DIR (AVATAR_TLS_DIR)" >&2; exit 2; }
