# The monitoring profile's Prometheus (Debian 13's package; its classic UI). Its configuration and
# the alerts are mounted read-only by docker-compose.yml; the probe's targets are written at start
# (monitoring/compose/prometheus-entrypoint.sh). Build context: the repository root.
FROM debian:trixie-slim
# The package's own user, by number: a runtime can tell it is not root.
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && [ "$(id -u prometheus):$(id -g prometheus)" = 100:101 ] \
 && install -d -o prometheus -g prometheus -m 0750 /prometheus
COPY monitoring/compose/prometheus-entrypoint.sh /usr/local/bin/prometheus-entrypoint
USER 100:101
EXPOSE 9090
VOLUME ["/prometheus"]
HEALTHCHECK --interval=5s --timeout=3s --start-period=30s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/9090 && printf 'GET /-/healthy HTTP/1.0\\r\\n\\r\\n' >&3 && IFS= read -r -t 2 s <&3 && [[ $s == HTTP/1.?' 200 '* ]]"]
ENTRYPOINT ["/usr/local/bin/prometheus-entrypoint", "--web.listen-address=:9090", "--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]
