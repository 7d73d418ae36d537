# shellcheck shell=bash
# tools/docker/engine.sh - the Docker engine (Debian's docker.io, started without systemd).
# Sourced by tools/docker.sh (its header: what every function promises; its helpers _dk_*); not on its own.
#
#   docker_engine_ready
#       Returns if `docker info` answers. Else installs docker.io (apt), starts dockerd detached
#       (own session, inherited fds closed, log /var/log/dockerd.log) and waits up to
#       DOCKERD_TIMEOUT (60 s) for it.

docker_engine_ready() {
  docker info >/dev/null 2>&1 && return 0
  _dk_locked engine _dk_engine_start
}
_dk_engine_start() {
  docker info >/dev/null 2>&1 && return 0
  if ! command -v dockerd >/dev/null || ! command -v docker >/dev/null; then
    _dk_apt_need docker.io || return 1
  fi
  # the package may have started it through its init script. Only a dockerd of this machine's own
  # mount namespace counts: the engines inside test containers (make test-swarm's nodes) show in
  # this PID namespace too, and outlive a crash of this one.
  if ! docker info >/dev/null 2>&1 && ! pgrep -x dockerd --ns $$ --nslist mnt >/dev/null; then
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
