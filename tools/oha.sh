# shellcheck shell=bash
# tools/oha.sh - oha (crates.io, pinned) built with HTTP/3: the bench's load for the Debian 13 full stack,
# whose h2load has no HTTP/3. `. tools/oha.sh; oha_ready` builds it once per machine under a lock (cargo
# from rustup, cmake, a C compiler; ~7-13 min) and exports BENCH_OHA.
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
  export BENCH_OHA="$root/bin/oha"
}
