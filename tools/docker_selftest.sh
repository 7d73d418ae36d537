#!/usr/bin/env bash
# Self-test of tools/docker.sh on this machine: runs the functions the test layers use (building what
# is missing; not the bench's trixie_nginx_ready and trixie_jdks_ready, apt_cache_ready only with APT_CACHE=1),
# then boots one systemd host per suite, installs nginx in it with apt, and checks that nginx is
# active and answers over HTTP from the Docker host. Prints the time of each step. Exit 0 = all good.
#   bash tools/docker_selftest.sh            (APT_CACHE=1 to route the hosts' apt via apt_cache_ready)
set -euo pipefail
. "$(dirname "$0")/docker.sh"
apt_need curl

step() { # LABEL CMD...
  local t0=$SECONDS
  "${@:2}" || { echo "selftest: FAILED: $1" >&2; exit 1; }
  echo "selftest: $1: ok ($((SECONDS - t0)) s)" >&2
}
net=fox-selftest hosts=()
cleanup() { systemd_host_rm "${hosts[@]}"; docker network rm "$net" >/dev/null 2>&1 || true; }
trap cleanup EXIT

step docker_engine_ready docker_engine_ready
step compose_v2_ready compose_v2_ready
step "base_image_ready debian:bookworm-slim" base_image_ready debian:bookworm-slim bookworm
step "systemd_image_ready bookworm" systemd_image_ready bookworm
step "systemd_image_ready trixie" systemd_image_ready trixie
step trixie_client_ready trixie_client_ready >/dev/null
step pebble_ready pebble_ready >/dev/null
certs=$(pebble_certs_dir)
test -f "$certs/pebble.minica.pem" && test -f "$certs/localhost/cert.pem" && test -f "$certs/localhost/key.pem"
if [ "${APT_CACHE:-0}" = 1 ]; then step apt_cache_ready apt_cache_ready >/dev/null; fi

nginx_works() { # HOST
  docker exec "$1" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null 2>&1' \
    && [ "$(docker exec "$1" systemctl is-active nginx)" = active ] \
    && [ "$(curl -sS -o /dev/null -w '%{http_code}' "http://$(systemd_host_ip "$1" "$net")/")" = 200 ]
}
for suite in bookworm trixie; do
  hosts+=("fox-selftest-$suite")
  step "systemd_host_run $suite" systemd_host_run "fox-selftest-$suite" "$suite" "$net"
  step "nginx installed and active on $suite" nginx_works "fox-selftest-$suite"
done
echo "selftest: all passed" >&2
