# fox-avatar monitoring profile: Debian 13's mtail (3.0.9) on debian:trixie-slim, with the shared
# program monitoring/mtail/fox-avatar.mtail (mounted read-only by docker-compose.yml at
# /etc/fox-avatar/mtail). docker-compose.yml runs it in the Nginx container's network namespace
# (network_mode: service:nginx): Nginx sends its fallback feed to 127.0.0.1 (ports.env's
# NGINX_FALLBACK_FEED_PORT, over UDP; nginx/compose/entrypoint.d/30-site.sh, avatar_fallback_syslog);
# Prometheus scrapes it at nginx (ports.env's MTAIL_PORT; job fox-avatar-mtail). Build context: the
# repository root.
FROM debian:trixie-slim

# DL3008: see monitoring/compose/prometheus.Dockerfile.
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends mtail \
 && apt-get clean && rm -rf /var/lib/apt/lists/*

RUN [ "$(id -u mtail):$(id -g mtail)" = 100:101 ] \
 || { echo "mtail is $(id -u mtail):$(id -g mtail), not 100:101: change USER below" >&2; exit 1; }
# The package's own user, mtail (100:101 in this image; numeric, so that a runtime can tell it is
# not root without the image's /etc/passwd; the build stops if the package ever picks another).
# The ports (ENTRYPOINT and HEALTHCHECK below source it): ports.env, their one owner.
COPY ports.env /usr/local/lib/fox-avatar/ports.env
# No capability needed (unprivileged ports).
USER 100:101
# ports.env's MTAIL_PORT and NGINX_FALLBACK_FEED_PORT over UDP (EXPOSE cannot read a file:
# tests/docs/test_fact_copies.py checks them).
EXPOSE 3903 5140/udp

# Healthy: Nginx's stub_status answers 200 in this namespace, and mtail's own status page answers 200.
# The first fails when Nginx's container restarted or was recreated under it (a restart, after a
# crash, gives Nginx a new network namespace; this container stays in the old one, blind): the
# check then stops this container's main process (SIGTERM to PID 1), and the restart policy
# (docker-compose.yml: unless-stopped) starts it again in Nginx's current namespace.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["bash", "-c", ". /usr/local/lib/fox-avatar/ports.env || exit 1; if ! (exec 3<>/dev/tcp/127.0.0.1/$NGINX_STATUS_PORT && printf 'GET /stub_status HTTP/1.0\\r\\n\\r\\n' >&3 && IFS= read -r -t 2 s <&3 && [[ $s == HTTP/1.?' 200 '* ]]); then kill -TERM 1; exit 1; fi; exec 3<>/dev/tcp/127.0.0.1/$MTAIL_PORT && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && IFS= read -r -t 2 s <&3 && [[ $s == HTTP/1.?' 200 '* ]]"]

# The ports from ports.env, through bash, which execs mtail (PID 1, its own signals); CMD's flags
# follow them. -emit_prog_label=false: no "prog" label on the series (docs/monitoring.md); logs to the
# container's output.
ENTRYPOINT ["bash", "-c", ". /usr/local/lib/fox-avatar/ports.env && exec /usr/bin/mtail -logs udp://127.0.0.1:$NGINX_FALLBACK_FEED_PORT -port $MTAIL_PORT \"$@\"", "mtail"]
CMD ["-progs", "/etc/fox-avatar/mtail", "-emit_prog_label=false", "-logtostderr"]
