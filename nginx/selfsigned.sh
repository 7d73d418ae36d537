#!/bin/bash
# selfsigned.sh DIR NAME...: make or keep a self-signed certificate, DIR/fullchain.pem + DIR/privkey.pem.
#
# Kept: a pair this script did not make (no DIR/self-signed.names beside it: your own certificate),
# and one it made for the same names with more than SELFSIGNED_RENEW_DAYS (30) days left. Otherwise
# a new ECDSA P-256 pair, valid SELFSIGNED_DAYS (365), for the NAMEs (CN: the first; subjectAltName:
# IP: for an address, DNS: for a name), key 0600, certificate 0644, each moved into place whole.
# Prints one line on stdout when it made a pair, nothing when it kept one; an error is one line on
# stderr and a non-zero exit. Used by compose's Nginx start and by the Ansible role fox_avatar
# (at each run and by its daily renewal timer): one policy for every deployment.
set -euo pipefail

die() { echo "selfsigned: $*" >&2; exit 1; }
[[ $# -ge 2 ]] || { echo "usage: selfsigned.sh DIR NAME..." >&2; exit 2; }
dir=$1
shift
days=${SELFSIGNED_DAYS:-365}
renew_days=${SELFSIGNED_RENEW_DAYS:-30}
[[ $days =~ ^[1-9][0-9]{0,4}$ ]] || die "SELFSIGNED_DAYS: not a number of days: '$days'"
[[ $renew_days =~ ^[0-9]{1,5}$ ]] || die "SELFSIGNED_RENEW_DAYS: not a number of days: '$renew_days'"

sans=()
for name in "$@"; do
  if [[ $name =~ ^[0-9.]+$ || $name == *:* ]]; then
    sans+=("IP:$name")
  elif [[ $name =~ ^(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$ ]]; then
    sans+=("DNS:$name")
  else
    die "not a host name or an IP address: '$name'"
  fi
done
names="$*"
cert=$dir/fullchain.pem key=$dir/privkey.pem marker=$dir/self-signed.names

if [[ -e $cert || -e $key ]] && [[ ! -e $marker ]]; then
  [[ -e $cert && -e $key ]] || die "$dir holds only one of fullchain.pem and privkey.pem: give both, or neither"
  exit 0
fi
if [[ -e $cert && -e $key && $(<"$marker") == "$names" ]] \
   && openssl x509 -in "$cert" -noout -checkend $((renew_days * 86400)) >/dev/null 2>&1; then
  exit 0
fi

if ! mkdir -p "$dir" 2>/dev/null || [[ ! -w $dir ]]; then
  die "$dir: not a writable directory (uid $(id -u))"
fi
tmp=$(mktemp -d "$dir/.selfsigned.XXXXXX") || die "$dir: cannot write there (uid $(id -u))"
trap 'rm -rf "$tmp"' EXIT
san=$(IFS=,; echo "${sans[*]}")
# -config /dev/null: none of the host's openssl.cnf defaults (a CA's basicConstraints) applies.
openssl req -x509 -config /dev/null -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -days "$days" -subj "/CN=$1" -addext "subjectAltName=$san" \
  -addext "basicConstraints=critical,CA:FALSE" -addext "keyUsage=critical,digitalSignature" \
  -addext "extendedKeyUsage=serverAuth" -keyout "$tmp/privkey.pem" -out "$tmp/fullchain.pem" \
  2>"$tmp/err" || die "openssl: $(tail -n1 "$tmp/err")"
chmod 0600 "$tmp/privkey.pem"
chmod 0644 "$tmp/fullchain.pem"
printf '%s\n' "$names" >"$tmp/self-signed.names"
mv -f "$tmp/privkey.pem" "$key"
mv -f "$tmp/fullchain.pem" "$cert"
mv -f "$tmp/self-signed.names" "$marker"
echo "selfsigned: made $cert for $names, valid until $(openssl x509 -in "$cert" -noout -enddate | cut -d= -f2)"
