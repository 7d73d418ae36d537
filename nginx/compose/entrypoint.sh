#!/bin/bash
# fox-avatar Nginx container start (docker compose): make sure there is a certificate, write the
# site file with its one run-time value, then become nginx (PID 1, foreground).
#
#   /etc/nginx/tls/fullchain.pem + privkey.pem   used as they are when both exist (your own
#                                                certificate; the key must be readable by uid 33)
#   neither exists                               a self-signed certificate for AVATAR_TLS_NAMES is
#                                                generated (ECDSA P-256, 1 year) and kept there
#   a generated one whose names changed or that  is generated again
#   expires within 30 days
#
# Environment: AVATAR_HTTPS_PORT (the published HTTPS port, named by the HTTP -> HTTPS redirect),
# AVATAR_TLS_NAMES (space-separated DNS names and IP addresses; the first is the subject CN).
set -euo pipefail

tls=/etc/nginx/tls
cert=$tls/fullchain.pem
key=$tls/privkey.pem
marker=$tls/self-signed.names     # present only next to a certificate this script generated
port=${AVATAR_HTTPS_PORT:-8443}
names=${AVATAR_TLS_NAMES:-localhost 127.0.0.1 ::1}

die() { echo "nginx-entrypoint: $*" >&2; exit 2; }

[[ $port =~ ^[0-9]{1,5}$ ]] && ((port >= 1 && port <= 65535)) \
  || die "AVATAR_HTTPS_PORT: not a TCP port: '$port'"
read -r -a name_list <<<"$names"
((${#name_list[@]} > 0)) || die "AVATAR_TLS_NAMES: empty"

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

# The site file, with the one value only known at run time: the HTTP -> HTTPS redirect names the
# published HTTPS port ("" for the default 443). /etc/nginx/conf.d/fox-avatar.conf points here.
if ((port == 443)); then v=""; else v=":$port"; fi
mkdir -p /run/nginx
src=/etc/nginx/fox-avatar.compose.conf
n=$(grep -c '^ *set \$avatar_https_port ' "$src") || true
[[ $n == 1 ]] || die "$src: expected one 'set \$avatar_https_port' line, found ${n:-0}"
sed "s|^\( *set \$avatar_https_port \).*|\1\"$v\";|" "$src" >/run/nginx/fox-avatar.conf

exec "$@"
