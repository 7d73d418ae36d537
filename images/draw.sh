#!/usr/bin/env bash
# Regenerate the fox avatar set: draw (images/draw.py), optimise losslessly
# (optipng), then refresh the README's contact sheet (docs/foxes.png). Nginx's
# image map and fallback are rendered from the set at deployment (nginx/render.py).
#
#   images/draw.sh [OUTDIR]     default: images/ (what `make images` runs)
#
# Deterministic: the same pinned Pillow and optipng produce byte-identical files
# (tests/images/test_images.py checks the committed set against a fresh run).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out=${1:-$here}
mkdir -p "$out"
out=$(cd "$out" && pwd)

source "$root/tools/venv.sh"      # pinned Pillow (tools/requirements.txt)
source "$root/tools/apt.sh"
command -v optipng >/dev/null || apt_need optipng

# Build in a scratch dir, then swap in: a live Nginx never serves a half-written
# image, and fox files no longer in the table do not linger.
tmp=$(mktemp -d "$out/.draw.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
python3 "$here/draw.py" "$tmp"
optipng -quiet -o2 -strip all "$tmp"/*.png
for f in "$out"/Renard-*.png; do
  [ -e "$f" ] && [ ! -e "$tmp/$(basename "$f")" ] && rm -f "$f"
done
for f in "$tmp"/*.png; do
  cmp -s "$f" "$out/$(basename "$f")" || mv -f "$f" "$out/"   # keep mtimes when unchanged
done

# The README's contact sheet follows the image set (only for the real set).
if [ "$out" = "$here" ]; then
  python3 "$here/contact-sheet.py" "$root/docs/foxes.png" 112 "$out"
  optipng -quiet -o2 -strip all "$root/docs/foxes.png"
fi

echo "images: $(ls "$out"/Renard-*.png | wc -l) foxes in $out ($(du -cb "$out"/Renard-*.png | tail -1 | cut -f1) bytes)"
