# fox-avatar monitoring profile: Prometheus (docker compose --profile monitoring; docs/monitoring.md
# "With compose"). Debian 13's prometheus package (2.53) on debian:trixie-slim; its configuration
# (monitoring/compose/prometheus.yml) and the alerts (monitoring/prometheus/fox-avatar.rules.yml)
# are mounted read-only by docker-compose.yml, not copied: edit them and restart, no rebuild.
# Build context: the repository root. One image per component (monitoring/README.md says why).
FROM debian:trixie-slim

# prometheus brings promtool (a dependency of the package) and its classic web UI (/classic/graph,
# where / leads): Debian ships no React UI (/usr/share/prometheus/install-ui.sh would download it).
# DL3008 (pin apt versions): the release is pinned by the base tag; Debian mirrors keep only the
# current version of each package, so a pinned version would break the build at the next
# security update (nginx/Dockerfile does the same).
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 # the data directory: compose mounts a named volume here, which takes this owner and mode
 && install -d -o prometheus -g prometheus -m 0750 /prometheus

RUN [ "$(id -u prometheus):$(id -g prometheus)" = 100:101 ] \
 || { echo "prometheus is $(id -u prometheus):$(id -g prometheus), not 100:101: change USER below" >&2; exit 1; }
# The package's own user, prometheus (100:101 in this image; numeric, so that a runtime can tell it is
# not root without the image's /etc/passwd; the build stops if the package ever picks another).
# The ports (ENTRYPOINT and HEALTHCHECK below source it): ports.env, their one owner.
COPY ports.env /usr/local/lib/fox-avatar/ports.env
# No capability needed (an unprivileged port).
USER 100:101
# ports.env's PROMETHEUS_PORT (EXPOSE cannot read a file: tests/docs/test_fact_copies.py checks it).
EXPOSE 9090
VOLUME ["/prometheus"]

# /-/healthy must answer 200: bash's /dev/tcp, no curl in the image.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["bash", "-c", ". /usr/local/lib/fox-avatar/ports.env && exec 3<>/dev/tcp/127.0.0.1/$PROMETHEUS_PORT && printf 'GET /-/healthy HTTP/1.0\\r\\n\\r\\n' >&3 && IFS= read -r -t 2 status <&3 && [[ $status == HTTP/1.?' 200 '* ]]"]

# The listen port from ports.env, through bash, which execs Prometheus (PID 1, its own signals);
# CMD's flags follow it.
ENTRYPOINT ["bash", "-c", ". /usr/local/lib/fox-avatar/ports.env && exec /usr/bin/prometheus --web.listen-address=:$PROMETHEUS_PORT \"$@\"", "prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]
