#!/usr/bin/env python3
"""Contact sheet of the fox set (7 x 3 grid with names), for looking at them.

    python3 images/contact-sheet.py OUT.png [CELL_PX] [IMAGES_DIR]

Never write it into images/: every *.png there is served. images/draw.sh
makes the README's docs/foxes.png with CELL_PX 112.
"""
import os
import sys

from PIL import Image, ImageDraw, ImageFont

COLS, ROWS = 7, 3


def main(argv):
    if len(argv) < 2:
        print("usage: contact-sheet.py OUT.png [CELL_PX] [IMAGES_DIR]", file=sys.stderr)
        return 2
    out = argv[1]
    cell = int(argv[2]) if len(argv) > 2 else 256
    src = argv[3] if len(argv) > 3 else os.path.dirname(os.path.abspath(__file__))
    pad = max(4, cell // 16)
    label = max(10, cell // 9)
    font = ImageFont.load_default(size=label)
    sheet = Image.new("RGB", (COLS * (cell + pad) + pad, ROWS * (cell + pad + label + 2) + pad), "white")
    d = ImageDraw.Draw(sheet)
    for i in range(1, COLS * ROWS + 1):
        r, c = divmod(i - 1, COLS)
        x, y = pad + c * (cell + pad), pad + r * (cell + pad + label + 2)
        im = Image.open(os.path.join(src, f"Renard-{i}.png")).convert("RGB")
        sheet.paste(im.resize((cell, cell), Image.LANCZOS), (x, y))
        name = f"Renard-{i}"
        w = d.textlength(name, font=font)
        d.text((x + (cell - w) / 2, y + cell + 1), name, fill="#333333", font=font)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    sheet = sheet.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    sheet.save(out, optimize=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
