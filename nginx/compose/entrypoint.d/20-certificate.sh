#!/bin/bash
# The certificate in /etc/nginx/tls: yours kept as it is, else a self-signed one for
# AVATAR_TLS_NAMES made or renewed (nginx/selfsigned.sh): the placeholder too while ACME has none
# yet (60-acme.sh). A CA's certificate left by ACME that is now off (acme.names beside it) gives way
# to a self-signed one. Nothing with TLS off or the Swarm's secrets.
set -euo pipefail
[[ $AVATAR_TLS == on && $NGINX_TLS_DIR != /run/secrets ]] || exit 0
if [[ -z ${AVATAR_ACME_EMAIL:-} && -e $NGINX_TLS_DIR/acme.names ]]; then
  rm -f "$NGINX_TLS_DIR/fullchain.pem" "$NGINX_TLS_DIR/privkey.pem" "$NGINX_TLS_DIR/acme.names"
fi
read -r -a names <<<"$AVATAR_TLS_NAMES"
selfsigned "$NGINX_TLS_DIR" "${names[@]}" >&2 \
  || { echo "nginx-entrypoint: no certificate in $NGINX_TLS_DIR (AVATAR_TLS_DIR)" >&2; exit 2; }
