#!/usr/bin/env bash
# make test-swarm: docker-stack.yml on a real three-node Docker Swarm on this machine.
#
#  1. a Docker engine, compose v2, the Debian 12 and 13 base images (tools/docker.sh), wrk, the venv;
#     the node and registry images (tests/swarm/swarm.sh: Debian's docker.io, docker-registry; once)
#  2. the compose images fox-avatar/app:local and fox-avatar/nginx:local (`docker compose build`:
#     the ones the compose layer just built, from its cache), pushed to the test's registry as
#     release 1.0.0 (REGISTRY/fox-avatar/app:1.0.0, as `make release` names them), which the stack
#     deploys with AVATAR_REGISTRY and AVATAR_VERSION as docs/swarm.md gives them
#  3. a network of its own with the registry and three nodes: n1, the manager, on Debian 12's engine
#     (20.10), n2 and n3, workers, on Debian 13's (26.1); `docker swarm init` and `join`
#  4. tests/swarm (pytest): the stack file through each CLI, the deploy, the spread, every node's 302,
#     then updates, a drain and a killed worker under load (wrk)
#  5. everything the run made removed (nodes and their volumes, registry, network, tags), also on
#     failure (trap)
#
# Arguments go to pytest (e.g. -k 'deploys or spread'). Environment: CI=true makes a skipped test fail. FOX_COMPOSE_LOCK=FILE: step 2 under `flock FILE`
# (a machine where other runs build the same compose images). EXTRA_CA_CERTS as in the compose layer.
# SWARM_STACK_FILE=FILE: deploy FILE instead of docker-stack.yml (to see a check fail on a broken one).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
t0=$(date +%s)
step() { printf '\n== swarm: %s (%ss)\n' "$*" "$(($(date +%s) - t0))"; }

step "prerequisites"
. tools/docker.sh
docker_engine_ready
compose_v2_ready
apt_need wrk curl openssl
. tools/venv.sh
. tests/swarm/swarm.sh
swarm_images_ready

id=fox-swarm-$$
net=$id
tmp=$(mktemp -d)
nodes=("$id-n1" "$id-n2" "$id-n3")
cleanup() {
  local rc=$?
  if [ $rc -ne 0 ] && docker inspect "${nodes[0]}" >/dev/null 2>&1; then
    echo "== swarm: failed; the services' tasks:" >&2
    docker exec "${nodes[0]}" sh -c 'for s in $(docker service ls -q); do docker service ps --no-trunc $s; done' >&2 2>/dev/null || true
  fi
  docker rm -f -v "${nodes[@]}" "$id-registry" >/dev/null 2>&1 || true
  docker network rm "$net" >/dev/null 2>&1 || true
  local tags
  tags=$(docker image ls --format '{{.Repository}}:{{.Tag}}' | grep -F "127.0.0.1:${push_port:-none}/" || true)
  [ -z "$tags" ] || docker rmi $tags >/dev/null 2>&1 || true
  for n in "${nodes[@]}"; do   # the nodes' cgroup parents (their engines made them; empty now)
    find /sys/fs/cgroup/*/"$n" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
  rm -rf "$tmp"
  echo "== swarm: layer took $(($(date +%s) - t0)) s (exit $rc)"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step "network $net, registry, three nodes (n1: Debian 12's engine, n2 and n3: Debian 13's)"
docker network create "$net" >/dev/null
docker run -d --name "$id-registry" --network "$net" --network-alias registry -p 127.0.0.1::5000 \
  "local/fox-swarm-registry:$SWARM_IMAGE_TAG" >/dev/null
push_port=$(docker port "$id-registry" 5000/tcp | head -n1 | sed 's/.*://')
swarm_node_run "${nodes[0]}" n1 bookworm "$net" &
swarm_node_run "${nodes[1]}" n2 trixie "$net" &
swarm_node_run "${nodes[2]}" n3 trixie "$net" &
wait %1 && wait %2 && wait %3
for n in "${nodes[@]}"; do
  printf '%s: engine %s\n' "$n" "$(docker exec "$n" docker version -f '{{.Server.Version}}')"
done

step "docker swarm init and join"
manager_ip=$(swarm_node_ip "${nodes[0]}" "$net")
docker exec "${nodes[0]}" docker swarm init --advertise-addr "$manager_ip" >/dev/null
token=$(docker exec "${nodes[0]}" docker swarm join-token -q worker)
for n in "${nodes[@]:1}"; do
  docker exec "$n" docker swarm join --token "$token" "$manager_ip:2377" >/dev/null
done
docker exec "${nodes[0]}" docker node ls

step "the compose images, pushed to the test's registry"
export EXTRA_CA_CERTS=${EXTRA_CA_CERTS-$(cat /usr/local/share/ca-certificates/*.crt 2>/dev/null || true)}
# As `make release` names them (REGISTRY/fox-avatar/app:X.Y.Z): the stack deploys them with
# AVATAR_REGISTRY and AVATAR_VERSION (docs/swarm.md, "Install a release").
push="127.0.0.1:$push_port"
push_images() {
  COMPOSE_FILE="$root/docker-compose.yml" COMPOSE_ENV_FILES=/dev/null docker compose build -q app nginx
  for image in app nginx; do
    docker tag "fox-avatar/$image:local" "$push/fox-avatar/$image:1.0.0"
    docker push -q "$push/fox-avatar/$image:1.0.0" >/dev/null
  done
}
if [ -n "${FOX_COMPOSE_LOCK:-}" ]; then
  exec 8>"$FOX_COMPOSE_LOCK"; flock 8; push_images; flock -u 8; exec 8>&-
else
  push_images
fi

step "tests/swarm"
mkdir -p "$tmp/nginx/swarm"
cp "${SWARM_STACK_FILE:-docker-stack.yml}" "$tmp/docker-stack.yml" && cp nginx/swarm/no-certificate "$tmp/nginx/swarm/"
for n in "${nodes[@]}"; do docker cp "$tmp/." "$n:/stack" >/dev/null; done
SWARM_NODES="${nodes[*]}" SWARM_NET=$net SWARM_PUSH=$push SWARM_PULL="registry:5000" \
SWARM_TMP=$tmp \
  python -m pytest -q -s -p no:cacheprovider --durations=0 tests/swarm "$@"
