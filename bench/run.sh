#!/usr/bin/env bash
# make bench: the benchmark of issue 7 (see docs/bench.md). Installs its tools (idempotently), then runs
# bench/bench.py (the package bench/foxbench/). Modes: BENCH_SMOKE=1 (CI: seconds, asserts no timings,
# writes only to a temp dir, leaves out the candidates only oha loads), BENCH_GATE=1 (CI: issue 36's
# regression gate, about a minute, ratios and counts only), CONNECTIONS=1 (issue 45: connections on the
# compose stack, a few minutes), TUNE=1 (JVM flag sets for app/jvm.options), SOAK=1 (10 million requests
# through the full stack), BENCH_ONLY=KEY,... (a partial run of those candidates, its own section);
# `bench/run.sh --render` renders the report again from docs/bench.json.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/apt.sh
# wrk, ab, h2load: the load generators; gnuplot: the chart; nginx: bound 4, the full stack and the PHP
# front; php-fpm: candidate 5 (installed so that every run compares the same five candidates).
apt_need wrk apache2-utils nghttp2-client gnuplot-nox nginx php-fpm openssl curl openjdk-17-jdk-headless
# The Debian 13 full stack (issue 12, bench/foxbench/trixie.py): Debian 13's Nginx and curl in images,
# made once, and oha (tools/oha.sh: built from source, ~8 min once per machine). Without Docker the
# candidate is left out with a note; under CI=true that is a failure. The smoke (BENCH_SMOKE=1) leaves the
# candidate out and builds none of it: only oha loads it, and its HTTP/3 path is tested by the shared
# HTTP suite's curl --http3-only (tests/stack/test_http.py) in the nginx, compose and ansible layers.
only=" ${BENCH_ONLY:-} "; only=${only//,/ }
if [ "${TUNE:-}" != 1 ] && [ "${SOAK:-}" != 1 ] && [ "${BENCH_SMOKE:-}" != 1 ] && [ "${BENCH_GATE:-}" != 1 ] &&
   [ "${CONNECTIONS:-}" != 1 ] &&
   [ "${1:-}" != --render ] &&
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
if [ "${CONNECTIONS:-}" = 1 ] && [ "${1:-}" != --render ]; then
  # the compose stack as shipped (bench/foxbench/tls_connections.py builds and starts it)
  . tools/docker.sh
  docker_engine_ready && compose_v2_ready && base_image_ready debian:trixie-slim trixie >/dev/null
fi
. tools/venv.sh   # Jinja2 for nginx/render.py, cryptography for the full stack's CA (tools/loopback.py)
# Debian 13's JDKs 21 and 25 for the JDK comparison (bench/foxbench/jdks.py), in a container image; and
# the compose app image, from this tree, for the memory limits and the soak at compose's limit
# (bench/foxbench/limits.py, soak.py): Docker's build cache makes it seconds when the compose layer (or an
# earlier run) built the same files; the build trusts this machine's extra CA certificates, as
# tests/compose/run.sh has it. A partial run (BENCH_ONLY), the tuning and the gate need neither.
if [[ " $* " != *" --render "* ]] && [ -z "${BENCH_ONLY:-}" ] && [ "${TUNE:-}" != 1 ] && [ "${BENCH_GATE:-}" != 1 ] &&
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
