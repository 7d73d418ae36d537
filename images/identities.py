#!/usr/bin/env python3
"""Draw the keyed identities: every fox of the set on every variant background, as a gzipped SVG
(browsers; Nginx serves it with gzip_static) and a PNG at each of SIZES (clients that list no SVG).

    python3 images/identities.py OUTDIR          # what `make identities` runs (OUTDIR: images)
    python3 images/identities.py --describe      # DIR:COUNT:SIZES, for the manifest's variants record

Draws once per machine and version, into the user's cache (~/.cache/fox-avatar/i/HASH), and puts
that drawing into OUTDIR/i/HASH (hard links), removing OUTDIR's earlier drawings. A drawing holds
Renard-F-vV.svg.gz and Renard-F-vV-S.png (F the fox, V the variant, S in SIZES), and the pictures
of Gravatar's d=mp and d=blank: mp.svg.gz, mp-S.png (a grey fox) and blank.svg.gz, blank-S.png
(transparent). HASH (identity_dir) names the drawing, not the bytes: it is made from the drawing's
sources and SIZES, so the manifest can name the directory without rendering, and a redrawn set gets
new URLs. Deterministic with the pinned Pillow.
A fox is drawn once per size on a transparent layer and laid on each variant's background.
"""
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


def cache_dir():
    """Where this machine keeps each drawing it made: one drawing per version, whatever the checkout."""
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "fox-avatar")


def draw(final):
    """Draw the identities into final (aside, then renamed: a drawing in place is a whole one)."""
    out = f"{final}.{os.getpid()}.tmp"
    os.makedirs(out)
    start = time.monotonic()
    largest = {}
    with ProcessPoolExecutor() as pool:
        for sizes in pool.map(one_fox, [(out, f) for f in range(1, len(FOXES) + 1)]):
            largest = {k: max(v, largest.get(k, 0)) for k, v in sizes.items()}
    defaults(out)
    for n in os.listdir(out):
        os.chmod(os.path.join(out, n), 0o644)       # served: readable whatever the umask
    os.chmod(out, 0o755)
    try:
        os.rename(out, final)
    except OSError:                                 # another run finished first: the same files
        shutil.rmtree(out)
    print(f"identities: {len(FOXES)} foxes x {VARIANTS} variants drawn in {final}; largest: "
          + ", ".join(f"{k if isinstance(k, str) else f'png {k} px'} {v}" for k, v in largest.items())
          + f" bytes; {time.monotonic() - start:.0f} s")


def link(src, final):
    """final: src's files, hard-linked where one file system holds both (else copied)."""
    out = f"{final}.{os.getpid()}.tmp"
    try:
        shutil.copytree(src, out, copy_function=os.link)
    except OSError:
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(src, out)
    try:
        os.rename(out, final)
    except OSError:
        shutil.rmtree(out)


def main(argv):
    if argv[1:] == ["--describe"]:
        print(describe())
        return 0
    if len(argv) != 2 or argv[1].startswith("--"):
        print(__doc__, file=sys.stderr)
        return 2
    drawn = os.path.join(cache_dir(), identity_dir())
    final = os.path.join(argv[1], identity_dir())
    if not os.path.isdir(drawn):
        os.makedirs(os.path.dirname(drawn), exist_ok=True)
        draw(drawn)
    os.makedirs(os.path.dirname(final), exist_ok=True)
    if not os.path.isdir(final):
        link(drawn, final)
    for old in os.listdir(os.path.dirname(final)):   # earlier drawings: Nginx redirects their names
        if old != os.path.basename(final):
            shutil.rmtree(os.path.join(os.path.dirname(final), old), ignore_errors=True)
    print(f"identities: {final}, {len(os.listdir(final))} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
