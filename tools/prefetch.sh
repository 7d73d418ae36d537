#!/usr/bin/env bash
# make test's head start: builds in the background, while the first layers run, the one-time things later
# layers need. Nothing is trusted: each layer still calls the same tools/docker.sh and tools/venv.sh
# functions, which wait for the machine-wide lock a build here holds and check the result themselves (a
# background build that failed is done again, and fails loudly, in the foreground).
#   tools/prefetch.sh           the venv, docker compose v2, the systemd host images, Pebble, the arm64 base
#   tools/prefetch.sh release   the release's four images from app/target/avatar.jar (tools/release.sh warm:
#                               the arm64 ones under qemu are the release layer's long part)
# Logs: .cache/prefetch*.log. PREFETCH=0 turns it off.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ "${PREFETCH:-1}" = 0 ] && exit 0
mkdir -p .cache
background() { # NAME COMMAND: setsid, every inherited descriptor redirected (make and CI never wait for it)
  setsid nohup bash -c "$2" >".cache/prefetch-$1.log" 2>&1 </dev/null &
  echo "prefetch: $1 in the background, pid $! (log .cache/prefetch-$1.log)"
}
if [ "${1:-}" = release ]; then
  background release 'tools/release.sh warm'
  exit 0
fi
background docker '. tools/docker.sh && docker_engine_ready && compose_v2_ready && systemd_image_ready bookworm \
  && systemd_image_ready trixie && pebble_ready >/dev/null && pebble_challtestsrv_ready >/dev/null \
  && arm64_base_image_ready local/fox-debian-arm64:trixie-slim trixie && echo "prefetch: done"'
background venv '. tools/venv.sh && echo "prefetch: venv done"'
