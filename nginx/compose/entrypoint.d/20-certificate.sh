#!/bin/bash
# The certificate Nginx serves, in NGINX_TLS_DIR (10-settings.envsh chose it):
#   /run/secrets (fullchain.pem + privkey.pem)   Swarm secrets holding a certificate
#                                                (docker-stack.yml): used as they are, nothing
#                                                generated; checked here that the key is the
#                                                certificate's
#   /etc/nginx/tls (the tls volume, or AVATAR_TLS_DIR):
#     fullchain.pem + privkey.pem                used as they are when both exist (your own
#                                                certificate; the key must be readable by uid 33)
#     neither exists                             a self-signed certificate for AVATAR_TLS_NAMES is
#                                                generated (ECDSA P-256, SELFSIGNED_DAYS) and kept
#                                                there
#     a generated one whose names changed or     is generated again
#     that expires within SELFSIGNED_RENEW_DAYS
# With AVATAR_TLS=off (a proxy in front terminates TLS) Nginx reads no certificate: nothing is checked
# or generated, and a certificate already in /etc/nginx/tls stays as it is for when TLS is on again.
# (The one self-signed policy of every deployment: nginx/README.md, "The self-signed certificate";
# its days are nginx/selfsigned.env's, which the TLS role reads too.)
set -euo pipefail
[[ $AVATAR_TLS == on ]] || exit 0   # checked by 10-settings.envsh
# shellcheck source=nginx/selfsigned.env
. /usr/local/lib/fox-avatar/nginx/selfsigned.env

tls=$NGINX_TLS_DIR
cert=$tls/fullchain.pem
key=$tls/privkey.pem
marker=$tls/self-signed.names     # present only next to a certificate this script generated
die() { echo "nginx-entrypoint: $*" >&2; exit 2; }
read -r -a names <<<"$AVATAR_TLS_NAMES"   # checked by 10-settings.envsh (and NGINX_TLS_SAN made)

self_signed() {
  echo "nginx-entrypoint: generating a self-signed certificate for: ${names[*]}" >&2
  (
    umask 077
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days "$SELFSIGNED_DAYS" \
      -subj "/CN=${names[0]}" -addext "subjectAltName=$NGINX_TLS_SAN" \
      -addext "basicConstraints=critical,CA:FALSE" -addext "keyUsage=critical,digitalSignature" \
      -addext "extendedKeyUsage=serverAuth" \
      -keyout "$key.new" -out "$cert.new" 2>/dev/null
  ) || die "cannot write a certificate to $tls (read-only or not writable by uid $(id -u)?)"
  chmod 0644 "$cert.new"
  mv -f "$key.new" "$key" && mv -f "$cert.new" "$cert"
  printf '%s\n' "${names[*]}" >"$marker"
}

if [[ $tls == /run/secrets ]]; then
  # the key must be the certificate's: else Nginx would stop with a less helpful message
  [[ $(openssl x509 -in "$cert" -noout -pubkey 2>/dev/null) \
     == "$(openssl pkey -in "$key" -pubout 2>/dev/null)" ]] \
    || die "$tls: privkey.pem is not the key of fullchain.pem's certificate (AVATAR_TLS_KEY_FILE, AVATAR_TLS_CERT_FILE)"
  exit 0
fi

if [[ -e $cert && -e $key ]]; then
  if [[ -e $marker ]] && { [[ $(<"$marker") != "${names[*]}" ]] \
       || ! openssl x509 -in "$cert" -noout -checkend $((SELFSIGNED_RENEW_DAYS * 86400)) >/dev/null; }; then
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
