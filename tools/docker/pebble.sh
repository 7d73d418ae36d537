# shellcheck shell=bash
# tools/docker/pebble.sh - Pebble, the ACME test server.
# Sourced by tools/docker.sh (its header: what every function promises; its helpers _dk_*); not on its own.
#
#   pebble_ready                         installs Pebble PEBBLE_VERSION (v2.10.1) from its Go module
#       into $FOX_TOOLS/pebble-VERSION/, prints the binary path and exports PEBBLE_BIN.
#   pebble_challtestsrv_ready            installs pebble-challtestsrv (the same module and version:
#       Pebble's DNS for tests, every name to an address of one's choice) beside it, prints its path
#       and exports PEBBLE_CHALLTESTSRV_BIN.
#   pebble_certs_dir                     prints Pebble's test/certs dir in the Go module cache:
#       pebble.minica.pem (root that signed localhost/), localhost/cert.pem, localhost/key.pem
#       (SANs localhost, pebble, 127.0.0.1; valid to 2027-10). Its sample config is ../config/
#       pebble-config.json. Read-only files (Go module cache): copy them before changing modes.
#

pebble_ready() { _dk_pebble_command pebble PEBBLE_BIN; }
pebble_challtestsrv_ready() { _dk_pebble_command pebble-challtestsrv PEBBLE_CHALLTESTSRV_BIN; }

_dk_pebble_command() { # COMMAND VARIABLE: the module's cmd/COMMAND, installed once; its path printed and exported
  local bin="$FOX_TOOLS/pebble-$PEBBLE_VERSION/$1"
  if [ ! -x "$bin" ]; then
    _dk_locked pebble _dk_pebble_build "$bin" || return 1
  fi
  printf -v "$2" %s "$bin"
  export "${2?}"
  echo "$bin"
}
_dk_pebble_build() {
  local bin=$1 command
  command=${bin##*/}
  [ -x "$bin" ] && return 0
  _dk_go_ready 24 || return 1   # pebble v2.10's go.mod: go 1.24
  _dk_log "installing $command $PEBBLE_VERSION from its Go module"
  mkdir -p "$(dirname "$bin")"
  GOBIN=$(dirname "$bin") nice go install -ldflags "-X main.version=$PEBBLE_VERSION" \
      "github.com/letsencrypt/pebble/v2/cmd/$command@$PEBBLE_VERSION" \
    || _dk_die "go install github.com/letsencrypt/pebble/v2/cmd/$command@$PEBBLE_VERSION failed"
}

pebble_certs_dir() {
  _dk_go_ready 24 || return 1
  local dir
  dir=$(go mod download -json "github.com/letsencrypt/pebble/v2@$PEBBLE_VERSION" 2>/dev/null \
        | sed -nE 's/^[[:space:]]*"Dir": "(.*)",?$/\1/p')
  [ -n "$dir" ] && [ -f "$dir/test/certs/pebble.minica.pem" ] \
    || _dk_die "Pebble $PEBBLE_VERSION module has no test/certs (looked in '${dir:-?}')" || return 1
  echo "$dir/test/certs"
}
