#!/bin/bash
# The site file /etc/nginx/conf.d/fox-avatar.conf (a link to /run/nginx/fox-avatar.conf: the root
# file system is read-only), rendered from nginx/fox-avatar.conf.j2 by nginx/render.py for this
# Nginx (nginx -V), the image set mounted at /srv/fox-avatar/images (AVATAR_IMAGES_DIR, the set the
# app reads too) and the settings 10-settings.envsh checked and exported. Every setting's value is
# in the rendered file; the app's addresses are not settings: 40-app-pool.sh's file, which the
# upstream includes.
#   AVATAR_IMAGES_DIR   (only named in messages) the host directory compose mounts there; not a
#                       complete set (manifest.tsv and every file it lists): a one-line error naming
#                       it, exit 2.
set -euo pipefail

site=/run/nginx/fox-avatar.conf
images=/srv/fox-avatar/images
tls=$NGINX_TLS_DIR   # /etc/nginx/tls, or the Swarm's secrets (10-settings.envsh; 20-certificate.sh checked it)
die() { echo "nginx-entrypoint: $*" >&2; exit 2; }

# The ports: ports.env, their one owner (nginx/Dockerfile copies it; its names are not settings).
# shellcheck source=../../../ports.env
. /usr/local/lib/fox-avatar/ports.env
# The ports Nginx listens on inside the container.
listen_http=$NGINX_CONTAINER_HTTP_PORT listen_https=$NGINX_CONTAINER_HTTPS_PORT
# For the monitoring profile's exporters, which join this container's network namespace
# (docker-compose.yml, network_mode: service:nginx; their images read the same ports.env): Nginx's
# stub_status on loopback only (avatar_status_allow's default), and the fallback feed to mtail. IP
# literals: Nginx resolves nothing for them at start. Without the profile nothing reads them; a
# fallback answer's lost datagram costs one "send() failed" line in Nginx's error output.
status_listen=127.0.0.1:$NGINX_STATUS_PORT
fallback_syslog=127.0.0.1:$NGINX_FALLBACK_FEED_PORT

mkdir -p "${site%/*}"
# The app service: the addresses of its compose name, which 40-app-pool.sh writes into the pool
# directory and keeps current; with AVATAR_APP_RESOLVER (a Swarm), "app" through that DNS server
# every second, with no reload.
upstream=(avatar_upstream_pool=/run/nginx/upstream)
[[ -n ${AVATAR_APP_RESOLVER:-} ]] \
  && upstream=(avatar_upstream_resolver="$AVATAR_APP_RESOLVER" avatar_upstream_servers="[\"app:$AVATAR_APP_PORT\"]")
if ! err=$(python3 /usr/local/lib/fox-avatar/nginx/render.py --images "$images" -o "$site" \
      avatar_nginx_build="$(nginx -V 2>&1)" \
      avatar_server_name=localhost 'avatar_listen_addresses=["*"]' \
      avatar_http_port="$listen_http" avatar_https_port="$listen_https" \
      avatar_https_redirect_port="$AVATAR_HTTPS_PORT" \
      avatar_tls="$([[ $AVATAR_TLS == on ]] && echo true || echo false)" \
      avatar_real_ip_from="$NGINX_REAL_IP_FROM" \
      avatar_images_max_age="$AVATAR_IMAGES_MAX_AGE" \
      avatar_keepalive_timeout="$AVATAR_KEEPALIVE_TIMEOUT" \
      avatar_tls_certificate="$tls/fullchain.pem" avatar_tls_certificate_key="$tls/privkey.pem" \
      avatar_images_root="$images" avatar_access_log_mode="$AVATAR_ACCESS_LOG" \
      avatar_access_log=/dev/stdout avatar_error_log=/dev/stderr avatar_fallback_log=/dev/stderr \
      avatar_status_listen="[\"$status_listen\"]" avatar_fallback_syslog="$fallback_syslog" \
      "${upstream[@]}" 2>&1); then
  die "AVATAR_IMAGES_DIR=${AVATAR_IMAGES_DIR:-./images}: not a complete image set (make one with \`make images SRC=DIR OUT=DIR\`): $(tail -n1 <<<"$err")"
fi
