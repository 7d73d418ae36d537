# A swarm node for make test-swarm: Debian's own Docker engine in a container (Docker-in-Docker from
# Debian packages; no docker:dind image can be pulled). SUITE=bookworm: Debian 12's docker.io 20.10
# (engine and CLI in one package); SUITE=trixie: Debian 13's docker.io and docker-cli (26.1).
# Run with the flags of tests/swarm/swarm.sh (node_run); TESTING-HERE's section 11 is the recipe.
ARG SUITE=trixie
FROM debian:${SUITE}-slim
ARG PACKAGES="docker.io docker-cli iptables ca-certificates"
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $PACKAGES \
 && rm -rf /var/lib/apt/lists/*
# The test's registry, by its name on the test network, over plain HTTP.
RUN mkdir -p /etc/docker \
 && printf '%s\n' '{"insecure-registries":["registry:5000"],"storage-driver":"overlay2"}' >/etc/docker/daemon.json
# overlay2 must not sit on the outer engine's overlay file system
VOLUME /var/lib/docker
ENTRYPOINT ["dockerd", "--host=unix:///var/run/docker.sock"]
