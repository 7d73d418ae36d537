# shellcheck shell=bash
# tools/docker.sh - provisions the Docker machinery (engine, compose v2, base and systemd images, Pebble),
# sourced by the test layers and the bench.
#
#   . tools/docker.sh
#
# Every function is idempotent: it checks first and only builds/installs what is missing, so it
# works on a fresh Debian 12 machine (no Docker engine, no registry access) and leaves a machine
# that already has an engine / images / plugin alone. Functions print progress to stderr, return
# non-zero with a one-line "docker.sh: ..." error on failure, and take a machine-wide lock
# (flock in /run/lock) around anything they build, so several test layers may call them at once.
#
#   One file per concern, in tools/docker/ (each function's description there):
#     engine.sh     docker_engine_ready
#     compose.sh    compose_v2_ready
#     images.sh     base_image_ready, user_machine_image_ready
#     systemd.sh    systemd_image_ready
#     trixie.sh     trixie_client_ready, trixie_nginx_ready
#     pebble.sh     pebble_ready, pebble_challtestsrv_ready, pebble_certs_dir
#     arm64.sh      qemu_arm64_ready, arm64_base_image_ready
#
# Settings (environment, all optional): PEBBLE_VERSION, DOCKERD_TIMEOUT, PULL_TIMEOUT, TRIXIE_CLIENT_TAG, TRIXIE_NGINX_TAG, FOX_TOOLS (default
# /var/cache/fox-avatar), DEBIAN_MIRROR (default: the machine's apt mirror).

_DOCKER_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tools/apt.sh
. "$_DOCKER_LIB_DIR/apt.sh"

: "${PEBBLE_VERSION:=v2.10.1}"
: "${TRIXIE_CLIENT_TAG:=1}"
: "${TRIXIE_NGINX_TAG:=1}"
: "${DOCKERD_TIMEOUT:=60}"
: "${PULL_TIMEOUT:=20}"
: "${FOX_TOOLS:=/var/cache/fox-avatar}"
SYSTEMD_IMAGE_REPO=local/debian-systemd

_dk_log() { echo "docker.sh: $*" >&2; }
_dk_die() { echo "docker.sh: $*" >&2; return 1; }

# _dk_locked NAME CMD...: run CMD (a function) under a machine-wide lock, in a subshell.
_dk_locked() {
  local name=$1; shift
  (
    flock -w 1800 9 || { echo "docker.sh: timed out waiting for lock $name" >&2; exit 1; }
    "$@"
  ) 9>"/run/lock/fox-avatar-$name.lock"
}

# apt_need, retried: other layers/agents may hold the dpkg lock for a while.
_dk_apt_need() {
  local i
  for i in 1 2 3 4 5 6; do
    apt_need "$@" && return 0
    _dk_log "apt_need $* failed (dpkg lock busy?), retry $i in 10 s"
    unset _APT_UPDATED
    sleep 10
  done
  _dk_die "could not install $*"
}

# The machine's Debian mirror (deb822 or one-line sources), e.g. http://deb.debian.org/debian
_dk_mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then echo "$DEBIAN_MIRROR"; return; fi
  local m
  m=$(awk '/^URIs:/{u=$2} /^Suites:/{ for (i=2;i<=NF;i++) if ($i !~ /-(security|updates|backports)$/) s=1 }
           /^$/{ if (u && s) { print u; exit } u=""; s=0 } END{ if (u && s) print u }' \
        /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1)
  [ -z "$m" ] && m=$(awk '$1=="deb" && $2 ~ /debian/ && $3 !~ /-security/ {print $2; exit}' \
                       /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null)
  echo "${m:-http://deb.debian.org/debian}"
}

# Go, for what pebble.sh builds from its Go module.
# prints go's minor version (1.N -> N), or nothing
_dk_go_minor() { go env GOVERSION 2>/dev/null | sed -nE 's/^go1\.([0-9]+).*/\1/p'; }
_dk_go_ready() { # MIN_MINOR
  if ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then PATH="$PATH:/usr/local/go/bin"; fi
  command -v go >/dev/null || _dk_apt_need golang-go || return 1
  local minor; minor=$(_dk_go_minor)
  [ -n "$minor" ] && [ "$minor" -ge "$1" ] && return 0
  _dk_die "Go >= 1.$1 needed, found $(go env GOVERSION 2>/dev/null || echo none) (Debian 12's golang-go is 1.19; install Go from https://go.dev/dl or bookworm-backports golang-1.22)"
}

# The functions, one file per concern (above).
for _dk_part in engine compose images systemd trixie pebble arm64; do
  # shellcheck source=/dev/null
  . "$_DOCKER_LIB_DIR/docker/$_dk_part.sh"
done
unset _dk_part
