#!/usr/bin/env bash
# Make an image set from a folder of your own pictures (what `make images SRC=DIR` runs).
#
#   images/pictures.sh SRC [OUT] [--pad]     OUT default: images/ (replaces the fox set)
#
# Renders into a scratch directory next to OUT (images/pictures.py), then swaps it in
# (images/swap-in.sh). Any refused picture: one line each, exit 1, OUT exactly as it was (not
# even created). Deterministic: the same pictures give byte-identical files (pinned Pillow).
# See docs/own-pictures.md.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
args=() pad=()
for a in "$@"; do
  case $a in --pad) pad=(--pad) ;; *) args+=("$a") ;; esac
done
if [ ${#args[@]} -lt 1 ] || [ ${#args[@]} -gt 2 ] || [ -z "${args[0]}" ]; then
  echo "usage: images/pictures.sh SRC [OUT] [--pad]   (make images SRC=DIR [OUT=DIR] [PAD=1])" >&2
  exit 2
fi
src=${args[0]}
out=${args[1]:-$here}
out=${out%/}
[ -n "$out" ] || out=/
parent=$(dirname "$out")
if [ ! -d "$parent" ]; then
  echo "pictures: OUT=$out: its parent directory $parent does not exist" >&2
  exit 1
fi
if [ -e "$out" ] && [ ! -d "$out" ]; then
  echo "pictures: OUT=$out exists and is not a directory" >&2
  exit 1
fi
started=$(date +%s.%N)

source "$root/tools/venv.sh"      # pinned Pillow (tools/requirements.txt)

# Scratch next to OUT (same file system: the swap is a rename), gone on any exit.
tmp=$(mktemp -d "$parent/.$(basename "$out").new.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
PYTHONPATH="$here" python3 "$here/pictures.py" "$src" "$tmp" "${pad[@]}"
# Readable by the servers whatever the umask (Nginx's workers, the containers' uid 33): the set is
# public anyway.
chmod -R u+rwX,go+rX,go-w "$tmp"
[ -d "$out" ] || mkdir -m 0755 "$out"
"$here/swap-in.sh" "$tmp" "$out"
out=$(cd "$out" && pwd)
echo "pictures: set in $out ($out/manifest.tsv), $(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s in all"
