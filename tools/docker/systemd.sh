# shellcheck shell=bash
# tools/docker/systemd.sh - the systemd "server" image and hosts (the Ansible layer's).
# Sourced by tools/docker.sh (its header: what every function promises; its helpers _dk_*); not on its own.
#
#   systemd_image_ready SUITE            SUITE = bookworm | trixie
#       Image local/debian-systemd:SUITE: minbase + systemd, systemd-sysv, dbus, iproute2, python3,
#       python3-apt (ansible.builtin.apt), ca-certificates; apt sources = SUITE, SUITE-updates,
#       SUITE-security (like a real server). Built once by debootstrap + docker import.
#   systemd_host_run NAME SUITE [NETWORK] [docker run args...]
#       (Re)starts container NAME (hostname NAME) from local/debian-systemd:SUITE with the flags a
#       systemd PID 1 needs here, on NETWORK (created if missing; "" = default bridge), and waits up
#       to SYSTEMD_TIMEOUT (90 s) until `systemctl is-system-running` is running/degraded. Extra args
#       go to `docker run` (e.g. -p 127.0.0.1::443). If APT_PROXY is set (see apt_cache_ready) the host's
#       apt uses it (file /etc/apt/apt.conf.d/00test-proxy inside the host only).
#   systemd_host_ip NAME [NETWORK]       prints the container's IP (on NETWORK if given)
#   systemd_host_rm NAME...              removes those containers (missing ones are fine)

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
