#!/usr/bin/env bash
# make bench: installs the benchmark's tools (idempotently), then runs bench/bench.py (its modes there and
# in docs/bench.md); `bench/run.sh --render` renders docs/bench.md again from docs/bench.json.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/apt.sh
[ "${1:-}" != --render ] || exec python3 bench/bench.py --render
# wrk and h2load: the load generators; nginx: the candidates and the full stack.
apt_need wrk nghttp2-client nginx openssl curl openjdk-17-jdk-headless
. tools/venv.sh   # Jinja2 for nginx/render.py, cryptography for the full stack's CA, h2 for the idle clients
python3 images/identities.py images >&2   # the identities the full stack serves (images/i/: drawn once)
[ "${SOAK:-}" = 1 ] || . tools/docker.sh
if [ "${CONNECTIONS:-}" = 1 ]; then   # the compose stack as shipped (connections.py builds and starts it)
  docker_engine_ready && compose_v2_ready && base_image_ready debian:trixie-slim trixie >/dev/null
elif [ "${SOAK:-}" != 1 ]; then
  # The Debian 13 full stack (candidates.py TrixieStack): its Nginx image and oha; left out without Docker
  # (under CI=true, a failure) and by the smoke.
  if [ "${BENCH_SMOKE:-}" != 1 ] && { [ "${CI:-}" = true ] || docker info >/dev/null 2>&1; }; then
    BENCH_TRIXIE_NGINX=$(trixie_nginx_ready)
    export BENCH_TRIXIE_NGINX
    . tools/oha.sh
    oha_ready   # exports BENCH_OHA
  fi
  # The compose app image from this tree for the memory limits (limits.py), trusting this machine's extra CA
  # certificates as tests/compose/run.sh does; the image it replaces is removed.
  docker_engine_ready && base_image_ready debian:trixie-slim trixie >/dev/null
  export BENCH_APP_IMAGE=local/fox-bench-app
  old=$(docker image inspect -f '{{.Id}}' "$BENCH_APP_IMAGE" 2>/dev/null || true)
  nice docker build -q -f app/Dockerfile -t "$BENCH_APP_IMAGE" \
    --build-arg EXTRA_CA_CERTS="${EXTRA_CA_CERTS-$(cat /usr/local/share/ca-certificates/*.crt 2>/dev/null || true)}" . >/dev/null
  new=$(docker image inspect -f '{{.Id}}' "$BENCH_APP_IMAGE")
  [ -z "$old" ] || [ "$old" = "$new" ] || docker rmi "$old" >/dev/null 2>&1 || true
fi
exec python3 bench/bench.py "$@"
