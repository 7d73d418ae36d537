# The monitoring profile's blackbox_exporter (Debian 13's package) with monitoring/blackbox/blackbox.yml,
# mounted read-only by docker-compose.yml; ca-certificates: what a browser trusts, for a CA's
# certificate (monitoring/compose/blackbox-entrypoint.sh). Build context: the repository root.
FROM debian:trixie-slim
# The package's own user, by number: a runtime can tell it is not root.
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus-blackbox-exporter ca-certificates \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && [ "$(id -u prometheus):$(id -g prometheus)" = 100:101 ]
COPY monitoring/compose/blackbox-entrypoint.sh /usr/local/bin/blackbox-entrypoint
USER 100:101
EXPOSE 9115
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/9115 && printf 'GET /-/healthy HTTP/1.0\\r\\n\\r\\n' >&3 && IFS= read -r -t 2 s <&3 && [[ $s == HTTP/1.?' 200 '* ]]"]
ENTRYPOINT ["/usr/local/bin/blackbox-entrypoint", "--web.listen-address=:9115", "--config.file=/etc/fox-avatar/blackbox.yml"]
