# fox-avatar monitoring profile: Debian 13's prometheus-blackbox-exporter (0.26) on
# debian:trixie-slim, with the shared modules monitoring/blackbox/blackbox.yml (mounted read-only by
# docker-compose.yml). Prometheus scrapes it at blackbox (ports.env's BLACKBOX_PORT; job fox-avatar-probe).
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
# The ports (ENTRYPOINT and HEALTHCHECK below source it): ports.env, their one owner.
COPY ports.env /usr/local/lib/fox-avatar/ports.env
USER 100:101
# ports.env's BLACKBOX_PORT (EXPOSE cannot read a file: tests/docs/test_fact_copies.py checks it).
EXPOSE 9115

HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["bash", "-c", ". /usr/local/lib/fox-avatar/ports.env && exec 3<>/dev/tcp/127.0.0.1/$BLACKBOX_PORT && printf 'GET /-/healthy HTTP/1.0\\r\\n\\r\\n' >&3 && IFS= read -r -t 2 status <&3 && [[ $status == HTTP/1.?' 200 '* ]]"]

# The listen port from ports.env, through bash, which execs the exporter (PID 1, its own signals);
# CMD's flags follow it.
ENTRYPOINT ["bash", "-c", ". /usr/local/lib/fox-avatar/ports.env && exec /usr/bin/prometheus-blackbox-exporter --web.listen-address=:$BLACKBOX_PORT \"$@\"", "prometheus-blackbox-exporter"]
CMD ["--config.file=/etc/fox-avatar/blackbox.yml"]
