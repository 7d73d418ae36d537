#!/usr/bin/env bash
# make test-compose: the whole stack under `docker compose`, on a real Docker engine.
#
#  1. a Docker engine, compose v2, the debian:trixie-slim base image (both images) and the Debian 13 client image (tools/docker.sh:
#     installed/started/built only when missing), the pinned venv (hadolint, pytest)
#  2. `docker compose config -q` (with and without the monitoring profile), hadolint on every Dockerfile
#  3. `docker compose up --build --wait` under a unique project name, on free loopback ports
#  4. the shared HTTP assertions (tests/stack, AVATAR_STACK=external) against the published ports
#     and the browser tests (tests/nginx/test_browser*.py) against them
#  5. image sizes and idle memory (docker stats)
#  6. tests/compose: the settings' files and defaults, both images' image set, the site file rendered
#     at start with every setting in it (AVATAR_IMAGES_MAX_AGE, AVATAR_APP_PORT recreated with other values),
#     Nginx 1.26 starting without warnings, hardening, wrong settings, the image's start with no
#     setting (test_nginx_start.py: nginx -V runs, nginx is refused), certificate, crash ->
#     fallback + restart, --scale app=3 followed by Nginx; a set change, upgrades of both images
#     and of the app alone under a request loop (one Nginx restart at most, every answer a served
#     image); a release installed as docs/compose.md writes it (test_release.py: the run's images
#     pushed to a registry of Debian's docker-registry as version 0.0.1, `AVATAR_REGISTRY=...
#     AVATAR_VERSION=0.0.1 docker compose up -d --wait` in a project of its own pulls both, builds
#     nothing and answers the 302 and the image; a version the registry lacks stops `up`); private logs (AVATAR_ACCESS_LOG unset, full, off; the container logs' size cap);
#     behind a real Caddy (Nginx recreated with AVATAR_TLS=off and AVATAR_REAL_IP_FROM: the 302 and
#     the image through it, the visitor's network in the log, a forged X-Forwarded-For ignored);
#     AVATAR_PUBLISH_ADDR empty (IPv4 and IPv6), :: and 0.0.0.0; the TLS audit (testssl)
#  7. tests/compose/monitoring: the same project without the profile (exactly the two containers),
#     then `--profile monitoring up --build --wait` (Prometheus, nginx-exporter, mtail, blackbox):
#     every target up, hardening, nothing more published, the probe's certificate expiry, the app
#     stopped -> FoxAvatarSidecarDown firing, an Nginx crash survived, --scale app=2 discovered; the
#     four images' sizes and idle memory
#  8. `docker compose down -v` (every profile), then nothing of the project is left; also on failure (trap)
#
# Environment: CI=true makes a skipped test fail. The host's extra CA certificates
# (/usr/local/share/ca-certificates/*.crt, e.g. a TLS-intercepting proxy's) are handed to the app
# build as EXTRA_CA_CERTS so Maven can reach Maven Central.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
t0=$(date +%s)
step() { printf '\n== compose: %s (%ss)\n' "$*" "$(($(date +%s) - t0))"; }

step "prerequisites"
. tools/docker.sh
docker_engine_ready
compose_v2_ready
# nginx/Dockerfile and app/Dockerfile: Debian 13 (app: OpenJDK 25).
base_image_ready debian:trixie-slim trixie
trixie_client=$(trixie_client_ready)   # HTTP/3 and ML-KEM clients (tests/stack/test_http3.py)
apt_need testssl.sh                    # the TLS audit (tests/compose/test_tls_audit.py)
apt_need caddy                         # the proxy in front (tests/compose/test_behind_proxy.py)
apt_need chromium chromium-driver libnss3-tools   # the browser tests
. tools/venv.sh
# A registry of Debian's docker-registry package, the Swarm layer's (tests/compose/test_release.py)
. tests/swarm/swarm.sh
FOX_REGISTRY_IMAGE=$(swarm_registry_ready)
export FOX_REGISTRY_IMAGE

# One project per run; every compose call below (and in the tests) sees these.
export COMPOSE_PROJECT_NAME="fox-avatar-test-$$"
export COMPOSE_FILE="$root/docker-compose.yml"   # also keeps a local override file out
read -r https_port http_port prometheus_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(3)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
# The settings' defaults (docker-compose.yml) but the published ports: a developer's own .env or
# exported AVATAR_* cannot change the test (COMPOSE_ENV_FILES: no .env is read).
for v in $(compgen -v AVATAR_); do unset "$v"; done
export COMPOSE_ENV_FILES=/dev/null AVATAR_HTTPS_PORT=$https_port AVATAR_HTTP_PORT=$http_port
export AVATAR_PROMETHEUS_PORT=$prometheus_port   # the monitoring profile's UI (tests/compose/monitoring)
# and the full access log: the tests find their requests in it by a probe in the query (the default,
# anonymous, keeps no query; tests/compose/test_private_logs.py runs it, and off, and puts this back).
export AVATAR_ACCESS_LOG=full
EXTRA_CA_CERTS=$(cat /usr/local/share/ca-certificates/*.crt 2>/dev/null || true)
export EXTRA_CA_CERTS

tmp=$(mktemp -d)
cleanup() {
  local rc=$?
  if [ $rc -ne 0 ] && docker compose ps -a -q 2>/dev/null | grep -q .; then
    echo "== compose: failed; last container logs:" >&2
    COMPOSE_PROFILES=monitoring docker compose logs --no-color --tail 30 >&2 2>/dev/null || true
  fi
  COMPOSE_PROFILES=monitoring docker compose down -v --remove-orphans --timeout 5 >/dev/null 2>&1 || true
  rm -rf "$tmp"
  echo "== compose: layer took $(($(date +%s) - t0)) s (exit $rc)"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step "docker compose config -q"
docker compose config -q
docker compose --profile monitoring config -q

step "hadolint"
hadolint --version
hadolint app/Dockerfile nginx/Dockerfile monitoring/compose/*.Dockerfile

step "docker compose up --build --wait (project $COMPOSE_PROJECT_NAME, https $https_port, http $http_port)"
b0=$(date +%s)
images=(fox-avatar/app:local fox-avatar/nginx:local)
old_ids=$(docker image inspect -f '{{.Id}}' "${images[@]}" 2>/dev/null || true)
if ! docker compose up --build --wait --wait-timeout 240 >"$tmp/up.log" 2>&1; then
  tail -n 60 "$tmp/up.log" >&2
  exit 1
fi
echo "up --build --wait: $(($(date +%s) - b0)) s"
# A rebuild leaves the previous image untagged: remove those (only ours, never a global prune).
for id in $old_ids; do
  if [ -z "$(docker image inspect -f '{{join .RepoTags ","}}' "$id" 2>/dev/null)" ]; then
    docker rmi "$id" >/dev/null 2>&1 || true
  fi
done
docker compose ps --format 'table {{.Service}}\t{{.Status}}\t{{.Ports}}'

# The generated self-signed certificate is its own trust anchor.
docker compose exec -T nginx cat /etc/nginx/tls/fullchain.pem >"$tmp/ca.pem"
export AVATAR_CA=$tmp/ca.pem

step "shared HTTP assertions (tests/stack) against the published ports"
# Debian 13's Nginx: HTTP/3 on the published UDP port, X25519MLKEM768 (OpenSSL 3.5).
AVATAR_STACK=external AVATAR_HOST=localhost AVATAR_ADDR=127.0.0.1 \
AVATAR_HTTP3=1 AVATAR_PQ=1 AVATAR_TRIXIE_CLIENT=$trixie_client \
AVATAR_APP_STOP="docker compose stop app" \
AVATAR_APP_START="docker compose up -d --wait --no-recreate app" \
  python -m pytest -q -p no:cacheprovider tests/stack

step "the browser tests (tests/nginx/test_browser*.py) against the Debian 13 stack"
AVATAR_STACK=external AVATAR_HOST=localhost AVATAR_ADDR=127.0.0.1 \
AVATAR_APP_STOP="docker compose stop app" \
AVATAR_APP_START="docker compose up -d --wait --no-recreate app" \
  python -m pytest -q -p no:cacheprovider tests/nginx/test_browser.py tests/nginx/test_browser_embed.py \
    tests/nginx/test_browser_cors.py

# memory_use: each running container of the project (every profile), docker stats' figure.
memory_use() {
  for c in $(COMPOSE_PROFILES=monitoring docker compose ps -q); do
    name=$(docker inspect -f '{{.Name}}' "$c"); id=$(docker inspect -f '{{.Id}}' "$c")
    mem=$(docker stats --no-stream --format '{{.MemUsage}}' "$c")
    if [[ $mem == 0B* ]]; then
      # dockerd collected nothing (docker.io 20.10 on this kernel's cgroup v1 says "no metrics
      # received"): the container's memory cgroup, with docker stats' formula (its one reader).
      mem=$(python tools/container_memory.py "$id" || echo "$mem")
    fi
    printf '%-36s %s\n' "${name#/}" "$mem"
  done
}

step "image sizes and idle memory"
sleep 5   # let the post-test work settle
docker image ls --format 'table {{.Repository}}:{{.Tag}}\t{{.Size}}' | grep -E '^(REPOSITORY|fox-avatar/)'
memory_use

step "compose behaviour (tests/compose)"
AVATAR_TRIXIE_CLIENT=$trixie_client python -m pytest -q -p no:cacheprovider tests/compose \
  --ignore=tests/compose/monitoring

step "the monitoring profile (tests/compose/monitoring)"
m0=$(date +%s)
mon_images=(fox-avatar/prometheus:local fox-avatar/nginx-exporter:local fox-avatar/mtail:local fox-avatar/blackbox:local)
old_ids=$(docker image inspect -f '{{.Id}}' "${mon_images[@]}" 2>/dev/null || true)
python -m pytest -q -s -p no:cacheprovider tests/compose/monitoring
for id in $old_ids; do
  if [ -z "$(docker image inspect -f '{{join .RepoTags ","}}' "$id" 2>/dev/null)" ]; then
    docker rmi "$id" >/dev/null 2>&1 || true
  fi
done
echo "monitoring profile: $(($(date +%s) - m0)) s"
docker image ls --format 'table {{.Repository}}:{{.Tag}}\t{{.Size}}' | grep -E '^(REPOSITORY|fox-avatar/(prometheus|nginx-exporter|mtail|blackbox):)'
memory_use

step "docker compose down -v leaves nothing behind"
COMPOSE_PROFILES=monitoring docker compose down -v --remove-orphans --timeout 5 >/dev/null 2>&1
left=$(docker ps -a -q --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME"
       docker volume ls -q --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME"
       docker network ls -q --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME")
if [ -n "$left" ]; then echo "left behind after down -v: $left" >&2; exit 1; fi
echo "nothing left"
