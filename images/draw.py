#!/usr/bin/env python3
"""Draw the fox avatar set: Renard-1.png ... Renard-21.png.

    python3 images/draw.py [OUTDIR]        (default: the directory of this script)

Flat-vector foxes drawn with Pillow at 4x and downsampled (LANCZOS) for
anti-aliasing, stored as 256-colour palette PNGs. Every variation comes from
the fixed FOXES table (drawing/traits.py) (the "random" backgrounds use a fixed-seed LCG),
so the output is deterministic: same Pillow version -> byte-identical PNGs (no
timestamps, no metadata). images/draw.sh runs this, then optipng.

To change the set: edit FOXES in drawing/traits.py (add a row = a new Renard-N.png), run
`make images`, look at the result, commit images/ and docs/foxes.png.

Coordinates are in a 0..100 design space (x right, y down); the fox is
symmetric about x = 50 and stays inside the inscribed circle, so avatars
cropped to a circle still show the whole fox. The drawing lives in drawing/:
geometry.py (design space, paths, canvas), traits.py (FURS and the FOXES
table), background.py (patterns) and fox.py (the fox, its faces, accessories).
"""
import os
import sys

from PIL import Image

from drawing.background import background
from drawing.fox import draw_fox
from drawing.geometry import Canvas, fox_space, rgb
from drawing.traits import FOXES, FURS


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
    out = argv[1] if len(argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    for i in range(1, len(FOXES) + 1):
        # 256-colour palette: flat art needs ~2000 colours only at edges, so the error is
        # invisible (mean < 0.5/255) and the served files are half the size of RGB PNGs.
        # Plain PNG: no text chunks, no timestamp (optipng recompresses it).
        im = render(i, 256).quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        im.save(os.path.join(out, f"Renard-{i}.png"), compress_level=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
