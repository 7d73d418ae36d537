# shellcheck shell=bash
# tools/docker/arm64.sh - arm64 (aarch64) containers on an amd64 machine, through the kernel's
# binfmt_misc and Debian's qemu-user-static (../shared/TESTING-HERE.md section 13 on the machines it was
# made on). Sourced by tools/docker.sh (its header: what every function promises; its helpers _dk_*).
#
#   qemu_arm64_ready                 arm64 binaries run here: binfmt_misc mounted when it is not, Debian's
#       qemu-user-static and binfmt-support installed, /proc/sys/fs/binfmt_misc/qemu-aarch64 enabled with
#       the F flag (the interpreter loaded at registration, so it works inside containers). Returns at
#       once on an arm64 machine.
#   arm64_base_image_ready NAME SUITE   image NAME for linux/arm64: arm64v8/debian:SUITE-slim pulled and
#       tagged NAME, else `debootstrap --arch=arm64 --variant=minbase SUITE` (its second stage emulated) imported with
#       `docker import`, its configuration's architecture then set to arm64 (Debian 12's engine, 20.10,
#       ignores `docker import --platform` without experimental mode: docker save, edit, docker load). Built
#       once.

qemu_arm64_ready() {
  case $(uname -m) in aarch64|arm64) return 0 ;; esac
  local f=/proc/sys/fs/binfmt_misc
  if [ ! -e "$f/register" ]; then
    mount -t binfmt_misc binfmt_misc "$f" 2>/dev/null \
      || _dk_die "cannot mount binfmt_misc on $f (needed to run arm64 containers)" || return 1
  fi
  _dk_apt_need qemu-user-static binfmt-support || return 1
  if [ ! -e "$f/qemu-aarch64" ]; then
    update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
  fi
  grep -qx enabled "$f/qemu-aarch64" 2>/dev/null \
    || _dk_die "$f/qemu-aarch64 is not enabled after installing qemu-user-static" || return 1
  grep -q '^flags: .*F' "$f/qemu-aarch64" \
    || _dk_die "$f/qemu-aarch64 lacks the F flag: arm64 containers cannot find their interpreter"
}

arm64_base_image_ready() { # NAME SUITE
  local name=${1:?arm64_base_image_ready NAME SUITE} suite=${2:?arm64_base_image_ready NAME SUITE}
  _dk_is_arm64 "$name" && return 0
  qemu_arm64_ready || return 1
  _dk_locked "image-${name//[^A-Za-z0-9]/_}" _dk_arm64_base_build "$name" "$suite"
}
_dk_is_arm64() { [ "$(docker image inspect -f '{{.Architecture}}' "$1" 2>/dev/null)" = arm64 ]; }
_dk_arm64_base_build() {
  local name=$1 suite=$2
  _dk_is_arm64 "$name" && return 0
  # Docker's official arm64 repository (one architecture only: the native debian:SUITE-slim tag stays).
  if timeout "$PULL_TIMEOUT" docker pull -q "arm64v8/debian:$suite-slim" >/dev/null 2>&1 \
     && _dk_is_arm64 "arm64v8/debian:$suite-slim" && docker tag "arm64v8/debian:$suite-slim" "$name"; then
    return 0
  fi
  _dk_log "cannot pull arm64v8/debian:$suite-slim; building $name with debootstrap --arch=arm64 (emulated, a few minutes)"
  _dk_debootstrap_import "$suite" "$name" --arch=arm64 -- --platform linux/arm64 -c 'CMD ["bash"]' \
    && { _dk_is_arm64 "$name" || _dk_image_set_arch "$name" arm64; } \
    && { _dk_is_arm64 "$name" || _dk_die "$name: its architecture is not arm64 after the import"; }
}

# _dk_image_set_arch IMAGE ARCH: IMAGE again, the same layers, its configuration's architecture ARCH.
_dk_image_set_arch() {
  local image=$1 arch=$2 tmp rc=0
  tmp=$(mktemp -d /tmp/fox-setarch.XXXXXX)
  docker save "$image" | tar -C "$tmp" -x \
    && python3 - "$tmp" "$arch" <<'PY' && tar -C "$tmp" -c . | docker load -q >/dev/null || rc=$?
import hashlib, json, os, sys
d, arch = sys.argv[1], sys.argv[2]
manifest = json.load(open(os.path.join(d, "manifest.json")))
for entry in manifest:
    old = os.path.join(d, entry["Config"])
    config = json.load(open(old))
    config["architecture"] = arch
    data = json.dumps(config, separators=(",", ":")).encode()
    name = hashlib.sha256(data).hexdigest() + ".json"
    os.remove(old)
    open(os.path.join(d, name), "wb").write(data)
    entry["Config"] = name
json.dump(manifest, open(os.path.join(d, "manifest.json"), "w"))
PY
  rm -rf "$tmp"
  return $rc
}
