#!/bin/bash
# fox-avatar Nginx container start (docker compose): check the settings, make sure there is a
# certificate, write the run-time values the site file includes, then become nginx (PID 1,
# foreground).
#
#   /etc/nginx/tls/fullchain.pem + privkey.pem   used as they are when both exist (your own
#                                                certificate; the key must be readable by uid 33)
#   neither exists                               a self-signed certificate for AVATAR_TLS_NAMES is
#                                                generated (ECDSA P-256, 365 days) and kept there
#   a generated one whose names changed or that  is generated again
#   expires within 30 days
# (The one self-signed policy of every deployment: nginx/README.md, "The self-signed certificate".)
#
# Environment, every variable required (docker-compose.yml sets each, with its default; .env
# overrides them); a missing or wrong one is a one-line error naming it, exit 2:
#   AVATAR_HTTPS_PORT      the published HTTPS port, named by the HTTP -> HTTPS redirect
#   AVATAR_IMAGES_MAX_AGE  Cache-Control max-age of the images, seconds
#   AVATAR_APP_PORT        the port of the app service (its AVATAR_PORT: the same compose setting)
#   AVATAR_TLS_NAMES       space-separated DNS names and IP addresses; the first is the subject CN
#   AVATAR_ACCESS_LOG      anonymous | full | off: what the access log records (the template's
#                          avatar_access_log_mode; docs/privacy.md)
#
#   AVATAR_IMAGES_DIR      (only named in messages) the host directory compose mounts read-only at
#                          /srv/fox-avatar/images: the image set served (default: the repository's
#                          images/). Not a complete set (manifest.tsv and every file it lists): a
#                          one-line error naming AVATAR_IMAGES_DIR, exit 2.
#
# The site file /etc/nginx/conf.d/fox-avatar.conf (a link to $site_conf) is rendered here from
# nginx/fox-avatar.conf.j2 and the mounted set's manifest, without the values above: it includes
# the file written below ($runtime_conf).
set -euo pipefail

tls=/etc/nginx/tls
cert=$tls/fullchain.pem
key=$tls/privkey.pem
marker=$tls/self-signed.names     # present only next to a certificate this script generated
runtime_conf=/run/nginx/fox-avatar.runtime.conf   # the path the site file includes
site_conf=/run/nginx/fox-avatar.conf              # /etc/nginx/conf.d/fox-avatar.conf links here
images=/srv/fox-avatar/images
render=/usr/local/lib/fox-avatar/nginx/render.py
# For the monitoring profile's exporters, which join this container's network namespace
# (docker-compose.yml, network_mode: service:nginx; their images name the same addresses): Nginx's
# stub_status on loopback only (avatar_status_allow's default), and the fallback feed to mtail. IP
# literals: Nginx resolves nothing for them at start. Without the profile nothing reads them; a
# fallback answer's lost datagram costs one "send() failed" line in Nginx's error output.
status_listen=127.0.0.1:8082
fallback_syslog=127.0.0.1:5140

die() { echo "nginx-entrypoint: $*" >&2; exit 2; }

# need NAME: NAME's value must be set and not empty.
need() { [[ -n ${!1:-} ]] || die "$1: not set (docker-compose.yml sets it: start Nginx with compose)"; }
# tcp_port NAME: NAME must be a TCP port (1-65535).
tcp_port() {
  need "$1"
  [[ ${!1} =~ ^[0-9]{1,5}$ ]] && ((10#${!1} >= 1 && 10#${!1} <= 65535)) \
    || die "$1: not a TCP port: '${!1}'"
}

tcp_port AVATAR_HTTPS_PORT
tcp_port AVATAR_APP_PORT
need AVATAR_IMAGES_MAX_AGE
[[ $AVATAR_IMAGES_MAX_AGE =~ ^[0-9]{1,9}$ ]] \
  || die "AVATAR_IMAGES_MAX_AGE: not a number of seconds (0-999999999): '$AVATAR_IMAGES_MAX_AGE'"
https_port=$((10#$AVATAR_HTTPS_PORT)) app_port=$((10#$AVATAR_APP_PORT))
max_age=$((10#$AVATAR_IMAGES_MAX_AGE))
need AVATAR_ACCESS_LOG
[[ $AVATAR_ACCESS_LOG =~ ^(anonymous|full|off)$ ]] \
  || die "AVATAR_ACCESS_LOG: not anonymous, full or off: '$AVATAR_ACCESS_LOG'"
need AVATAR_TLS_NAMES
read -r -a name_list <<<"$AVATAR_TLS_NAMES"
((${#name_list[@]} > 0)) || die "AVATAR_TLS_NAMES: no name in '$AVATAR_TLS_NAMES'"

self_signed() {
  local san="" n
  for n in "${name_list[@]}"; do
    if [[ $n =~ ^[0-9.]+$ || $n == *:* ]]; then san+=",IP:$n"
    elif [[ $n =~ ^[A-Za-z0-9*]([A-Za-z0-9.-]*[A-Za-z0-9])?$ ]]; then san+=",DNS:$n"
    else die "AVATAR_TLS_NAMES: not a host name or IP address: '$n'"; fi
  done
  echo "nginx-entrypoint: generating a self-signed certificate for: ${name_list[*]}" >&2
  (
    umask 077
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 \
      -subj "/CN=${name_list[0]}" -addext "subjectAltName=${san#,}" \
      -addext "basicConstraints=critical,CA:FALSE" -addext "keyUsage=critical,digitalSignature" \
      -addext "extendedKeyUsage=serverAuth" \
      -keyout "$key.new" -out "$cert.new" 2>/dev/null
  ) || die "cannot write a certificate to $tls (read-only or not writable by uid $(id -u)?)"
  chmod 0644 "$cert.new"
  mv -f "$key.new" "$key" && mv -f "$cert.new" "$cert"
  printf '%s\n' "${name_list[*]}" >"$marker"
}

if [[ -e $cert && -e $key ]]; then
  if [[ -e $marker ]] && { [[ $(<"$marker") != "${name_list[*]}" ]] \
       || ! openssl x509 -in "$cert" -noout -checkend $((30 * 86400)) >/dev/null; }; then
    self_signed
  fi
elif [[ -e $cert || -e $key ]]; then
  die "$tls holds only one of fullchain.pem and privkey.pem: give both (or neither, for a self-signed one)"
else
  self_signed
fi
[[ -r $key ]] || die "$key is not readable by uid $(id -u) (chown or chmod it)"
# The tls volume: group www-data may read fullchain.pem (the monitoring profile's probe trusts it;
# privkey.pem stays 0600). A volume made before this line had 0700.
if [[ -O $tls ]]; then chmod 0750 "$tls"; fi

# The run-time values, in the http context of the site file (which leaves exactly these out). The
# upstream block is the template's (nginx/fox-avatar.conf.j2) for the one server app:PORT; a test
# (tests/compose) checks that the two agree.
if ((https_port == 443)); then redirect=""; else redirect=":$https_port"; fi
mkdir -p "${runtime_conf%/*}"

# The site file, from the image set mounted at $images (the one the app reads too). The ports are
# the ones this image listens on inside (nginx/Dockerfile's HTTP_PORT and HTTPS_PORT).
read -r listen_http listen_https </usr/local/lib/fox-avatar/ports
if ! err=$(python3 "$render" --images "$images" -o "$site_conf" \
      avatar_nginx_build="$(nginx -V 2>&1)" \
      avatar_server_name=localhost 'avatar_listen_addresses=["*"]' \
      avatar_http_port="$listen_http" avatar_https_port="$listen_https" \
      avatar_tls_certificate="$cert" avatar_tls_certificate_key="$key" \
      avatar_images_root="$images" avatar_access_log_mode="$AVATAR_ACCESS_LOG" \
      avatar_access_log=/dev/stdout avatar_error_log=/dev/stderr avatar_fallback_log=/dev/stderr \
      avatar_runtime_include="$runtime_conf" \
      avatar_status_listen="[\"$status_listen\"]" avatar_fallback_syslog="$fallback_syslog" 2>&1); then
  die "AVATAR_IMAGES_DIR=${AVATAR_IMAGES_DIR:-./images}: not a complete image set (make one with \`make images SRC=DIR OUT=DIR\`): $(tail -n1 <<<"$err")"
fi
cat >"$runtime_conf" <<EOF
# GENERATED at container start by nginx-entrypoint (nginx/compose/entrypoint.sh); do not edit.
# Included by /etc/nginx/conf.d/fox-avatar.conf (http context), rendered by this script at start.

# AVATAR_HTTPS_PORT=$https_port: the port the HTTP -> HTTPS redirect names ("" for 443).
map "" \$avatar_https_port { default "$redirect"; }

# AVATAR_IMAGES_MAX_AGE=$max_age: Cache-Control max-age of the images, seconds.
map "" \$avatar_images_max_age { default $max_age; }

# AVATAR_APP_PORT=$app_port: the sidecar(s); Nginx resolves "app" to every replica when it (re)loads.
upstream avatar_app {
    server app:$app_port;
    include fox-avatar/upstream-keepalive.conf;
}
EOF

exec "$@"
