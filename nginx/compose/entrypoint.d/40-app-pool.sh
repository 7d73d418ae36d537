#!/bin/bash
# The sidecars Nginx connects to, kept current (compose; not with AVATAR_APP_RESOLVER, where Nginx
# asks that DNS server itself: a Swarm). /run/nginx/upstream/app.conf, included by the site file's
# upstream avatar_app (30-site.sh renders it with avatar_upstream_pool), holds one line
# "server ADDRESS:AVATAR_APP_PORT;" per address the service name "app" has now (every replica).
# Written here, before Nginx starts; then a loop left running beside Nginx asks Docker's DNS again
# every second and, when the set of addresses changed, rewrites the file and reloads Nginx
# (graceful: no connection refused, a new keep-alive pool). So compose may recreate or scale the
# app without touching Nginx, and start both at once (docker-compose.yml: no depends_on).
# No address (the app not started yet, or stopped): a placeholder server marked down, so that
# the avatar URL gets the fallback's answer at once, until the app has one.
set -euo pipefail
[[ -z ${AVATAR_APP_RESOLVER:-} ]] || exit 0

pool=/run/nginx/upstream
port=$AVATAR_APP_PORT   # checked (and in decimal) by 10-settings.envsh

# servers: the file's lines for the addresses of "app" now, in a stable order. Docker's DNS
# answers for a running app at once; for an absent one it asks the host's DNS servers, which may
# never answer (a machine offline): one second is all a lookup gets.
servers() {
  local addresses address
  addresses=$(timeout 1 getent ahosts app | awk '{ print $1 }' | sort -u) || true
  if [[ -z $addresses ]]; then
    echo "server 127.0.0.1:$port down;   # \"app\" has no address: the fallback answers"
    return
  fi
  while read -r address; do
    if [[ $address == *:* ]]; then echo "server [$address]:$port;"; else echo "server $address:$port;"; fi
  done <<<"$addresses"
}
write() { printf '%s\n' "$1" >"$pool/.app.conf.new" && mv -f "$pool/.app.conf.new" "$pool/app.conf"; }

mkdir -p "$pool"
applied=$(servers)
write "$applied"

# The loop: a reload that fails (Nginx not up yet) is tried again the next second.
(
  set +e
  while sleep 1; do
    now=$(servers)
    [[ $now == "$applied" ]] && continue
    if write "$now" && nginx -s reload 2>/dev/null; then
      # the count only: an address of the project's network may be a client's too (docs/privacy.md)
      echo "nginx-entrypoint: app: $(grep -c '^server [^;]*[0-9];' "$pool/app.conf") address(es) now, Nginx reloaded" >&2
      applied=$now
    fi
  done
) </dev/null &
