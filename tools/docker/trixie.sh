# shellcheck shell=bash
# tools/docker/trixie.sh - the Debian 13 client, Nginx and JDK images.
# Sourced by tools/docker.sh (its header: what every function promises; its helpers _dk_*); not on its own.
#
#   trixie_client_ready                  image local/fox-trixie-client:TRIXIE_CLIENT_TAG: debian:trixie-slim
#       (base_image_ready) + curl (HTTP/3: --http3-only), openssl 3.5 (s_client -groups X25519MLKEM768),
#       h2load (nghttp2-client, --alpn-list=h3), ca-certificates. Debian 12's clients have no HTTP/3
#       and no ML-KEM; run these with `docker run --rm --network host|NET local/fox-trixie-client:TAG`.
#       Built once; the tag changes when the package list does. Prints the image name.
#   trixie_nginx_ready                   image local/fox-trixie-nginx:TRIXIE_NGINX_TAG: the client image above
#       + Debian 13's nginx (1.26, --with-http_v3_module, OpenSSL 3.5), not started: the bench's Debian 13
#       full stack runs it with --network host. Built once; prints the image name.

# _dk_apt_image_ready IMAGE FROM PACKAGE...: image IMAGE = FROM + those Debian packages, built once
# (under a lock); prints IMAGE.
_dk_apt_image_ready() {
  local image=$1
  if ! docker image inspect "$image" >/dev/null 2>&1; then
    _dk_locked "image-${image//[^A-Za-z0-9]/_}" _dk_apt_image_build "$@" || return 1
  fi
  echo "$image"
}
_dk_apt_image_build() {
  local image=$1 from=$2; shift 2
  docker image inspect "$image" >/dev/null 2>&1 && return 0
  _dk_log "building $image ($from + $*)"
  printf '%s\n' "FROM $from" \
    "RUN mkdir -p /usr/share/man/man1 && apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $* && rm -rf /var/lib/apt/lists/*" \
    | nice docker build -q -t "$image" - >/dev/null \
    || _dk_die "cannot build $image (apt in a $from container)"
}
_dk_trixie_ready() { docker_engine_ready && base_image_ready debian:trixie-slim trixie; }

TRIXIE_CLIENT_PACKAGES="curl openssl nghttp2-client ca-certificates"
trixie_client_ready() {
  _dk_trixie_ready && _dk_apt_image_ready "local/fox-trixie-client:$TRIXIE_CLIENT_TAG" debian:trixie-slim \
    $TRIXIE_CLIENT_PACKAGES
}
trixie_nginx_ready() {
  local client
  client=$(trixie_client_ready) && _dk_apt_image_ready "local/fox-trixie-nginx:$TRIXIE_NGINX_TAG" "$client" nginx
}
