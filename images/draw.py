#!/usr/bin/env python3
"""Draw the fox avatar set: Renard-N-SIZE.EXT for every fox N, ladder size and format.

    python3 images/draw.py OUTDIR

Flat-vector foxes drawn with Pillow at 4x each size and downsampled (LANCZOS)
for anti-aliasing, then written in each format of the set's contract (AVIF, WebP, palette
PNG; encode.py). Every variation comes from the fixed FOXES table (drawing/traits.py) (the
"random" backgrounds use a fixed-seed LCG), so the output is deterministic: same
Pillow version -> byte-identical files (no timestamps, no metadata).
images/draw.sh runs this into a scratch directory, then optipng, then the
image set's writer (imageset: names by content, manifest.tsv).

To change the set: edit FOXES in drawing/traits.py (add a row = a new fox), run
`make images`, look at the result, commit images/ and docs/foxes.png.

Coordinates are in a 0..100 design space (x right, y down); the fox is
symmetric about x = 50 and stays inside the inscribed circle, so avatars
cropped to a circle still show the whole fox. The drawing lives in drawing/:
geometry.py (design space, paths, canvas), traits.py (FURS and the FOXES
table), background.py (patterns) and fox.py (the fox, its faces, accessories).
"""
import os
import sys

from drawing.background import background
from drawing.fox import draw_fox
from drawing.geometry import Canvas, fox_space, rgb
from drawing.traits import FOXES, FURS
from encode import encode

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))   # imageset/
from imageset.contract import FORMATS, LADDER  # noqa: E402  (the image set's owner)


# --------------------------------------------------------------------- main --
def render(i, size):
    """Fox number i (1-based), size x size px (RGB)."""
    fur, bg, pattern, c2, expression, acc = FOXES[i - 1]
    cv = Canvas(bg, size)
    background(cv, pattern, c2, seed=i)
    fox_space(True)
    try:
        draw_fox(cv, FURS[fur], expression, acc, dark_bg=_luma(bg) < 140)
    finally:
        fox_space(False)
    return cv.result()


def _luma(h):
    r, g, b = rgb(h)
    return 0.299 * r + 0.587 * g + 0.114 * b


def main(argv):
    if len(argv) != 2:
        print("usage: draw.py OUTDIR", file=sys.stderr)
        return 2
    os.makedirs(argv[1], exist_ok=True)
    for i in range(1, len(FOXES) + 1):
        for size in LADDER:
            im = render(i, size)
            for fmt in FORMATS:
                with open(os.path.join(argv[1], f"Renard-{i}-{size}.{fmt.ext}"), "wb") as f:
                    f.write(encode(fmt, im))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
