#!/usr/bin/env bash
# make bench: installs the benchmark's tools (idempotently), then runs bench/bench.py (its modes there and
# in docs/bench.md); `bench/run.sh --render` renders docs/bench.md again from docs/bench.json.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/apt.sh
if [ "${1:-}" = --render ]; then
  apt_need gnuplot-nox   # the charts
  exec python3 bench/bench.py --render
fi
# wrk, ab, h2load: the load generators; gnuplot: the chart; nginx: bound 4, the full stack and the PHP
# front; php-fpm: candidate 5 (installed so that every run compares the same five candidates).
apt_need wrk apache2-utils nghttp2-client gnuplot-nox nginx php-fpm openssl curl openjdk-17-jdk-headless
# The Debian 13 full stack (bench/foxbench/trixie.py): Debian 13's Nginx and curl in images, made once, and
# oha (tools/oha.sh: built from source once per machine). Without Docker the candidate is left out with a
# note; under CI=true that is a failure. The smoke leaves it out and builds none of it.
only=" ${BENCH_ONLY:-} "; only=${only//,/ }
if [ "${TUNE:-}" != 1 ] && [ "${SOAK:-}" != 1 ] && [ "${BENCH_SMOKE:-}" != 1 ] &&
   [ "${CONNECTIONS:-}" != 1 ] &&
   { [ -z "${BENCH_ONLY:-}" ] || [[ "$only" == *" stack-trixie "* ]]; }; then
  . tools/docker.sh
  if [ "${CI:-}" = true ] || docker info >/dev/null 2>&1; then
    BENCH_TRIXIE_CLIENT=$(trixie_client_ready)
    BENCH_TRIXIE_NGINX=$(trixie_nginx_ready)
    export BENCH_TRIXIE_CLIENT BENCH_TRIXIE_NGINX
    . tools/oha.sh
    oha_ready >/dev/null   # its load generator in every protocol, HTTP/3 included (exports BENCH_OHA)
  fi
fi
if [ "${CONNECTIONS:-}" = 1 ]; then
  # the compose stack as shipped (bench/foxbench/tls_connections.py builds and starts it)
  . tools/docker.sh
  docker_engine_ready && compose_v2_ready && base_image_ready debian:trixie-slim trixie >/dev/null
fi
. tools/venv.sh   # Jinja2 for nginx/render.py, cryptography for the full stack's CA (tools/loopback.py)
python3 images/identities.py images >&2   # the identities the full stack serves (images/i/: drawn once)
# Debian 13's JDKs 21 and 25 for the JDK comparison (bench/foxbench/jdks.py), in a container image; and
# the compose app image, from this tree, for the memory limits and the soak at compose's limit
# (bench/foxbench/limits.py, soak.py): Docker's build cache makes it seconds when the compose layer (or an
# earlier run) built the same files; the build trusts this machine's extra CA certificates, as
# tests/compose/run.sh has it. A partial run (BENCH_ONLY) and the tuning need neither.
if [ -z "${BENCH_ONLY:-}" ] && [ "${TUNE:-}" != 1 ] &&
   [ "${CONNECTIONS:-}" != 1 ]; then
  . tools/docker.sh
  if [ "${SOAK:-}" != 1 ]; then
    JDKS_IMAGE=$(trixie_jdks_ready)
    export JDKS_IMAGE
  fi
  docker_engine_ready && base_image_ready debian:trixie-slim trixie >/dev/null
  BENCH_APP_IMAGE=local/fox-bench-app
  old=$(docker image inspect -f '{{.Id}}' "$BENCH_APP_IMAGE" 2>/dev/null || true)
  nice docker build -q -f app/Dockerfile -t "$BENCH_APP_IMAGE" \
    --build-arg EXTRA_CA_CERTS="${EXTRA_CA_CERTS-$(cat /usr/local/share/ca-certificates/*.crt 2>/dev/null || true)}" . >/dev/null
  new=$(docker image inspect -f '{{.Id}}' "$BENCH_APP_IMAGE")
  [ -z "$old" ] || [ "$old" = "$new" ] || docker rmi "$old" >/dev/null 2>&1 || true
  export BENCH_APP_IMAGE
fi
exec python3 bench/bench.py "$@"
