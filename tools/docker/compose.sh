# shellcheck shell=bash
# tools/docker/compose.sh - compose v2 (Debian 13's docker-compose package, or built from its Go module).
# Sourced by tools/docker.sh (its header: what every function promises; its helpers _dk_*); not on its own.
#
#   compose_v2_ready
#       Returns if `docker compose version` is v2. Else installs Debian 13's docker-compose package's
#       binary (compose 2.26, taken from a debian:trixie-slim container) as
#       /usr/local/lib/docker/cli-plugins/docker-compose; if that cannot be fetched, or with
#       COMPOSE_FROM=go, builds compose COMPOSE_VERSION (v2.29.7) from its Go module instead.
#       Needs Go >= 1.21 for that (Debian 12's golang-go is 1.19: it says so and fails; Pebble needs 1.24).

compose_v2_ready() {
  _dk_compose_ok && return 0
  _dk_locked compose _dk_compose_build
}
# v2.x; "dev" = a v2 built from source without version stamp (compose v1 is no CLI plugin)
_dk_compose_ok() { docker compose version --short 2>/dev/null | grep -Eq '^(v?2\.|dev$)'; }
_dk_compose_build() {
  _dk_compose_ok && return 0
  if [ "${COMPOSE_FROM:-debian}" != go ] && _dk_compose_from_debian; then return 0; fi
  _dk_go_ready 21 || return 1
  local tmp; tmp=$(mktemp -d)
  _dk_log "building docker compose $COMPOSE_VERSION from its Go module (once per machine, ~2-4 min)"
  if ! GOFLAGS=-mod=mod GOBIN="$tmp" nice go install \
       -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" \
       "github.com/docker/compose/v2/cmd@$COMPOSE_VERSION"; then
    rm -rf "$tmp"; _dk_die "go install github.com/docker/compose/v2/cmd@$COMPOSE_VERSION failed"; return 1
  fi
  install -D -m 0755 "$tmp/cmd" /usr/local/lib/docker/cli-plugins/docker-compose
  rm -rf "$tmp"
  _dk_compose_ok || _dk_die "docker compose still not usable after installing /usr/local/lib/docker/cli-plugins/docker-compose"
}

# Debian 13's docker-compose package (compose v2, one static Go binary needing only libc6), taken
# from a debian:trixie-slim container: seconds, where building it from Go takes a fresh 2-core
# machine 3-10 minutes of CPU.
_dk_compose_from_debian() {
  base_image_ready debian:trixie-slim trixie || return 1
  local tmp; tmp=$(mktemp -d)
  _dk_log "installing Debian 13's docker-compose package (compose v2) from debian:trixie-slim"
  if docker run --rm -v "$tmp:/out" debian:trixie-slim sh -c \
       'apt-get update -qq && apt-get install -y -qq --no-install-recommends docker-compose >/dev/null &&
        cp "$(dpkg -L docker-compose | grep "/cli-plugins/docker-compose$")" /out/docker-compose' >"$tmp.log" 2>&1 \
     && [ -x "$tmp/docker-compose" ]; then
    install -D -m 0755 "$tmp/docker-compose" /usr/local/lib/docker/cli-plugins/docker-compose
  else
    _dk_log "Debian 13's docker-compose package could not be fetched ($(tail -n 1 "$tmp.log")); building from Go"
  fi
  rm -rf "$tmp" "$tmp.log"
  _dk_compose_ok
}
