#!/usr/bin/env bash
# Regenerate the fox avatar set: draw every fox at every ladder size in every format
# (images/draw.py, images/encode.py), optimise the PNGs losslessly (optipng), name the files
# by content and list them (the image set's owner, imageset: a/Renard-N-SIZE.HASH.EXT,
# the legacy Renard-N.png, manifest.tsv with its variants record), draw the keyed identities
# (images/identities.py: i/HASH/, not committed), then refresh the README's contact sheet (docs/foxes.png).
#
#   images/draw.sh [OUTDIR] [--no-identities]     default: images/ (what `make images` runs)
#
# Deterministic: the same pinned Pillow and optipng produce byte-identical files
# (tests/images/test_images.py checks the committed set against a fresh run).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
identities=1
[ "${2:-}" != --no-identities ] || identities=0
out=${1:-$here}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# pinned Pillow alone, in a venv of its own (.venv-images; docs/own-pictures.md): no test tool
FOX_VENV_DIR=.venv-images FOX_VENV_REQUIREMENTS=images/requirements.txt source "$root/tools/venv.sh"
source "$root/tools/apt.sh"
command -v optipng >/dev/null || apt_need optipng

# Build in a scratch dir, then swap in: a live Nginx never serves a half-written
# image, and files no longer made do not linger.
tmp=$(mktemp -d "$out/.draw.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
python3 "$here/draw.py" "$tmp"
optipng -quiet -o2 -strip all "$tmp"/*.png
imageset() { PYTHONPATH="$root" python3 -m imageset "$@"; }
summary=$(imageset write "$tmp" --variants "$(python3 "$here/identities.py" --describe)")
[ "$identities" = 0 ] || python3 "$here/identities.py" "$out"

# Swap in: new files first, then the manifest, then away with what it no longer names.
imageset swap-in "$tmp" "$out"

# The README's contact sheet follows the image set (only for the real set).
if [ "$out" = "$here" ]; then
  python3 "$here/contact-sheet.py" "$root/docs/foxes.png" 112 "$out"
  optipng -quiet -o2 -strip all "$root/docs/foxes.png"
fi

echo "images: $summary, in $out/a; $(ls "$out"/Renard-*.png | wc -l) legacy Renard-N.png; $out/manifest.tsv"
