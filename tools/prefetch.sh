#!/usr/bin/env bash
# make test's head start (the first step of `make test`): makes, in the background while the first layers
# run, the one-time things later layers need: the venv, docker compose v2 (the compose layer; Debian 13's package,
# tools/docker.sh compose_v2_ready), the Ansible layer's Debian 12 and 13 systemd host images (debootstrap:
# mostly downloads), Pebble (built from its Go module: minutes of a fresh 2-core machine) and the release
# layer's arm64 Debian 13 image (debootstrap --arch=arm64, its second stage under qemu: about 2 minutes). Nothing is
# skipped or trusted: each layer still calls the same tools/docker.sh functions, which wait for the lock a
# build here holds and then check the result themselves; a background build that failed is done again, and
# fails loudly, in the foreground. Returns at once; already-provisioned machines return from the checks in a
# second.
# Log: .cache/prefetch.log. PREFETCH=0 turns it off.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ "${PREFETCH:-1}" = 0 ] && exit 0
mkdir -p .cache
# setsid + every inherited descriptor redirected: make, and CI reading its output, never wait for it.
setsid nohup bash -c '. tools/docker.sh && docker_engine_ready && compose_v2_ready \
    && systemd_image_ready bookworm && systemd_image_ready trixie && pebble_ready >/dev/null \
    && arm64_base_image_ready local/fox-debian-arm64:trixie-slim trixie && echo "prefetch: done"' \
  >.cache/prefetch.log 2>&1 </dev/null &
echo "prefetch: docker compose v2, the systemd host images, Pebble and the arm64 base image in the background, pid $! (log .cache/prefetch.log)"
# The pinned Python tools (.venv) too, while make test's first layer (Maven) runs: tools/venv.sh holds
# its lock while it installs, so a layer that needs them waits for it and then checks them itself.
setsid nohup bash -c '. tools/venv.sh && echo "prefetch: venv done"' >.cache/prefetch-venv.log 2>&1 </dev/null &
echo "prefetch: the venv in the background, pid $! (log .cache/prefetch-venv.log)"
