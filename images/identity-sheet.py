#!/usr/bin/env python3
"""Contact sheet of keyed identities, for looking at them (not served: never write it into images/).

    python3 images/identity-sheet.py OUT.png

Rows: 16 keys (the MD5 of user1@example.org ... user16@example.org, as an app sends them) at 64 and
at 32 px; one fox in 16 of its variants at 32 px; the 64 px row as protanopes, deuteranopes and
tritanopes see it (Machado 2009).
"""
import hashlib
import os
import sys

from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
from drawing.colour import MACHADO                          # noqa: E402
from drawing.identity import VARIANTS                      # noqa: E402
from drawing.identity import raster                        # noqa: E402
from imageset import read_manifest                         # noqa: E402
from imageset.buckets import murmur2, variant_of           # noqa: E402
from imageset.contract import BUCKETS, PART                # noqa: E402

PAD, LABEL = 6, 150


def keyed(n):
    m = read_manifest(os.path.dirname(os.path.abspath(__file__)), check_files=False)
    out = []
    for i in range(1, n + 1):
        key = hashlib.md5(f"user{i}@example.org".encode()).hexdigest().encode()
        out.append((m.buckets[min(murmur2(key) // PART, BUCKETS - 1)], variant_of(key, VARIANTS)))
    return out


def simulate(im, vision):
    lin = [((c / 255) / 12.92 if c <= 10 else (((c / 255) + 0.055) / 1.055) ** 2.4) for c in range(256)]
    m = MACHADO[vision]
    out = Image.new("RGB", im.size)
    raw = im.tobytes()
    px = [(lin[raw[i]], lin[raw[i + 1]], lin[raw[i + 2]]) for i in range(0, len(raw), 3)]
    enc = lambda c: round(255 * (12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055))
    out.putdata([tuple(enc(min(1, max(0, sum(a * b for a, b in zip(row, p))))) for row in m) for p in px])
    return out


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    people = keyed(16)
    one_fox = [(1, v) for v in range(0, VARIANTS, VARIANTS // 16)]
    rows = [("16 keys, 64 px", people, 64), ("the same, 32 px", people, 32),
            ("fox 1, 16 variants, 32 px", one_fox, 32)]
    width = LABEL + 16 * (64 + PAD)
    strip64 = Image.new("RGB", (16 * (64 + PAD), 64), "white")
    for i, (f, v) in enumerate(people):
        strip64.paste(raster(f, v, 64), (i * (64 + PAD), 0))
    names = {"protan": "protanopia", "deutan": "deuteranopia", "tritan": "tritanopia"}
    sims = [(f"with {names[v]}", simulate(strip64, v)) for v in MACHADO]
    height = PAD + sum(s + PAD for _, _, s in rows) + len(sims) * (64 + PAD)
    sheet = Image.new("RGB", (width, height), "white")
    d = ImageDraw.Draw(sheet)
    font = ImageFont.load_default(size=13)
    y = PAD
    for label, items, size in rows:
        d.text((4, y + size // 2 - 7), label, fill="#333333", font=font)
        for i, (f, v) in enumerate(items):
            sheet.paste(raster(f, v, size), (LABEL + i * (64 + PAD), y))
        y += size + PAD
    for label, im in sims:
        d.text((4, y + 25), label, fill="#333333", font=font)
        sheet.paste(im, (LABEL, y))
        y += 64 + PAD
    sheet.save(argv[1], optimize=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
