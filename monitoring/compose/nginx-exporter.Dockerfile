# fox-avatar monitoring profile: Debian 13's prometheus-nginx-exporter (1.4) on debian:trixie-slim.
# docker-compose.yml runs it in the Nginx container's network namespace (network_mode:
# service:nginx), where Nginx's stub_status listens on 127.0.0.1 (ports.env's NGINX_STATUS_PORT;
# nginx/compose/entrypoint.d/30-site.sh, avatar_status_listen); Prometheus scrapes it at nginx
# (ports.env's NGINX_EXPORTER_PORT; job fox-avatar-nginx).
# Build context: the repository root.
FROM debian:trixie-slim

# DL3008: see monitoring/compose/prometheus.Dockerfile.
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus-nginx-exporter \
 && apt-get clean && rm -rf /var/lib/apt/lists/*

RUN [ "$(id -u prometheus):$(id -g prometheus)" = 100:101 ] \
 || { echo "prometheus is $(id -u prometheus):$(id -g prometheus), not 100:101: change USER below" >&2; exit 1; }
# The package's own user, prometheus (100:101 in this image; numeric, so that a runtime can tell it is
# not root without the image's /etc/passwd; the build stops if the package ever picks another).
# The ports (ENTRYPOINT and HEALTHCHECK below source it): ports.env, their one owner.
COPY ports.env /usr/local/lib/fox-avatar/ports.env
# No capability needed (an unprivileged port).
USER 100:101
# ports.env's NGINX_EXPORTER_PORT (EXPOSE cannot read a file: tests/docs/test_fact_copies.py checks it).
EXPOSE 9113


# Healthy: Nginx's stub_status answers 200 in this namespace, and the exporter's landing page answers 200.
# The first fails when Nginx's container restarted or was recreated under it (a restart, after a
# crash, gives Nginx a new network namespace; this container stays in the old one, blind): the
# check then stops this container's main process (SIGTERM to PID 1), and the restart policy
# (docker-compose.yml: unless-stopped) starts it again in Nginx's current namespace.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["bash", "-c", ". /usr/local/lib/fox-avatar/ports.env || exit 1; if ! (exec 3<>/dev/tcp/127.0.0.1/$NGINX_STATUS_PORT && printf 'GET /stub_status HTTP/1.0\\r\\n\\r\\n' >&3 && IFS= read -r -t 2 s <&3 && [[ $s == HTTP/1.?' 200 '* ]]); then kill -TERM 1; exit 1; fi; exec 3<>/dev/tcp/127.0.0.1/$NGINX_EXPORTER_PORT && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && IFS= read -r -t 2 s <&3 && [[ $s == HTTP/1.?' 200 '* ]]"]

# The ports from ports.env, through bash, which execs the exporter (PID 1, its own signals); CMD's
# flags (none by default) follow them. Debian 13's flags take two dashes (Debian 12's 0.11 took one).
ENTRYPOINT ["bash", "-c", ". /usr/local/lib/fox-avatar/ports.env && exec /usr/bin/prometheus-nginx-exporter --nginx.scrape-uri=http://127.0.0.1:$NGINX_STATUS_PORT/stub_status --web.listen-address=:$NGINX_EXPORTER_PORT \"$@\"", "prometheus-nginx-exporter"]
CMD []
