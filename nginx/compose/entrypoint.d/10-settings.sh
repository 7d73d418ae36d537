#!/bin/bash
# The settings compose passes (docker-compose.yml sets each, with its default; .env overrides
# them): a missing or wrong one is a one-line error naming it, exit 2. The later scripts read them
# as checked here.
#   AVATAR_HTTPS_PORT      the published HTTPS port, named by the HTTP -> HTTPS redirect
#   AVATAR_IMAGES_MAX_AGE  Cache-Control max-age of the images, seconds
#   AVATAR_APP_PORT        the port of the app service (its AVATAR_PORT: the same compose setting)
#   AVATAR_TLS_NAMES       space-separated DNS names and IP addresses; the first is the subject CN
#   AVATAR_ACCESS_LOG      anonymous | full | off: what the access log records (the template's
#                          avatar_access_log_mode; docs/privacy.md)
#   AVATAR_APP_RESOLVER    optional, an IPv4 address: the DNS server Nginx asks for the app's tasks
#                          every second (docker-stack.yml: Docker's 127.0.0.11); unset (compose):
#                          "app" is resolved once, at start
set -euo pipefail

die() { echo "nginx-entrypoint: $*" >&2; exit 2; }
# need NAME: NAME's value must be set and not empty.
need() { [[ -n ${!1:-} ]] || die "$1: not set (docker-compose.yml sets it: start Nginx with compose)"; }
# tcp_port NAME: NAME must be a TCP port (1-65535).
tcp_port() {
  need "$1"
  [[ ${!1} =~ ^[0-9]{1,5}$ ]] && ((10#${!1} >= 1 && 10#${!1} <= 65535)) \
    || die "$1: not a TCP port: '${!1}'"
}

tcp_port AVATAR_HTTPS_PORT
tcp_port AVATAR_APP_PORT
need AVATAR_IMAGES_MAX_AGE
[[ $AVATAR_IMAGES_MAX_AGE =~ ^[0-9]{1,9}$ ]] \
  || die "AVATAR_IMAGES_MAX_AGE: not a number of seconds (0-999999999): '$AVATAR_IMAGES_MAX_AGE'"
need AVATAR_ACCESS_LOG
[[ $AVATAR_ACCESS_LOG =~ ^(anonymous|full|off)$ ]] \
  || die "AVATAR_ACCESS_LOG: not anonymous, full or off: '$AVATAR_ACCESS_LOG'"
need AVATAR_TLS_NAMES
read -r -a names <<<"$AVATAR_TLS_NAMES"
((${#names[@]} > 0)) || die "AVATAR_TLS_NAMES: no name in '$AVATAR_TLS_NAMES'"
if [[ -n ${AVATAR_APP_RESOLVER:-} ]]; then
  [[ $AVATAR_APP_RESOLVER =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] \
    || die "AVATAR_APP_RESOLVER: not an IPv4 address: '$AVATAR_APP_RESOLVER'"
fi
