#!/usr/bin/env bash
# make test's head start (the first step of `make test`): builds, in the background while the first layers
# run, the one-time tools later layers need, slowest first: docker compose v2 from its Go module (the compose
# layer; 3-10 minutes of a fresh 2-core machine), then the Ansible layer's Debian 12 and 13 systemd host
# images (debootstrap: mostly downloads) and Pebble (its Go module). Nothing is skipped or trusted: each
# layer still calls the same tools/docker.sh functions, which wait for the lock a build here holds and then
# check the result themselves; a background build that failed is done again, and fails loudly, in the
# foreground. Returns at once; already-provisioned machines return from the checks in a second.
# Log: .cache/prefetch.log. PREFETCH=0 turns it off.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ "${PREFETCH:-1}" = 0 ] && exit 0
mkdir -p .cache
# setsid + every inherited descriptor redirected: make, and CI reading its output, never wait for it.
setsid nohup bash -c '. tools/docker.sh && docker_engine_ready && compose_v2_ready \
    && systemd_image_ready bookworm && systemd_image_ready trixie && pebble_ready >/dev/null && echo "prefetch: done"' \
  >.cache/prefetch.log 2>&1 </dev/null &
echo "prefetch: docker compose v2, the systemd host images and Pebble in the background, pid $! (log .cache/prefetch.log)"
