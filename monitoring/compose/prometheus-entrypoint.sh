#!/bin/bash
# The monitoring profile's Prometheus start: the probe's two targets, for the first name of
# AVATAR_TLS_NAMES (the name Nginx's certificate carries: the probe's TLS server name and Host), into
# /run/fox-avatar/probe-targets.yml, which monitoring/compose/prometheus.yml reads; then Prometheus.
set -euo pipefail
read -r name _ <<<"${AVATAR_TLS_NAMES:-}"
[[ $name =~ ^[A-Za-z0-9.:*-]+$ ]] \
  || { echo "prometheus-entrypoint: AVATAR_TLS_NAMES: no name to probe: '${AVATAR_TLS_NAMES:-}'" >&2; exit 2; }
name=${name/#\*./probe.}   # a wildcard's name: one name under it
{
  echo "# Generated at each start by prometheus-entrypoint from AVATAR_TLS_NAMES: not to be edited."
  for module in fox_avatar_redirect fox_avatar_image; do
    printf -- '- targets: ["https://nginx:8443/"]\n  labels: {module: %s, __param_hostname: "%s"}\n' "$module" "$name"
  done
} >/run/fox-avatar/probe-targets.yml
exec /usr/bin/prometheus "$@"
