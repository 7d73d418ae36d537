#!/bin/bash
# The monitoring profile's Prometheus start: the probe's two targets, for the first name of
# AVATAR_TLS_NAMES (the name Nginx's certificate carries: the probe's TLS server name and Host), into
# /run/fox-avatar/probe-targets.yml, which monitoring/compose/prometheus.yml reads; then Prometheus.
# Behind the owner's proxy (AVATAR_TLS=off) Nginx has no HTTPS port: the probe asks its HTTP port
# (the 302 and the picture; the proxy's certificate is the proxy's to watch).
set -euo pipefail
read -r name _ <<<"${AVATAR_TLS_NAMES:-}"
[[ $name =~ ^[A-Za-z0-9.:*-]+$ ]] \
  || { echo "prometheus-entrypoint: AVATAR_TLS_NAMES: no name to probe: '${AVATAR_TLS_NAMES:-}'" >&2; exit 2; }
name=${name/#\*./probe.}   # a wildcard's name: one name under it
url=https://nginx:8443/
[[ ${AVATAR_TLS:-on} == off ]] && url=http://nginx:8080/
{
  echo "# Generated at each start by prometheus-entrypoint from AVATAR_TLS_NAMES: not to be edited."
  for module in fox_avatar_redirect fox_avatar_image; do
    printf -- '- targets: ["%s"]\n  labels: {module: %s, __param_hostname: "%s"}\n' "$url" "$module" "$name"
  done
} >/run/fox-avatar/probe-targets.yml
exec /usr/bin/prometheus "$@"
