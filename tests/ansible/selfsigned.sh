# Sourced by tests/ansible/run.sh: the self-signed certificate policy (nginx/README.md, "The
# self-signed certificate"; the same as compose's, tests/compose/test_compose.py) on a converged
# self-signed host.
#   cert_days PEM            the certificate's lifetime in whole days
#   selfsigned_checks HOST INVENTORY NAME
#       the certificate in place is ECDSA P-256, valid 365 days, for NAME; then one valid for only
#       20 more days (the same key and names) is put in its place: the next converge makes a new
#       one, valid 365 days, and Nginx is reloaded and serves it.
cert_days() {
  local start end
  start=$(date -d "$(openssl x509 -in "$1" -noout -startdate | cut -d= -f2)" +%s)
  end=$(date -d "$(openssl x509 -in "$1" -noout -enddate | cut -d= -f2)" +%s)
  echo $(((end - start) / 86400))
}

selfsigned_checks() { # HOST INVENTORY NAME
  local h=$1 inv=$2 name=$3 dir=$WORK/selfsigned days served
  local cert=/etc/ssl/fox-avatar/fullchain.pem key=/etc/ssl/fox-avatar/privkey.pem
  mkdir -p "$dir"
  docker exec "$h" cat "$cert" >"$dir/generated.pem"
  openssl x509 -in "$dir/generated.pem" -noout -text >"$dir/generated.txt"
  check "self-signed policy, $h: the key is ECDSA P-256" \
    eval "grep -q 'Public Key Algorithm: id-ecPublicKey' '$dir/generated.txt' && grep -q 'ASN1 OID: prime256v1' '$dir/generated.txt'"
  days=$(cert_days "$dir/generated.pem")
  check "self-signed policy, $h: valid 365 days (got $days)" test "$days" = 365
  check "self-signed policy, $h: for $name" grep -q "DNS:$name" "$dir/generated.txt"

  # Fewer than 30 days left: made again at the next run.
  docker exec "$h" cat "$key" >"$dir/key.pem"
  openssl req -x509 -key "$dir/key.pem" -days 20 -subj "/CN=$name" -addext "subjectAltName=DNS:$name" \
    -addext keyUsage=digitalSignature -addext extendedKeyUsage=serverAuth -out "$dir/short.pem" 2>/dev/null
  docker exec -i "$h" sh -c "cat >$cert" <"$dir/short.pem"
  docker exec "$h" systemctl reload nginx
  playbook "$inv" "$WORK/selfsigned.log"
  show_log "self-signed renewal converge" "$WORK/selfsigned.log"
  check "self-signed policy, $h: the converge after the 20-day certificate succeeds" ran_clean "$WORK/selfsigned.log"
  docker exec "$h" cat "$cert" >"$dir/renewed.pem"
  days=$(cert_days "$dir/renewed.pem")
  check "self-signed policy, $h: a certificate with 20 days left is made again, valid 365 days (got $days)" \
    eval "! cmp -s '$dir/short.pem' '$dir/renewed.pem' && [ '$days' = 365 ]"
  check "self-signed policy, $h: Nginx was reloaded (the handler ran)" \
    eval "grep -A1 'RUNNING HANDLER \[fox_avatar_nginx : Reload Nginx\]' '$WORK/selfsigned.log' | grep -q '^changed'"
  served=$(openssl s_client -connect "${IP[$h]}:443" -servername "$name" </dev/null 2>/dev/null \
           | openssl x509 -noout -fingerprint -sha256)
  check "self-signed policy, $h: Nginx serves the new certificate" \
    test -n "$served" -a "$served" = "$(openssl x509 -in "$dir/renewed.pem" -noout -fingerprint -sha256)"
}
