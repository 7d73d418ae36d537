# shellcheck shell=bash
# tools/docker/systemd.sh - the systemd "server" image and hosts (the Ansible layer's).
# Sourced by tools/docker.sh (its header: what every function promises; its helpers _dk_*); not on its own.
#
#   systemd_image_ready SUITE            SUITE = bookworm | trixie
#       Image local/debian-systemd:SUITE: minbase + systemd, systemd-sysv, dbus, iproute2, python3,
#       python3-apt (ansible.builtin.apt), ca-certificates; apt sources = SUITE, SUITE-updates,
#       SUITE-security (like a real server). Built once by debootstrap + docker import.

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
