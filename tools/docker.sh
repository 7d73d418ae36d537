# shellcheck shell=bash
# tools/docker.sh - provisions the Docker machinery (engine, compose v2, base and systemd images, Pebble),
# sourced by the test layers, the bench and the image drawing.
#
#   . tools/docker.sh
#
# Every function is idempotent: it checks first and only builds/installs what is missing, so it
# works on a fresh Debian 12 machine (no Docker engine, no registry access) and leaves a machine
# that already has an engine / images / plugin alone. Functions print progress to stderr, return
# non-zero with a one-line "docker.sh: ..." error on failure, and take a machine-wide lock
# (flock in /run/lock) around anything they build, so several test layers may call them at once.
#
#   docker_engine_ready
#       Returns if `docker info` answers. Else installs docker.io (apt), starts dockerd detached
#       (own session, inherited fds closed, log /var/log/dockerd.log) and waits up to
#       DOCKERD_TIMEOUT (60 s) for it.
#   compose_v2_ready
#       Returns if `docker compose version` is v2. Else installs Debian 13's docker-compose package's
#       binary (compose 2.26, taken from a debian:trixie-slim container) as
#       /usr/local/lib/docker/cli-plugins/docker-compose; if that cannot be fetched, or with
#       COMPOSE_FROM=go, builds compose COMPOSE_VERSION (v2.29.7) from its Go module instead.
#       Needs Go >= 1.21 for that (Debian 12's golang-go is 1.19: it says so and fails; Pebble needs 1.24).
#   base_image_ready NAME SUITE          e.g. base_image_ready debian:bookworm-slim bookworm
#       Returns if image NAME exists. Else tries `docker pull NAME` (PULL_TIMEOUT, 20 s), then falls
#       back to `debootstrap --variant=minbase SUITE` from the machine's Debian mirror + docker import.
#   systemd_image_ready SUITE            SUITE = bookworm | trixie
#       Image local/debian-systemd:SUITE: minbase + systemd, systemd-sysv, dbus, iproute2, python3,
#       python3-apt (ansible.builtin.apt), ca-certificates; apt sources = SUITE, SUITE-updates,
#       SUITE-security (like a real server). Built once by debootstrap + docker import.
#   systemd_host_run NAME SUITE [NETWORK] [docker run args...]
#       (Re)starts container NAME (hostname NAME) from local/debian-systemd:SUITE with the flags a
#       systemd PID 1 needs here, on NETWORK (created if missing; "" = default bridge), and waits up
#       to SYSTEMD_TIMEOUT (90 s) until `systemctl is-system-running` is running/degraded. Extra args
#       go to `docker run` (e.g. -p 8443:443). If APT_PROXY is set (see apt_cache_ready) the host's
#       apt uses it (file /etc/apt/apt.conf.d/00test-proxy inside the host only).
#   systemd_host_ip NAME [NETWORK]       prints the container's IP (on NETWORK if given)
#   systemd_host_rm NAME...              removes those containers (missing ones are fine)
#   apt_cache_ready                      opt-in apt download cache: apt-cacher-ng on the Docker host
#       (port 3142), started if not running; prints the proxy URL (http://<docker0 ip>:3142) and
#       exports APT_PROXY, which systemd_host_run then injects into test hosts (never the playbook).
#   trixie_client_ready                  image local/fox-trixie-client:TRIXIE_CLIENT_TAG: debian:trixie-slim
#       (base_image_ready) + curl (HTTP/3: --http3-only), openssl 3.5 (s_client -groups X25519MLKEM768),
#       h2load (nghttp2-client, --alpn-list=h3), ca-certificates. Debian 12's clients have no HTTP/3
#       and no ML-KEM; run these with `docker run --rm --network host|NET local/fox-trixie-client:TAG`.
#       Built once; the tag changes when the package list does. Prints the image name.
#   trixie_nginx_ready                   image local/fox-trixie-nginx:TRIXIE_NGINX_TAG: the client image above
#       + Debian 13's nginx (1.26, --with-http_v3_module, OpenSSL 3.5), not started: the bench's Debian 13
#       full stack runs it with --network host. Built once; prints the image name.
#   trixie_jdks_ready                    image local/fox-trixie-jdks:TRIXIE_JDKS_TAG: debian:trixie-slim
#       + openjdk-21-jdk-headless and openjdk-25-jdk-headless (Debian 13's JDKs, for the bench's JDK
#       comparison, bench/foxbench/jdks.py). Built once; prints the image name.
#   pebble_ready                         installs Pebble PEBBLE_VERSION (v2.10.1) from its Go module
#       into $FOX_TOOLS/pebble-VERSION/, prints the binary path and exports PEBBLE_BIN.
#   pebble_certs_dir                     prints Pebble's test/certs dir in the Go module cache:
#       pebble.minica.pem (root that signed localhost/), localhost/cert.pem, localhost/key.pem
#       (SANs localhost, pebble, 127.0.0.1; valid to 2027-10). Its sample config is ../config/
#       pebble-config.json. Read-only files (Go module cache): copy them before changing modes.
#
# Measured here (2 shared cores): installing default-jre-headless+nginx in a host takes ~45 s, of
# which the download is ~6 s; the rest is dpkg (CPU), so apt_cache_ready saves little on this network.
# Self-test: bash tools/docker_selftest.sh
#
# Settings (environment, all optional): COMPOSE_FROM, COMPOSE_VERSION, PEBBLE_VERSION, DOCKERD_TIMEOUT,
# PULL_TIMEOUT, SYSTEMD_TIMEOUT, FOX_TOOLS (default /var/cache/fox-avatar), DEBIAN_MIRROR (default:
# the machine's apt mirror), APT_PROXY.

_DOCKER_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tools/apt.sh
. "$_DOCKER_LIB_DIR/apt.sh"

: "${COMPOSE_VERSION:=v2.29.7}"
: "${PEBBLE_VERSION:=v2.10.1}"
: "${TRIXIE_CLIENT_TAG:=1}"
: "${TRIXIE_NGINX_TAG:=1}"
: "${TRIXIE_JDKS_TAG:=1}"
: "${DOCKERD_TIMEOUT:=60}"
: "${PULL_TIMEOUT:=20}"
: "${SYSTEMD_TIMEOUT:=90}"
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

# _dk_daemon LOG CMD...: start CMD detached (own session, survives the caller) with stdin from
# /dev/null, output to LOG and every other inherited descriptor closed (locks, callers' pipes).
_dk_daemon() {
  local log=$1; shift
  (
    local f
    for f in /proc/$BASHPID/fd/*; do
      f=${f##*/}; [ "$f" -gt 2 ] 2>/dev/null && eval "exec $f>&-"
    done 2>/dev/null
    exec setsid "$@" >>"$log" 2>&1 </dev/null
  ) &
}

# ---------------------------------------------------------------- engine
docker_engine_ready() {
  docker info >/dev/null 2>&1 && return 0
  _dk_locked engine _dk_engine_start
}
_dk_engine_start() {
  docker info >/dev/null 2>&1 && return 0
  if ! command -v dockerd >/dev/null || ! command -v docker >/dev/null; then
    _dk_apt_need docker.io || return 1
  fi
  # the package may have started it through its init script
  if ! docker info >/dev/null 2>&1 && ! pgrep -x dockerd >/dev/null; then
    _dk_log "starting dockerd (log /var/log/dockerd.log)"
    setsid nohup dockerd >>/var/log/dockerd.log 2>&1 </dev/null 9>&- &
  fi
  local i
  for ((i = 0; i < DOCKERD_TIMEOUT; i++)); do
    docker info >/dev/null 2>&1 && return 0
    sleep 1
  done
  _dk_die "dockerd did not answer within ${DOCKERD_TIMEOUT}s (DOCKERD_TIMEOUT); see /var/log/dockerd.log"
}

# ---------------------------------------------------------------- compose v2
compose_v2_ready() {
  _dk_compose_ok && return 0
  _dk_locked compose _dk_compose_build
}
# v2.x; "dev" = a v2 built from source without version stamp (compose v1 is no CLI plugin)
_dk_compose_ok() { docker compose version --short 2>/dev/null | grep -Eq '^(v?2\.|dev$)'; }
# prints go's minor version (1.N -> N), or nothing
_dk_go_minor() { go env GOVERSION 2>/dev/null | sed -nE 's/^go1\.([0-9]+).*/\1/p'; }
_dk_go_ready() { # MIN_MINOR
  if ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then PATH="$PATH:/usr/local/go/bin"; fi
  command -v go >/dev/null || _dk_apt_need golang-go || return 1
  local minor; minor=$(_dk_go_minor)
  [ -n "$minor" ] && [ "$minor" -ge "$1" ] && return 0
  _dk_die "Go >= 1.$1 needed, found $(go env GOVERSION 2>/dev/null || echo none) (Debian 12's golang-go is 1.19; install Go from https://go.dev/dl or bookworm-backports golang-1.22)"
}
_dk_compose_build() {
  _dk_compose_ok && return 0
  if [ "${COMPOSE_FROM:-debian}" != go ] && _dk_compose_from_debian; then return 0; fi
  _dk_go_ready 21 || return 1
  local tmp; tmp=$(mktemp -d)
  _dk_log "building docker compose $COMPOSE_VERSION from its Go module (once per machine, ~2-4 min)"
  if ! GOFLAGS=-mod=mod GOBIN="$tmp" nice go install \
       -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" \
       "github.com/docker/compose/v2/cmd@$COMPOSE_VERSION"; then
    rm -rf "$tmp"; _dk_die "go install github.com/docker/compose/v2/cmd@$COMPOSE_VERSION failed"; return 1
  fi
  install -D -m 0755 "$tmp/cmd" /usr/local/lib/docker/cli-plugins/docker-compose
  rm -rf "$tmp"
  _dk_compose_ok || _dk_die "docker compose still not usable after installing /usr/local/lib/docker/cli-plugins/docker-compose"
}

# Debian 13's docker-compose package (compose v2, one static Go binary needing only libc6), taken
# from a debian:trixie-slim container: seconds, where building it from Go takes a fresh 2-core
# machine 3-10 minutes of CPU.
_dk_compose_from_debian() {
  base_image_ready debian:trixie-slim trixie || return 1
  local tmp; tmp=$(mktemp -d)
  _dk_log "installing Debian 13's docker-compose package (compose v2) from debian:trixie-slim"
  if docker run --rm -v "$tmp:/out" debian:trixie-slim sh -c \
       'apt-get update -qq && apt-get install -y -qq --no-install-recommends docker-compose >/dev/null &&
        cp "$(dpkg -L docker-compose | grep "/cli-plugins/docker-compose$")" /out/docker-compose' >"$tmp.log" 2>&1 \
     && [ -x "$tmp/docker-compose" ]; then
    install -D -m 0755 "$tmp/docker-compose" /usr/local/lib/docker/cli-plugins/docker-compose
  else
    _dk_log "Debian 13's docker-compose package could not be fetched ($(tail -n 1 "$tmp.log")); building from Go"
  fi
  rm -rf "$tmp" "$tmp.log"
  _dk_compose_ok
}

# ---------------------------------------------------------------- images
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

# ---------------------------------------------------------------- Debian 13 clients, Nginx and JDKs
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
TRIXIE_JDKS_PACKAGES="openjdk-21-jdk-headless openjdk-25-jdk-headless"
trixie_jdks_ready() {
  _dk_trixie_ready && _dk_apt_image_ready "local/fox-trixie-jdks:$TRIXIE_JDKS_TAG" debian:trixie-slim \
    $TRIXIE_JDKS_PACKAGES
}

# Debian mirror layout for SUITE's security archive, next to the main mirror.
_dk_systemd_rootfs_hook() { # ROOTFS SUITE MIRROR
  local root=$1 suite=$2 mirror=$3 sec
  sec=${mirror%/debian}/debian-security
  [ "$sec" = "$mirror/debian-security" ] && sec=http://deb.debian.org/debian-security
  rm -f "$root/etc/apt/sources.list"
  cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $sec
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  # a container has no consoles, udev or kernel modules: skip the units that would only fail
  local u
  for u in getty@tty1.service console-getty.service systemd-udevd.service systemd-modules-load.service \
           sys-kernel-config.mount sys-kernel-debug.mount sys-kernel-tracing.mount; do
    ln -sf /dev/null "$root/etc/systemd/system/$u"
  done
  : >"$root/etc/machine-id"   # fresh id per container
  rm -rf "$root/var/lib/apt/lists/"* "$root/var/cache/apt/"*.bin
}

systemd_image_ready() { # SUITE
  local suite=${1:?systemd_image_ready SUITE}
  docker image inspect "$SYSTEMD_IMAGE_REPO:$suite" >/dev/null 2>&1 && return 0
  _dk_locked "image-systemd-$suite" _dk_systemd_build "$suite"
}
_dk_systemd_build() {
  local suite=$1
  docker image inspect "$SYSTEMD_IMAGE_REPO:$suite" >/dev/null 2>&1 && return 0
  _DK_ROOTFS_HOOK=_dk_systemd_rootfs_hook _dk_debootstrap_import "$suite" "$SYSTEMD_IMAGE_REPO:$suite" \
    --include=systemd,systemd-sysv,dbus,iproute2,python3,python3-apt,ca-certificates -- \
    -c 'ENV container=docker' -c 'CMD ["/lib/systemd/systemd"]'
}

# ---------------------------------------------------------------- systemd hosts
systemd_host_rm() { # NAME...
  [ $# -eq 0 ] && return 0
  docker rm -f "$@" >/dev/null 2>&1 || true
}

systemd_host_run() { # NAME SUITE [NETWORK] [docker run args...]
  local name=${1:?systemd_host_run NAME SUITE [NETWORK] [args...]} suite=${2:?systemd_host_run NAME SUITE [NETWORK] [args...]}
  shift 2
  local net=${1:-}; [ $# -gt 0 ] && shift
  docker_engine_ready && systemd_image_ready "$suite" || return 1
  local netargs=()
  if [ -n "$net" ]; then
    docker network inspect "$net" >/dev/null 2>&1 || docker network create "$net" >/dev/null 2>&1 \
      || docker network inspect "$net" >/dev/null 2>&1 || _dk_die "cannot create network $net" || return 1
    netargs=(--network "$net")
  fi
  systemd_host_rm "$name"
  docker run -d --name "$name" --hostname "$name" "${netargs[@]}" \
    --cap-add SYS_ADMIN --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
    --cgroupns=host -v /sys/fs/cgroup:/sys/fs/cgroup:rw \
    --tmpfs /run --tmpfs /run/lock --tmpfs /tmp --stop-signal SIGRTMIN+3 \
    "$@" "$SYSTEMD_IMAGE_REPO:$suite" >/dev/null || _dk_die "docker run $name failed" || return 1
  local i state=
  for ((i = 0; i < SYSTEMD_TIMEOUT; i++)); do
    state=$(docker exec "$name" systemctl is-system-running 2>/dev/null)
    case $state in
      running|degraded) break ;;
    esac
    if [ "$(docker inspect -f '{{.State.Running}}' "$name" 2>/dev/null)" != true ]; then
      docker logs --tail 20 "$name" >&2
      _dk_die "systemd host $name exited during boot (logs above)"; return 1
    fi
    sleep 1
  done
  case $state in
    running|degraded) ;;
    *) docker exec "$name" systemctl --failed --no-pager >&2 2>/dev/null
       _dk_die "systemd host $name not running after ${SYSTEMD_TIMEOUT}s (state '${state:-none}', SYSTEMD_TIMEOUT)"; return 1 ;;
  esac
  if [ -n "${APT_PROXY:-}" ]; then
    printf 'Acquire::http::Proxy "%s";\n' "$APT_PROXY" \
      | docker exec -i "$name" sh -c 'cat >/etc/apt/apt.conf.d/00test-proxy'
  fi
}

systemd_host_ip() { # NAME [NETWORK]
  local name=${1:?systemd_host_ip NAME [NETWORK]}
  if [ -n "${2:-}" ]; then
    docker inspect -f "{{(index .NetworkSettings.Networks \"$2\").IPAddress}}" "$name"
  else
    docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}' "$name" | awk '{print $1}'
  fi
}

# ---------------------------------------------------------------- apt cache (opt-in)
apt_cache_ready() {
  docker_engine_ready || return 1
  local gw
  gw=$(docker network inspect bridge -f '{{(index .IPAM.Config 0).Gateway}}' 2>/dev/null)
  [ -n "$gw" ] || gw=$(ip -4 -o addr show docker0 2>/dev/null | awk '{sub(/\/.*/,"",$4); print $4; exit}')
  [ -n "$gw" ] || _dk_die "apt_cache_ready: cannot find the docker0 bridge address" || return 1
  _dk_acng_up || _dk_locked apt-cache _dk_acng_start || return 1   # the daemon may hold the lock fd (started before 9>&- below)
  APT_PROXY="http://$gw:3142"
  export APT_PROXY
  echo "$APT_PROXY"
}
_dk_acng_up() { (exec 3<>/dev/tcp/127.0.0.1/3142) 2>/dev/null; }
_dk_acng_start() {
  _dk_acng_up && return 0
  _dk_apt_need apt-cacher-ng || return 1
  _dk_log "starting apt-cacher-ng on :3142 (cache /var/cache/apt-cacher-ng, logs /var/log/apt-cacher-ng/)"
  # Its Debian backend defaults to ftp.debian.org; use this machine's mirror unless an admin chose one.
  if ! grep -qsv '^[[:space:]]*\(#\|$\)' /etc/apt-cacher-ng/backends_debian; then
    echo "$(_dk_mirror)/" >/etc/apt-cacher-ng/backends_debian
  fi
  # Debian's init script: runs it as user apt-cacher-ng with a pid file (no systemd needed)
  _dk_daemon /var/log/apt-cacher-ng/start.log /etc/init.d/apt-cacher-ng start
  local i
  for ((i = 0; i < 20; i++)); do _dk_acng_up && return 0; sleep 0.5; done
  _dk_die "apt-cacher-ng did not listen on :3142; see /var/log/apt-cacher-ng/"
}

# ---------------------------------------------------------------- Pebble (ACME test server)
pebble_ready() {
  local bin="$FOX_TOOLS/pebble-$PEBBLE_VERSION/pebble"
  if [ ! -x "$bin" ]; then
    _dk_locked pebble _dk_pebble_build "$bin" || return 1
  fi
  PEBBLE_BIN=$bin
  export PEBBLE_BIN
  echo "$bin"
}
_dk_pebble_build() {
  local bin=$1
  [ -x "$bin" ] && return 0
  _dk_go_ready 24 || return 1   # pebble v2.10's go.mod: go 1.24
  _dk_log "installing Pebble $PEBBLE_VERSION from its Go module"
  mkdir -p "$(dirname "$bin")"
  GOBIN=$(dirname "$bin") nice go install -ldflags "-X main.version=$PEBBLE_VERSION" \
      "github.com/letsencrypt/pebble/v2/cmd/pebble@$PEBBLE_VERSION" \
    || _dk_die "go install github.com/letsencrypt/pebble/v2/cmd/pebble@$PEBBLE_VERSION failed"
}

pebble_certs_dir() {
  _dk_go_ready 24 || return 1
  local dir
  dir=$(go mod download -json "github.com/letsencrypt/pebble/v2@$PEBBLE_VERSION" 2>/dev/null \
        | sed -nE 's/^[[:space:]]*"Dir": "(.*)",?$/\1/p')
  [ -n "$dir" ] && [ -f "$dir/test/certs/pebble.minica.pem" ] \
    || _dk_die "Pebble $PEBBLE_VERSION module has no test/certs (looked in '${dir:-?}')" || return 1
  echo "$dir/test/certs"
}
