#!/bin/bash
# fox-avatar-nginx-check FILE AS [FILE AS]...
# nginx -t on a copy of /etc/nginx with each candidate FILE in place as AS (a path under /etc/nginx).
# Prints Nginx's own message and the setting to change when it fails; nothing live is touched.
set -euo pipefail
conf=/etc/nginx
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cp -a "$conf/." "$t/"
mkdir -p "$t/log/fox-avatar"
while [ $# -ge 2 ]; do
  rm -f "$t/$2"
  mkdir -p "$(dirname "$t/$2")"
  # paths under /etc/nginx into the copy, our logs into a scratch directory (nginx -t opens them)
  sed -e "s#$conf/#$t/#g" -e "s#/var/log/nginx/#$t/log/#g" "$1" >"$t/$2"
  # a certificate not made yet: a stand-in, so that nginx -t checks the rest
  for d in ssl_certificate:crt ssl_certificate_key:key; do
    ext=${d#*:} d=${d%:*}
    for f in $(sed -n "s/^[[:space:]]*$d[[:space:]]\+\([^;]*\);.*/\1/p" "$t/$2"); do
      [ -e "$f" ] && continue
      [ -e "$t/stand-in.key" ] || openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
        -subj /CN=fox-avatar-check -keyout "$t/stand-in.key" -out "$t/stand-in.crt" 2>/dev/null
      sed -i "s#^\([[:space:]]*$d[[:space:]]\+\)$f;#\1$t/stand-in.$ext;#" "$t/$2"
    done
  done
  shift 2
done
sed -i "s#$conf/#$t/#g" "$t/nginx.conf"
if nginx -t -q -c "$t/nginx.conf" 2>"$t/nginx.err"; then exit 0; fi
msg=$(sed "s#$t/log/#/var/log/nginx/#g; s#$t/#$conf/#g" "$t/nginx.err")
echo "$msg" >&2
case $msg in
  *"duplicate listen options"*) echo "fox_avatar_nginx_http3_reuseport: set it false (another site already says reuseport there)" >&2 ;;
  *"set_real_ip_from"*) echo "fox_avatar_nginx_real_ip_from: IP addresses or CIDRs only" >&2 ;;
  *"avatar"*) echo "another site of this server defines a name the avatar site uses (avatar_*): rename it" >&2 ;;
  *) echo "the fox-avatar configuration is refused; nothing live was changed" >&2 ;;
esac
exit 1
