#!/bin/bash
# The app's addresses in Nginx's upstream (compose; a Swarm's Nginx asks AVATAR_APP_RESOLVER
# itself): /run/nginx/upstream/app.conf, one server line per address of "app", written now and kept
# current by a loop beside Nginx that reloads it when they change. So compose may start, recreate
# or scale the app without touching Nginx; with no address, the fallback answers.
set -euo pipefail
[[ -z ${AVATAR_APP_RESOLVER:-} ]] || exit 0
servers() {
  local addresses address
  addresses=$(timeout 1 getent ahosts app | awk '{ print $1 }' | sort -u) || true
  [[ -n $addresses ]] || { echo "server 127.0.0.1:$APP_PORT down;   # no app yet: the fallback answers"; return; }
  while read -r address; do
    if [[ $address == *:* ]]; then echo "server [$address]:$APP_PORT;"; else echo "server $address:$APP_PORT;"; fi
  done <<<"$addresses"
}
write() { printf '%s\n' "$1" >/run/nginx/upstream/.new && mv -f /run/nginx/upstream/.new /run/nginx/upstream/app.conf; }
mkdir -p /run/nginx/upstream
applied=$(servers)
write "$applied"
(
  set +e
  while sleep 1; do
    now=$(servers)
    [[ $now != "$applied" ]] && write "$now" && nginx -s reload 2>/dev/null || continue
    applied=$now
    echo "nginx-entrypoint: app: $(grep -c -v down <<<"$now") address(es), Nginx reloaded" >&2
  done
) </dev/null &
