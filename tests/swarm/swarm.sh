# shellcheck shell=bash
# tests/swarm/swarm.sh - a three-node Docker Swarm on this machine, for tests/swarm/run.sh (sourced,
# after tools/docker.sh). The recipe: Docker-in-Docker nodes of Debian's own docker.io, a registry of
# Debian's docker-registry package (../shared/TESTING-HERE.md, section 11 on the machines it was made on).
#
#   swarm_images_ready              the node images local/fox-swarm-node:bookworm-TAG (Debian 12's docker.io
#                                   20.10, engine and CLI) and :trixie-TAG (Debian 13's docker.io and
#                                   docker-cli 26.1), and local/fox-swarm-registry:TAG; built once
#   swarm_registry_ready            the registry image alone (Debian 13's docker-registry; built once),
#                                   its name printed (tests/release/run.sh runs one too)
#   swarm_node_run NAME HOST SUITE NET   starts node container NAME (hostname HOST) on NET, waits for its engine
#   swarm_node_ip NAME NET          its address on NET
#
# Nothing here is --privileged (this machine's bounding set lacks CAP_SYS_RESOURCE): every capability
# but that one, no seccomp/AppArmor/SELinux confinement, the host's cgroup tree (cgroup v1 here) and a
# cgroup parent of its own per node, and the kernel's IPv6 knobs writable (overlay networks set them).

: "${SWARM_IMAGE_TAG:=2}"
_SWARM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

_swarm_build() { # IMAGE DOCKERFILE [build args...]
  local image=$1 file=$2; shift 2
  docker image inspect "$image" >/dev/null 2>&1 && return 0
  echo "swarm.sh: building $image" >&2
  nice docker build -q -t "$image" -f "$_SWARM_DIR/$file" "$@" "$_SWARM_DIR" >/dev/null \
    || { echo "swarm.sh: cannot build $image (apt in a container)" >&2; return 1; }
}

swarm_images_ready() {
  base_image_ready debian:trixie-slim trixie && base_image_ready debian:bookworm-slim bookworm || return 1
  _swarm_build "local/fox-swarm-node:bookworm-$SWARM_IMAGE_TAG" node.Dockerfile \
      --build-arg SUITE=bookworm --build-arg PACKAGES="docker.io iptables ca-certificates" &&
  _swarm_build "local/fox-swarm-node:trixie-$SWARM_IMAGE_TAG" node.Dockerfile --build-arg SUITE=trixie &&
  swarm_registry_ready >/dev/null
}

# The registry image alone (make test-release uses it too); prints its name.
swarm_registry_ready() {
  base_image_ready debian:trixie-slim trixie \
    && _swarm_build "local/fox-swarm-registry:$SWARM_IMAGE_TAG" registry.Dockerfile \
    && echo "local/fox-swarm-registry:$SWARM_IMAGE_TAG"
}

swarm_node_run() { # NAME HOST SUITE NET
  local name=$1 host=$2 suite=$3 net=$4 i
  docker run -d --name "$name" --hostname "$host" --network "$net" \
    --cap-add ALL --cap-drop SYS_RESOURCE --security-opt seccomp=unconfined \
    --security-opt apparmor=unconfined --security-opt label=disable --security-opt systempaths=unconfined \
    -e DOCKER_ALLOW_IPV6_ON_IPV4_INTERFACE=1 --cgroupns=host -v /sys/fs/cgroup:/sys/fs/cgroup:rw \
    "local/fox-swarm-node:$suite-$SWARM_IMAGE_TAG" --cgroup-parent="/$name" >/dev/null || return 1
  for ((i = 0; i < 60; i++)); do
    docker exec "$name" docker info >/dev/null 2>&1 && return 0
    sleep 1
  done
  docker logs --tail 20 "$name" >&2
  echo "swarm.sh: the engine of node $name did not answer within 60 s" >&2
  return 1
}

swarm_node_ip() { # NAME NET
  docker inspect -f "{{(index .NetworkSettings.Networks \"$2\").IPAddress}}" "$1"
}
