# The monitoring profile's mtail (Debian 13's package), run in the Nginx container's network
# namespace: it counts the fallback's answers Nginx sends to 127.0.0.1:5140 (UDP) with the program
# monitoring/mtail/fox-avatar.mtail, mounted read-only by docker-compose.yml. Build context: the repository root.
FROM debian:trixie-slim
# The package's own user, by number: a runtime can tell it is not root.
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends mtail \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && [ "$(id -u mtail):$(id -g mtail)" = 100:101 ]
USER 100:101
EXPOSE 3903 5140/udp
# Unhealthy once Nginx restarted under it (a new network namespace): PID 1 stopped, and the
# restart policy starts it again in Nginx's new one.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8082 && printf 'GET /stub_status HTTP/1.0\\r\\n\\r\\n' >&3 && IFS= read -r -t 2 s <&3 && [[ $s == HTTP/1.?' 200 '* ]] || { kill -TERM 1; exit 1; }"]
# -emit_prog_label=false: no "prog" label on the series
ENTRYPOINT ["/usr/bin/mtail", "-logs", "udp://127.0.0.1:5140", "-port", "3903", "-progs", "/etc/fox-avatar/mtail", "-emit_prog_label=false", "-logtostderr"]
