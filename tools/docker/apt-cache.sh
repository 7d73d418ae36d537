# shellcheck shell=bash
# tools/docker/apt-cache.sh - an opt-in apt download cache for the test hosts (apt-cacher-ng).
# Sourced by tools/docker.sh (its header: what every function promises; its helpers _dk_*); not on its own.
#
#   apt_cache_ready                      opt-in apt download cache: apt-cacher-ng on the Docker host
#       (port 3142), started if not running; prints the proxy URL (http://<docker0 ip>:3142) and
#       exports APT_PROXY, which systemd_host_run then injects into test hosts (never the playbook).

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
