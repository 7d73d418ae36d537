#!/usr/bin/env bash
# make test-nginx: the Nginx layer on loopback, against a real Nginx, the real jar and a real browser.
#   tests/images  the image set and its drawing script
#   tests/stack   the end-to-end path every deployment runs, here on the loopback stack
#   tests/nginx   the site's behaviour, tested once: fallback, logs, proxy mode, TLS, browsers, clients
# Installs what is missing (Debian packages, the Debian 13 client image, the pinned venv); builds
# nothing (make builds the jar first).
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/apt.sh
# libnss3-tools: certutil (the test CA into the browser's NSS database); optipng: tests/images;
# testssl.sh: the TLS audit; util-linux: setpriv (test_selfsigned.py).
apt_need nginx chromium chromium-driver libnss3-tools openssl optipng testssl.sh util-linux
# Debian 13's clients (HTTP/3, ML-KEM) for tests/stack/test_http.py, in a container.
source tools/docker.sh
docker_engine_ready
AVATAR_TRIXIE_CLIENT=$(trixie_client_ready)
export AVATAR_TRIXIE_CLIENT
source tools/venv.sh
# The fox set's keyed identities the loopback stack serves (images/i/, not committed): drawn once,
# about two minutes on two cores (identities.py keeps a drawing it has).
python3 images/identities.py images

[ -f app/target/avatar.jar ] || { echo "test-nginx: app/target/avatar.jar missing (run: make build)" >&2; exit 2; }

paths=()
[ -d tests/images ] && paths+=(tests/images)
paths+=(tests/stack tests/nginx)
# --durations: the slowest tests, in the log (where the layer's time goes)
exec python -m pytest -p no:cacheprovider -q -rfEs --durations=12 "${paths[@]}" "$@"
