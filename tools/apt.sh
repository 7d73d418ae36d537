# Sourced by the test layers, the bench and images/draw.sh: apt_need PKG... installs the Debian packages that are missing.
# Idempotent. Every 'apt-get update' and 'install' of every process that provisions runs under one
# machine-wide lock (apt_locked): this machine image's apt configuration deletes the downloaded .deb
# files after each update, so an update from one layer (or tools/prefetch.sh) while another layer
# installs made that install fail with "cannot access archive". 'apt-get update' runs at most once
# per process.
apt_locked() { # CMD...: run CMD under the machine's apt lock (waits up to 30 minutes)
  (
    flock -w 1800 8 || { echo "apt: timed out waiting for /run/lock/fox-avatar-apt.lock" >&2; exit 1; }
    "$@"
  ) 8>/run/lock/fox-avatar-apt.lock
}
_apt_update_install() { # PKG...
  if [ -z "${_APT_UPDATED:-}" ]; then apt-get -o DPkg::Lock::Timeout=600 update -qq || return 1; fi
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "$@" >/dev/null
}
apt_need() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  # Installing needs root: anyone else (a member of the group docker, say) is told what to install.
  if [ "$(id -u)" != 0 ]; then
    echo "apt: missing Debian packages, which only root can install: sudo apt-get install ${missing[*]}" >&2
    return 1
  fi
  echo "apt: installing ${missing[*]}" >&2
  apt_locked _apt_update_install "${missing[@]}" || return 1
  _APT_UPDATED=1
}
