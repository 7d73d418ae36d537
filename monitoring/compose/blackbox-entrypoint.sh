#!/bin/bash
# The monitoring profile's blackbox_exporter start: what its probe trusts, then the exporter.
# With ACME (AVATAR_ACME_EMAIL set), what a browser trusts (Debian's CAs) and the CAs of
# AVATAR_ACME_CA_FILE (mounted in /etc/fox-avatar/acme-ca/; empty without one); else only the
# certificate Nginx serves (the self-signed one, or yours), read from Nginx's volume.
set -euo pipefail
export SSL_CERT_DIR=/etc/fox-avatar/acme-ca
if [[ -n ${AVATAR_ACME_EMAIL:-} ]]; then
  export SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
else
  export SSL_CERT_FILE=/etc/nginx/tls/fullchain.pem
fi
exec /usr/bin/prometheus-blackbox-exporter "$@"
