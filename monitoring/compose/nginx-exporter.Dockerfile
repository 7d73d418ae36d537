# The monitoring profile's nginx-exporter (Debian 13's package), run in the Nginx container's
# network namespace, where Nginx's stub_status listens on 127.0.0.1:8082. Build context: the repository root.
FROM debian:trixie-slim
# The package's own user, by number: a runtime can tell it is not root.
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus-nginx-exporter \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && [ "$(id -u prometheus):$(id -g prometheus)" = 100:101 ]
USER 100:101
EXPOSE 9113
# Unhealthy once Nginx restarted under it (a new network namespace): PID 1 stopped, and the
# restart policy starts it again in Nginx's new one.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8082 && printf 'GET /stub_status HTTP/1.0\\r\\n\\r\\n' >&3 && IFS= read -r -t 2 s <&3 && [[ $s == HTTP/1.?' 200 '* ]] || { kill -TERM 1; exit 1; }"]
ENTRYPOINT ["/usr/bin/prometheus-nginx-exporter", "--nginx.scrape-uri=http://127.0.0.1:8082/stub_status", "--web.listen-address=:9113"]
