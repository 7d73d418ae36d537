#!/usr/bin/env bash
# make test-compose: docker-compose.yml on a real Docker engine, as its pages write it.
#  1. prerequisites (tools/docker.sh), `docker compose config -q`, hadolint
#  2. README.md's first block as written, in a clean directory, from a snapshot of this tree: the
#     stack on 127.0.0.1:8443 and 8080 (a machine-wide lock: the ports are the README's)
#  3. on that stack: the shared HTTP suite (tests/stack: HTTP/3 over the published UDP port), the
#     compose behaviour (test_images.py; test_stack.py, with the first blocks of docs/scaling.md and
#     docs/own-pictures.md), then docs/monitoring.md's first block and its tests; the stack taken down
#  4. the other journeys, each from a fresh clone (test_journeys.py): behind-a-proxy.md, compose.md
#     (its certificate from Pebble on this host: issued, probed, renewed, kept, the placeholder)
# Everything the run made goes, also on failure. CI=true makes a skipped test fail.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
t0=$(date +%s)
step() { printf '\n== compose: %s (%ss)\n' "$*" "$(($(date +%s) - t0))"; }

step "prerequisites"
. tools/docker.sh
docker_engine_ready
compose_v2_ready
base_image_ready debian:trixie-slim trixie
trixie_client=$(trixie_client_ready)
# Pebble and its DNS, Let's Encrypt's stand-ins for docs/compose.md's certificate (tests/compose/acme.py)
PEBBLE_BIN=$(pebble_ready)
PEBBLE_CHALLTESTSRV_BIN=$(pebble_challtestsrv_ready)
export PEBBLE_BIN PEBBLE_CHALLTESTSRV_BIN
apt_need caddy nginx sudo
. tools/venv.sh
for v in $(compgen -v AVATAR_) $(compgen -v COMPOSE_); do unset "$v"; done
export AVATAR_TRIXIE_CLIENT=$trixie_client
export COMPOSE_PROJECT_NAME=fox-avatar-test-$$
export EXTRA_CA_CERTS=${EXTRA_CA_CERTS-$(cat /usr/local/share/ca-certificates/*.crt 2>/dev/null || true)}
tmp=$(mktemp -d /var/tmp/fox-avatar-compose.XXXXXX)   # readable by the containers' users
chmod 755 "$tmp"
export FOX_CHECKOUT=$tmp/readme/fox-avatar
cleanup() {
  local rc=$?
  if [ $rc -ne 0 ] && [ -d "$FOX_CHECKOUT" ]; then
    (cd "$FOX_CHECKOUT" && docker compose logs --no-color --tail 30 >&2 2>/dev/null) || true
  fi
  [ ! -d "$FOX_CHECKOUT" ] || (cd "$FOX_CHECKOUT" && docker compose down -v --remove-orphans --timeout 5 >/dev/null 2>&1) || true
  rm -rf "$tmp" "${FOX_SNAPSHOT:-/nonexistent}"
  echo "== compose: layer took $(($(date +%s) - t0)) s (exit $rc)"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step "docker compose config -q, hadolint"
docker compose config -q
docker compose --profile monitoring config -q
hadolint app/Dockerfile nginx/Dockerfile monitoring/compose/*.Dockerfile

step "README.md's first block, as written"
exec 7>/run/lock/fox-avatar-compose-ports.lock
flock 7   # the README's ports, 8443 and 8080 on 127.0.0.1, and the public server's 443 and 80
# On a fresh machine the first `up` builds: so here too (the layer cache keeps it quick), never an
# older tree's images left under the same names.
docker image rm -f fox-avatar/{app,nginx,prometheus,nginx-exporter,mtail,blackbox}:local >/dev/null 2>&1 || true
snapshot=$(python3 tests/lib/docblocks.py snapshot)
export FOX_SNAPSHOT=$snapshot
mkdir "$tmp/readme"
python3 tests/lib/docblocks.py run README.md 0 --cwd "$tmp/readme" --clone-from "$snapshot" --timeout 1800
(cd "$FOX_CHECKOUT" && docker compose ps --format 'table {{.Service}}\t{{.Status}}\t{{.Ports}}')
(cd "$FOX_CHECKOUT" && docker compose exec -T nginx cat /etc/nginx/tls/fullchain.pem) >"$tmp/ca.pem"
export AVATAR_CA=$tmp/ca.pem

step "docs/integrations.md's first block, as written, on the README's stack"
python3 tests/lib/docblocks.py run docs/integrations.md 0 --cwd "$FOX_CHECKOUT"

step "the shared HTTP suite (tests/stack) on the README's stack"
AVATAR_STACK=external AVATAR_HOST=localhost AVATAR_ADDR=127.0.0.1 AVATAR_HTTPS_PORT=8443 AVATAR_HTTP_PORT=8080 \
AVATAR_HTTP3=1 AVATAR_PQ=1 \
AVATAR_APP_STOP="cd $FOX_CHECKOUT && docker compose stop app" \
AVATAR_APP_START="cd $FOX_CHECKOUT && docker compose up -d --wait --no-recreate app" \
  python -m pytest -q -p no:cacheprovider tests/stack

step "compose's own behaviour (tests/compose)"
python -m pytest -q -p no:cacheprovider --durations=5 tests/compose/test_images.py tests/compose/test_stack.py

step "docs/monitoring.md's first block, as written, and the profile's tests"
python3 tests/lib/docblocks.py run docs/monitoring.md 0 --cwd "$FOX_CHECKOUT"
python -m pytest -q -p no:cacheprovider tests/compose/test_monitoring.py
docker image ls --format 'table {{.Repository}}:{{.Tag}}\t{{.Size}}' | grep -E '^(REPOSITORY|fox-avatar/)'
(cd "$FOX_CHECKOUT" && docker compose down -v --timeout 5 >/dev/null 2>&1)

step "the journeys of behind-a-proxy.md and compose.md, as written"
python -m pytest -q -p no:cacheprovider --durations=2 tests/compose/test_journeys.py

step "nothing left"
left=$({ docker ps -a --format '{{.Label "com.docker.compose.project"}}'
        docker volume ls --format '{{.Label "com.docker.compose.project"}}'; } | grep "^$COMPOSE_PROJECT_NAME" || true)
[ -z "$left" ] || { echo "left behind: $left" >&2; exit 1; }
