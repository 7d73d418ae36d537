#!/usr/bin/env bash
# make test's head start (the first step of `make test`): builds, in the background while the first layers
# run, the slowest one-time tool a later layer needs: docker compose v2 from its Go module
# (tools/docker.sh compose_v2_ready; 3-10 minutes of a fresh 2-core machine, otherwise spent at the start
# of the compose layer with nothing else running). Nothing is skipped or trusted: the compose layer still
# calls compose_v2_ready, which waits for the lock this build holds and then checks `docker compose
# version` itself; a background build that failed is done again, and fails loudly, in the foreground.
# Returns at once; already-provisioned machines return from the checks in a second.
# Log: .cache/prefetch.log. PREFETCH=0 turns it off.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ "${PREFETCH:-1}" = 0 ] && exit 0
mkdir -p .cache
# setsid + every inherited descriptor redirected: make, and CI reading its output, never wait for it.
setsid nohup bash -c '. tools/docker.sh && docker_engine_ready && compose_v2_ready && echo "prefetch: done"' \
  >.cache/prefetch.log 2>&1 </dev/null &
echo "prefetch: docker compose v2 in the background, pid $! (log .cache/prefetch.log)"
