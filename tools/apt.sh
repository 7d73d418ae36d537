# Sourced by the test layers, the bench and images/draw.sh: apt_need PKG... installs the Debian packages that are missing,
# running 'apt-get update' at most once per process and waiting for a dpkg lock held by another
# install (several layers may install at once). Idempotent.
apt_need() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "apt: installing ${missing[*]}" >&2
  if [ -z "${_APT_UPDATED:-}" ]; then apt-get -o DPkg::Lock::Timeout=600 update -qq; _APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
