#!/usr/bin/env bash
# make test-swarm: docker-stack.yml on a real three-node Docker Swarm on this machine: n1, the
# manager, on Debian 12's engine (20.10), n2 and n3 on Debian 13's (26.1), and a registry of
# Debian's docker-registry as registry.example:5000, holding the compose images as release 1.0.0.
# Then tests/swarm (docs/swarm.md's blocks as written, HTTP/3 on every node, a rolling update).
# Everything the run made goes, also on failure. Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/../.."
t0=$(date +%s)
step() { printf '\n== swarm: %s (%ss)\n' "$*" "$(($(date +%s) - t0))"; }

step "prerequisites"
. tools/docker.sh
docker_engine_ready
compose_v2_ready
apt_need sudo openssl   # the page's certificate block copies root's files with sudo
AVATAR_TRIXIE_CLIENT=$(trixie_client_ready)
export AVATAR_TRIXIE_CLIENT
. tools/venv.sh
. tests/swarm/swarm.sh
swarm_images_ready
hadolint tests/swarm/*.Dockerfile
for v in $(compgen -v AVATAR_); do [ "$v" = AVATAR_TRIXIE_CLIENT ] || unset "$v"; done

id=fox-swarm-$$
nodes=("$id-n1" "$id-n2" "$id-n3")
cleanup() {
  local rc=$?
  if [ $rc -ne 0 ] && docker inspect "${nodes[0]}" >/dev/null 2>&1; then
    docker exec "${nodes[0]}" sh -c 'for s in $(docker service ls -q); do docker service ps --no-trunc $s; done' >&2 2>/dev/null || true
  fi
  docker rm -f -v "${nodes[@]}" "$id-registry" >/dev/null 2>&1 || true
  docker network rm "$id" >/dev/null 2>&1 || true
  docker image ls --format '{{.Repository}}:{{.Tag}}' | grep -F "127.0.0.1:${push_port:-none}/" | xargs -r docker rmi >/dev/null 2>&1 || true
  rm -rf "${FOX_SNAPSHOT:-/nonexistent}"
  for n in "${nodes[@]}"; do find /sys/fs/cgroup/*/"$n" -depth -type d -exec rmdir {} + 2>/dev/null || true; done
  echo "== swarm: layer took $(($(date +%s) - t0)) s (exit $rc)"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step "the registry and three nodes"
docker network create "$id" >/dev/null
docker run -d --name "$id-registry" --network "$id" --network-alias registry.example -p 127.0.0.1::5000 \
  "local/fox-swarm-registry:$SWARM_IMAGE_TAG" >/dev/null
push_port=$(docker port "$id-registry" 5000/tcp | head -n1 | sed 's/.*://')
swarm_node_run "${nodes[0]}" n1 bookworm "$id" &
swarm_node_run "${nodes[1]}" n2 trixie "$id" &
swarm_node_run "${nodes[2]}" n3 trixie "$id" &
wait %1 && wait %2 && wait %3
manager_ip=$(swarm_node_ip "${nodes[0]}" "$id")
docker exec "${nodes[0]}" docker swarm init --advertise-addr "$manager_ip" >/dev/null
token=$(docker exec "${nodes[0]}" docker swarm join-token -q worker)
for n in "${nodes[@]:1}"; do docker exec "$n" docker swarm join --token "$token" "$manager_ip:2377" >/dev/null; done

step "the compose images, pushed as release 1.0.0"
export EXTRA_CA_CERTS=${EXTRA_CA_CERTS-$(cat /usr/local/share/ca-certificates/*.crt 2>/dev/null || true)}
COMPOSE_ENV_FILES=/dev/null docker compose build -q app nginx
for image in app nginx; do
  docker tag "fox-avatar/$image:local" "127.0.0.1:$push_port/fox-avatar/$image:1.0.0"
  docker push -q "127.0.0.1:$push_port/fox-avatar/$image:1.0.0" >/dev/null
done

step "tests/swarm"
FOX_SNAPSHOT=$(python3 tests/lib/docblocks.py snapshot)
git -C "$FOX_SNAPSHOT" tag v1.0.0 main   # the page clones the release's tag: this tree is release 1.0.0 here
SWARM_NODES="${nodes[*]}" SWARM_NET=$id SWARM_PUSH=127.0.0.1:$push_port FOX_SNAPSHOT=$FOX_SNAPSHOT \
  python -m pytest -q -s -p no:cacheprovider tests/swarm "$@"
