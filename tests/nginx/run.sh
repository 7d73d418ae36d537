#!/usr/bin/env bash
# make test-nginx: the Nginx layer against a real Nginx, the real jar and a real
# browser, all on loopback. Installs what is missing (Debian packages, the
# pinned venv); builds nothing (make builds the jar first).
#   tests/images  the image set and its drawing script
#   tests/stack   the shared HTTP assertions (loopback stack started by the suite; HTTP/3 and
#                 ML-KEM checks through the Debian 13 client image, tools/docker.sh)
#   tests/nginx   configuration, logs, fallback, browser (loopback only)
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/apt.sh
# nginx: Debian's package; chromium + driver: the browser test; libnss3-tools:
# certutil (test CA into the browser's NSS db); curl: the HTTP/2 check; optipng:
# tests/images; testssl.sh: the TLS audit (tests/nginx/test_tls_audit.py).
apt_need nginx chromium chromium-driver libnss3-tools openssl curl optipng testssl.sh
# Debian 13's clients (HTTP/3, ML-KEM) for tests/stack/test_http3.py, in a container.
source tools/docker.sh
docker_engine_ready
AVATAR_TRIXIE_CLIENT=$(trixie_client_ready)
export AVATAR_TRIXIE_CLIENT
source tools/venv.sh

[ -f app/target/avatar.jar ] || { echo "test-nginx: app/target/avatar.jar missing (run: make build)" >&2; exit 2; }

paths=()
[ -d tests/images ] && paths+=(tests/images)
paths+=(tests/stack tests/nginx)
# --durations: the slowest tests, in the log (where the layer's time goes)
exec python -m pytest -p no:cacheprovider -q -rfEs --durations=12 "${paths[@]}" "$@"
