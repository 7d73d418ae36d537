#!/usr/bin/env python3
"""Draw the keyed identities: every fox of the set on every variant background, as a gzipped SVG
(browsers; Nginx serves it with gzip_static) and a PNG at each of SIZES (clients that list no SVG).

    python3 images/identities.py OUTDIR [--jobs=N] [--only=FOX,...]
    python3 images/identities.py --describe      # DIR:COUNT:SIZES, for the manifest's variants record

Writes OUTDIR/i/HASH/Renard-F-vV.svg.gz and Renard-F-vV-S.png (F the fox, V the variant, S in
SIZES), and the pictures of Gravatar's d=mp and d=blank: mp.svg.gz, mp-S.png (a grey fox) and
blank.svg.gz, blank-S.png (transparent); prints the summary. HASH (identity_dir) names the drawing, not the bytes: it is made
from the drawing's sources and SIZES, so the manifest can name the directory without rendering,
and a redrawn set gets new URLs. Deterministic with the pinned Pillow.
A fox is drawn once per size on a transparent layer and laid on each variant's background.
"""
import fcntl
import glob
import hashlib
import io
import os
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from PIL import Image

from drawing.geometry import Canvas
from drawing.identity import SILHOUETTE, VARIANTS, draw_silhouette, fox_layer, raster, svg
from drawing.svg import SvgCanvas, gz
from drawing.traits import FOXES
from encode import _palette

HERE = os.path.dirname(os.path.abspath(__file__))
# 64 and 256 px for embeds; 512 px (the ladder's top) for clients that download and store a larger
# picture (Discourse asks 360 px), so none gets less than it asked for.
SIZES = (64, 256, 512)
PREFIX = "Renard"


def identity_dir():
    """i/HASH: the first 10 hex digits of the SHA-256 of the drawing's sources and SIZES (not of
    this script, nor of the encoder's settings: a picture drawn the same keeps its URL)."""
    h = hashlib.sha256(repr(SIZES).encode())
    for path in sorted(glob.glob(os.path.join(HERE, "drawing", "*.py"))):
        with open(path, "rb") as f:
            h.update(f.read())
    return "i/" + h.hexdigest()[:10]


def describe():
    """DIR:COUNT:SIZES, what the manifest's variants record says (python3 -m imageset write --variants)."""
    return f"{identity_dir()}:{VARIANTS}:{','.join(map(str, SIZES))}"


def quantize(im, like=None):
    """64 colours by median cut (no visible loss on flat art at these sizes); or the palette of like,
    the same picture quantized at a smaller size. A 512 px PNG takes its 256 px one's: the same
    colours (a mean error under 1/255), where its own median cut would cost twice its drawing."""
    return im.quantize(palette=like, dither=Image.Dither.NONE) if like else _palette(im, 64)


def png(q):
    """A quantized picture's PNG, zlib at its best."""
    out = io.BytesIO()
    q.save(out, "PNG", optimize=True)
    return out.getvalue()


def defaults(out):
    """d=mp and d=blank."""
    cv = SvgCanvas(SILHOUETTE[0])
    draw_silhouette(cv)
    files = {"mp.svg.gz": gz(cv.result()),
             "blank.svg.gz": gz(b'<svg xmlns="http://www.w3.org/2000/svg" width="80" height="80"/>\n')}
    for s in SIZES:
        cv = Canvas(SILHOUETTE[0], s)
        draw_silhouette(cv)
        files[f"mp-{s}.png"] = png(quantize(cv.result()))
        blank = io.BytesIO()
        Image.new("P", (s, s), 0).save(blank, "PNG", optimize=True, transparency=0)
        files[f"blank-{s}.png"] = blank.getvalue()
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


def one_fox(job):
    out, fox = job
    sizes = {"svg.gz": 0, **{s: 0 for s in SIZES}}
    layers = {s: fox_layer(fox, s) for s in SIZES}
    for v in range(VARIANTS):
        name = os.path.join(out, f"{PREFIX}-{fox}-v{v}")
        data = gz(svg(fox, v))
        sizes["svg.gz"] = max(sizes["svg.gz"], len(data))
        with open(name + ".svg.gz", "wb") as f:
            f.write(data)
        like = None
        for s in SIZES:
            q = quantize(raster(fox, v, s, layers[s]), like if s > 256 else None)
            like = q
            data = png(q)
            sizes[s] = max(sizes[s], len(data))
            with open(f"{name}-{s}.png", "wb") as f:
                f.write(data)
    return sizes


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    opts = dict((a[2:] + "=").split("=")[:2] for a in argv[1:] if a.startswith("--"))
    if "describe" in opts:
        print(describe())
        return 0
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    final = os.path.join(args[0], identity_dir())
    os.makedirs(os.path.dirname(final), exist_ok=True)
    # One drawing at a time into OUTDIR (test layers and playbooks may start together); the lock
    # file is released when the process ends.
    lock = open(os.path.join(os.path.dirname(final), ".lock"), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    if os.path.isdir(final):
        print(f"identities: {final} is drawn already")
        return 0
    out = final + ".tmp"            # drawn aside, then renamed: Nginx never serves half a set
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    foxes = [int(x) for x in opts["only"].split(",")] if "only" in opts else range(1, len(FOXES) + 1)
    start = time.monotonic()
    largest = {}
    with ProcessPoolExecutor(int(opts.get("jobs", os.cpu_count()))) as pool:
        for sizes in pool.map(one_fox, [(out, f) for f in foxes]):
            largest = {k: max(v, largest.get(k, 0)) for k, v in sizes.items()}
    defaults(out)
    total = 0
    for n in os.listdir(out):
        os.chmod(os.path.join(out, n), 0o644)       # served: readable whatever the umask
        total += os.path.getsize(os.path.join(out, n))
    os.chmod(out, 0o755)
    os.replace(out, final)
    for old in os.listdir(os.path.dirname(final)):   # earlier drawings: Nginx redirects their names
        if old != os.path.basename(final) and not old.startswith("."):
            shutil.rmtree(os.path.join(os.path.dirname(final), old))
    print(f"identities: {len(foxes)} foxes x {VARIANTS} variants = {len(foxes) * VARIANTS} in {final}, "
          f"{len(os.listdir(final))} files, {total} bytes; largest: "
          + ", ".join(f"{k if isinstance(k, str) else f'png {k} px'} {v}" for k, v in largest.items())
          + f" bytes; {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
