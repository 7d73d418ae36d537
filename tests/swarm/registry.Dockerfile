# The registry of make test-swarm: Debian 13's docker-registry package, without the htpasswd auth
# block Debian's configuration turns on (a push would answer "no basic auth credentials").
FROM debian:trixie-slim
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends docker-registry \
 && rm -rf /var/lib/apt/lists/* \
 && awk '/^auth:/{skip=1; next} skip && /^[^ ]/{skip=0} !skip' /etc/docker/registry/config.yml >/tmp/c \
 && mv /tmp/c /etc/docker/registry/config.yml && cat /etc/docker/registry/config.yml
EXPOSE 5000
ENTRYPOINT ["docker-registry", "serve", "/etc/docker/registry/config.yml"]
