# shellcheck shell=bash
# tools/docker/compose.sh - compose v2, Debian 13's docker-compose package.
# Sourced by tools/docker.sh (its header: what every function promises; its helpers _dk_*); not on its own.
#
#   compose_v2_ready
#       Returns if `docker compose version` is v2. Else installs Debian 13's docker-compose package's
#       binary (one static Go binary needing only libc6, taken from a debian:trixie-slim container) as
#       /usr/local/lib/docker/cli-plugins/docker-compose.

compose_v2_ready() {
  _dk_compose_ok && return 0
  _dk_locked compose _dk_compose_install
}
# v2.x; "dev" = a v2 built from source without version stamp (compose v1 is no CLI plugin)
_dk_compose_ok() { docker compose version --short 2>/dev/null | grep -Eq '^(v?2\.|dev$)'; }
_dk_compose_install() {
  _dk_compose_ok && return 0
  base_image_ready debian:trixie-slim trixie || return 1
  local tmp; tmp=$(mktemp -d)
  _dk_log "installing Debian 13's docker-compose package (compose v2) from debian:trixie-slim"
  if docker run --rm -v "$tmp:/out" debian:trixie-slim sh -c \
       'apt-get update -qq && apt-get install -y -qq --no-install-recommends docker-compose >/dev/null &&
        cp "$(dpkg -L docker-compose | grep "/cli-plugins/docker-compose$")" /out/docker-compose' >"$tmp.log" 2>&1 \
     && [ -x "$tmp/docker-compose" ]; then
    install -D -m 0755 "$tmp/docker-compose" /usr/local/lib/docker/cli-plugins/docker-compose
  else
    _dk_log "Debian 13's docker-compose package could not be fetched: $(tail -n 1 "$tmp.log")"
  fi
  rm -rf "$tmp" "$tmp.log"
  _dk_compose_ok || _dk_die "docker compose v2 is not usable after installing Debian 13's package"
}
