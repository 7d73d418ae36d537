# A swarm node for make test-swarm: Debian's own Docker engine in a container (no docker:dind image
# can be pulled). SUITE=bookworm: Debian 12's docker.io 20.10, engine and CLI; trixie: Debian 13's 26.1.
# Run with tests/swarm/swarm.sh's flags (swarm_node_run).
ARG SUITE=trixie
FROM debian:${SUITE}-slim
ARG PACKAGES="docker.io docker-cli iptables ca-certificates"
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $PACKAGES \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /etc/docker \
 && echo '{"insecure-registries":["registry.example:5000"],"storage-driver":"overlay2"}' >/etc/docker/daemon.json
# overlay2 must not sit on the outer engine's overlay file system
VOLUME /var/lib/docker
ENTRYPOINT ["dockerd", "--host=unix:///var/run/docker.sock"]
