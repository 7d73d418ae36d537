#!/usr/bin/env python3
"""Render a folder of pictures into an image set (the front end for your own pictures).

    python3 images/pictures.py SRC SCRATCH [--pad] [--jobs N]

`make images SRC=DIR OUT=DIR [PAD=1]` runs this through images/pictures.sh, which gives it a fresh
SCRATCH directory next to OUT and swaps the result into OUT only when this succeeded
(images/swap-in.sh, the same swap images/draw.sh uses).

The pictures: every regular file directly in SRC whose name does not start with '.', in file-name
order (Python's string order of the names: "10.jpg" comes before "2.jpg"; number them 01, 02...).
Each is read by content (images/photo.py: JPEG, PNG, WebP, AVIF, GIF, TIFF, BMP), made square and
sRGB, stripped of all metadata, and rendered at every ladder size up to its own square side
(never upscaled) in every format, with the photo encoder profile. Then images/manifest.py's
write_set names the files by content (a/avatar-N-SIZE.HASH.EXT) and writes manifest.tsv; the
picture's stable id (what its keys hang on) is its file name without the extension, so renaming
a file moves its keys and replacing its content does not.

Every bad picture gets one line on stderr, "pictures: FILE: REASON", and the exit status is 1;
nothing is written to OUT then. Prints what it made on stdout.
"""
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from PIL import Image

from ladder import FORMATS, LADDER
from manifest import ManifestInputError, write_set
from photo import Refused, encode_photo, frames, load_square

# The set's file-name prefix: a/avatar-N-SIZE.HASH.EXT (the fox set keeps its Renard-N-...).
PREFIX = "avatar"
# At most this many pictures: the keyed pick spreads keys over 10,000 buckets (manifest v2), so a
# set of 1,000 still gives each picture about 10 buckets (about 0.1 % of the keys each, give or
# take a third); the Nginx fallback's maps grow with the set too.
MAX_PICTURES = 1000


def sources(src):
    """The picture files of src in set order, or raise Refused (one line)."""
    if not os.path.isdir(src):
        raise Refused(f"{src}: not a directory (SRC must name a folder of pictures)")
    names = sorted(n for n in os.listdir(src)
                   if not n.startswith(".") and os.path.isfile(os.path.join(src, n)))
    if not names:
        raise Refused(f"{src}: no picture in this folder (empty folder)")
    if len(names) > MAX_PICTURES:
        raise Refused(f"{src}: {len(names)} files, more than the {MAX_PICTURES} pictures a set may hold")
    return names


def stable_id(name):
    return os.path.splitext(name)[0]


def render(job):
    """One picture: (number, path, scratch, pad) -> (sizes, frames, (w, h)) or a Refused reason."""
    number, path, scratch, pad = job
    try:
        if os.path.getsize(path) == 0:
            raise Refused("empty file")
        square = load_square(path, pad=pad, largest=LADDER[-1])
        sizes = [s for s in LADDER if s <= square.width]
        for size in sizes:
            im = square if size == square.width else square.resize((size, size), Image.Resampling.LANCZOS)
            for fmt in FORMATS:
                with open(os.path.join(scratch, f"{PREFIX}-{number}-{size}.{fmt.ext}"), "wb") as f:
                    f.write(encode_photo(fmt, im))
        return sizes, frames(path), square.width
    except Refused as e:
        return str(e)
    except MemoryError:
        return "needs more memory than this machine gives (a decompression bomb?)"


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    pad = "--pad" in argv
    jobs = os.cpu_count() or 1
    for a in argv[1:]:
        if a.startswith("--jobs="):
            jobs = max(1, int(a.split("=", 1)[1]))
    if len(args) != 2:
        print("usage: pictures.py SRC SCRATCH [--pad] [--jobs=N]", file=sys.stderr)
        return 2
    src, scratch = args
    started = time.monotonic()
    try:
        names = sources(src)
    except Refused as e:
        print(f"pictures: {e}", file=sys.stderr)
        return 1
    bad = []
    ids = {}
    for name in names:
        sid = stable_id(name)
        if not sid or any(ord(c) < 32 or c == "\x7f" for c in sid):
            bad.append(f"pictures: {os.path.join(src, name)}: the file name is not usable as a picture id "
                       "(control characters); rename it")
        elif sid in ids:
            bad.append(f"pictures: {os.path.join(src, name)}: same name as {ids[sid]} but for the extension "
                       "(the name without extension is the picture's id); rename one")
        else:
            ids[sid] = name
    if bad:
        print("\n".join(bad), file=sys.stderr)
        return 1

    todo = [(n, os.path.join(src, name), scratch, pad) for n, name in enumerate(names, 1)]
    if jobs > 1 and len(todo) > 1:
        with ProcessPoolExecutor(min(jobs, len(todo))) as pool:
            results = list(pool.map(render, todo))
    else:
        results = [render(job) for job in todo]
    for name, result in zip(names, results):
        if isinstance(result, str):
            bad.append(f"pictures: {os.path.join(src, name)}: {result}")
    if bad:
        print("\n".join(bad), file=sys.stderr)
        return 1

    try:
        summary = write_set(scratch, [(n, stable_id(name), r[0]) for n, (name, r) in
                                      enumerate(zip(names, results), 1)], prefix=PREFIX, legacy=False)
    except ManifestInputError as e:
        print(f"pictures: {e}", file=sys.stderr)
        return 1
    animated = [name for name, r in zip(names, results) if r[1] > 1]
    small = [f"{name} ({r[2]} px: up to {r[0][-1]})" for name, r in zip(names, results) if r[0][-1] < LADDER[-1]]
    print(f"pictures: {len(names)} from {src} ({names[0]} .. {names[-1]}), "
          f"{'padded' if pad else 'cropped'} to squares")
    if animated:
        print(f"pictures: animated, first frame used: {', '.join(animated)}")
    if small:
        print(f"pictures: below {LADDER[-1]} px, larger sizes answered with their largest: {', '.join(small)}")
    print(f"pictures: {summary}")
    print(f"pictures: rendered in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
