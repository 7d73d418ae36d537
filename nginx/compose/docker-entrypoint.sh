#!/bin/bash
# fox-avatar Nginx container start (docker compose, the Swarm stack), in the official Nginx image's
# form (its docker-entrypoint.sh): when the command is Nginx serving, the files of
# /docker-entrypoint.d/ run in order, one job each: an executable *.envsh is sourced (it checks or
# computes values and exports them for the scripts after it: computed once), an executable *.sh is
# run; then the command (nginx, PID 1, in the foreground). Any other command (`nginx -V`, `bash`,
# ...) runs as it is, with no setting needed. A file that fails stops the start: it has said why in
# one line, "nginx-entrypoint: ...", naming the setting (exit 2).
#
#   10-settings.envsh   the settings (AVATAR_*): each there and well-formed, exported in normal form;
#                       where the certificate comes from (NGINX_TLS_DIR)
#   15-connections.sh   Nginx's workers, their connections and open files, sized for this
#                       container's CPUs, memory and AVATAR_NGINX_CONNECTIONS
#   20-certificate.sh   Swarm secrets checked, or yours in /etc/nginx/tls, or the self-signed one
#                       made and kept there
#   30-site.sh          the site file, rendered from the mounted image set and the settings
#   40-app-pool.sh      the app's addresses in Nginx's upstream, kept current by a loop beside Nginx
#   50-certificate-renewal.sh  the certificate kept current by a loop beside Nginx (renewed, or
#                       replaced by you: Nginx reloaded)
#
# Source: nginx/compose/ (this file, entrypoint.d/); nginx/README.md, "Compose".
set -euo pipefail

# serving: the command is nginx (Debian builds no nginx-debug, the official image's other name),
# and not one of its options that only print and exit (-v, -V, -h, -?: they read no configuration).
# `nginx -t` and `-T` test the configuration: the site file must be rendered for them too.
serving() {
  [[ ${1:-} == nginx ]] || return 1
  local arg
  for arg in "${@:2}"; do
    case $arg in -v | -V | -h | '-?') return 1 ;; esac
  done
}

if serving "$@"; then
  for file in /docker-entrypoint.d/*; do
    [[ -f $file && -x $file ]] || continue
    # shellcheck source=/dev/null
    case $file in
      *.envsh) . "$file" ;;
      *.sh) "$file" || exit $? ;;
    esac
  done
fi
exec "$@"
