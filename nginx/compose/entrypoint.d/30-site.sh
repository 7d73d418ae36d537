#!/bin/bash
# The site file, rendered from nginx/fox-avatar.conf.j2 with the settings, the image set mounted
# at /srv/fox-avatar/images (AVATAR_IMAGES_DIR) and its identities drawn at build. Nginx's ports
# inside are the Dockerfile's; its status listener and the fallback feed stay on loopback (the
# monitoring profile's exporters join it there).
set -euo pipefail
upstream=(avatar_upstream_pool=/run/nginx/upstream)   # 40-app-pool.sh keeps it current
[[ -z ${AVATAR_APP_RESOLVER:-} ]] \
  || upstream=(avatar_upstream_resolver="$AVATAR_APP_RESOLVER" "avatar_upstream_servers=[\"app:$APP_PORT\"]")
mkdir -p /run/nginx
if ! err=$(python3 /usr/local/lib/fox-avatar/nginx/render.py --images /srv/fox-avatar/images \
      -o /run/nginx/fox-avatar.conf avatar_nginx_build="$(nginx -V 2>&1)" \
      avatar_server_name=localhost 'avatar_listen_addresses=["*"]' avatar_http_port="$NGINX_HTTP_PORT" \
      avatar_https_port="$NGINX_HTTPS_PORT" avatar_https_redirect_port="$AVATAR_HTTPS_PORT" \
      avatar_tls="$([[ $AVATAR_TLS == on ]] && echo true || echo false)" \
      avatar_real_ip_from="$NGINX_REAL_IP_FROM" avatar_images_max_age="$AVATAR_IMAGES_MAX_AGE" \
      avatar_keepalive_timeout="$AVATAR_KEEPALIVE_TIMEOUT" \
      avatar_tls_certificate="$NGINX_TLS_DIR/fullchain.pem" avatar_tls_certificate_key="$NGINX_TLS_DIR/privkey.pem" \
      avatar_images_root=/srv/fox-avatar/images avatar_identities_root=/srv/fox-avatar/identities \
      avatar_access_log_mode="$AVATAR_ACCESS_LOG" \
      avatar_access_log=/dev/stdout avatar_error_log=/dev/stderr avatar_fallback_log=/dev/stderr \
      "avatar_status_listen=[\"127.0.0.1:$NGINX_STATUS_PORT\"]" avatar_fallback_syslog="127.0.0.1:$NGINX_FALLBACK_FEED_PORT" \
      "${upstream[@]}" 2>&1); then
  echo "nginx-entrypoint: AVATAR_IMAGES_DIR=${AVATAR_IMAGES_DIR:-./images}: not a complete image set (make one with \`make images SRC=DIR OUT=DIR\`): $(tail -n1 <<<"$err")" >&2
  exit 2
fi
