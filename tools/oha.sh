# shellcheck shell=bash
# tools/oha.sh - oha, the HTTP load generator (crates.io, pinned), built with its HTTP/3 feature: the
# bench's load for the Debian 13 full stack in every protocol (bench/foxbench/candidates.py), because
# Debian 13's h2load is built without HTTP/3 (nghttp2-client is not linked with ngtcp2).
#
#   . tools/oha.sh; oha_ready        prints the binary's path and exports BENCH_OHA
#
# Idempotent: `cargo install --locked --features http3 oha@OHA_VERSION` into
# $FOX_TOOLS/oha-OHA_VERSION-http3/ once per machine (about 7 min of a 2-core machine's CPU, 13 on a
# busy one), under a lock so parallel callers build it once. Needs cargo (rustup's; Debian 12's
# rustc is too old for oha's edition), cmake and a C compiler (aws-lc-rs): it says so when missing.
# Settings: OHA_VERSION (1.16.0), FOX_TOOLS (/var/cache/fox-avatar).
: "${OHA_VERSION:=1.16.0}"
: "${FOX_TOOLS:=/var/cache/fox-avatar}"

oha_ready() {
  local root="$FOX_TOOLS/oha-$OHA_VERSION-http3"
  if [ ! -x "$root/bin/oha" ]; then
    mkdir -p "$FOX_TOOLS"
    (
      flock 8
      [ -x "$root/bin/oha" ] && exit 0
      if ! command -v cargo >/dev/null && [ -x "$HOME/.cargo/bin/cargo" ]; then PATH="$HOME/.cargo/bin:$PATH"; fi
      command -v cargo >/dev/null || { echo "oha.sh: cargo not found (install Rust with rustup)" >&2; exit 1; }
      command -v cmake >/dev/null || { . "$(dirname "${BASH_SOURCE[0]}")/apt.sh"; apt_need cmake build-essential; }
      echo "oha.sh: building oha $OHA_VERSION with HTTP/3 from crates.io (once per machine, ~7-13 min)" >&2
      nice cargo install --quiet --locked --features http3 --root "$root.tmp" "oha@$OHA_VERSION" \
        || { echo "oha.sh: cargo install oha@$OHA_VERSION failed" >&2; rm -rf "$root.tmp"; exit 1; }
      rm -rf "$root" && mv "$root.tmp" "$root"
    ) 8>"$FOX_TOOLS/.oha.lock" || return 1
  fi
  BENCH_OHA="$root/bin/oha"
  export BENCH_OHA
  echo "$BENCH_OHA"
}
