# shellcheck shell=bash
# tools/docker/images.sh - base images without a registry (docker pull, else debootstrap + docker import).
# Sourced by tools/docker.sh (its header: what every function promises; its helpers _dk_*); not on its own.
#
#   base_image_ready NAME SUITE          e.g. base_image_ready debian:bookworm-slim bookworm
#       Returns if image NAME exists. Else tries `docker pull NAME` (PULL_TIMEOUT, 20 s), then falls
#       back to `debootstrap --variant=minbase SUITE` from the machine's Debian mirror + docker import.
#   user_machine_image_ready             image local/fox-user-machine:1: debian:bookworm-slim + make and
#       python3, without python3-venv: a Debian 12 machine where someone who is not root first runs
#       `make images` (tests/images). Built once; prints the image name.

# _dk_debootstrap_import SUITE IMAGE [debootstrap args...] -- [docker import -c args...]
_dk_debootstrap_import() {
  local suite=$1 image=$2; shift 2
  local bs_args=() imp_args=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do bs_args+=("$1"); shift; done
  [ "${1:-}" = -- ] && shift
  imp_args=("$@")
  _dk_apt_need debootstrap || return 1
  [ -e "/usr/share/debootstrap/scripts/$suite" ] || _dk_die "debootstrap has no script for '$suite'" || return 1
  local mirror tmp rc=0; mirror=$(_dk_mirror); tmp=$(mktemp -d /tmp/fox-rootfs.XXXXXX)
  _dk_log "debootstrap $suite ${bs_args[*]} from $mirror -> $image"
  if nice debootstrap --variant=minbase "${bs_args[@]}" "$suite" "$tmp/rootfs" "$mirror" >"$tmp.log" 2>&1; then
    if [ -n "${_DK_ROOTFS_HOOK:-}" ]; then "$_DK_ROOTFS_HOOK" "$tmp/rootfs" "$suite" "$mirror" || rc=$?; fi
    if [ $rc -eq 0 ]; then
      tar --numeric-owner -C "$tmp/rootfs" -c . | docker import "${imp_args[@]}" - "$image" >/dev/null || rc=$?
    fi
  else
    rc=$?; tail -n 20 "$tmp.log" >&2; _dk_log "debootstrap $suite failed (log above)"
  fi
  rm -rf "$tmp" "$tmp.log"
  return $rc
}

base_image_ready() { # NAME SUITE
  local name=${1:?base_image_ready NAME SUITE} suite=${2:?base_image_ready NAME SUITE}
  docker image inspect "$name" >/dev/null 2>&1 && return 0
  _dk_locked "image-${name//[^A-Za-z0-9]/_}" _dk_base_build "$name" "$suite"
}
_dk_base_build() {
  local name=$1 suite=$2
  docker image inspect "$name" >/dev/null 2>&1 && return 0
  if timeout "$PULL_TIMEOUT" docker pull -q "$name" >/dev/null 2>&1; then return 0; fi
  _dk_log "cannot pull $name; building it with debootstrap"
  _dk_debootstrap_import "$suite" "$name" -- -c 'CMD ["bash"]'
}

user_machine_image_ready() {
  docker_engine_ready && base_image_ready debian:bookworm-slim bookworm \
    && _dk_apt_image_ready local/fox-user-machine:1 debian:bookworm-slim make python3
}
