#!/bin/bash
# fox-avatar Nginx container start (docker compose), in the official Nginx image's form: each
# executable script of /docker-entrypoint.d/ runs in order, one job each and readable alone; then
# the command (nginx, PID 1, in the foreground). A script that fails stops the start: it has said
# why in one line, "nginx-entrypoint: ...", naming the setting (exit 2).
#
#   10-settings.sh      the settings compose passes (AVATAR_*): each there and well-formed
#   20-certificate.sh   your certificate in /etc/nginx/tls, or the self-signed one made and kept there
#   30-site.sh          the site file, rendered from the mounted image set and the settings
#   40-app-pool.sh      the app's addresses in Nginx's upstream, kept current by a loop beside Nginx
#
# Source: nginx/compose/ (this file, entrypoint.d/); nginx/README.md, "Compose".
set -euo pipefail
for script in /docker-entrypoint.d/*.sh; do
  [[ -x $script ]] || continue
  "$script" || exit $?
done
exec "$@"
