# fox-avatar monitoring profile: Debian 13's prometheus-blackbox-exporter (0.26) on
# debian:trixie-slim, with the shared modules monitoring/blackbox/blackbox.yml (mounted read-only by
# docker-compose.yml). Prometheus scrapes it at blackbox:9115 (job fox-avatar-probe).
# Build context: the repository root.
FROM debian:trixie-slim

# DL3008: see monitoring/compose/prometheus.Dockerfile.
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus-blackbox-exporter \
 && apt-get clean && rm -rf /var/lib/apt/lists/*

RUN [ "$(id -u prometheus):$(id -g prometheus)" = 100:101 ] \
 || { echo "prometheus is $(id -u prometheus):$(id -g prometheus), not 100:101: change USER below" >&2; exit 1; }
# The package's own user, prometheus (100:101 in this image; numeric, so that a runtime can tell it is
# not root without the image's /etc/passwd; the build stops if the package ever picks another).
# No capability needed: the modules probe over HTTPS only.
USER 100:101
EXPOSE 9115

HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/9115 && printf 'GET /-/healthy HTTP/1.0\\r\\n\\r\\n' >&3 && IFS= read -r -t 2 status <&3 && [[ $status == HTTP/1.?' 200 '* ]]"]

ENTRYPOINT ["/usr/bin/prometheus-blackbox-exporter"]
CMD ["--config.file=/etc/fox-avatar/blackbox.yml", "--web.listen-address=:9115"]
