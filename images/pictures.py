#!/usr/bin/env python3
"""Make an image set from a folder of pictures (the front end for your own pictures).

    python3 images/pictures.py SRC OUT [--pad] [--jobs=N]

`make images SRC=DIR OUT=DIR [PAD=1]` runs this through images/pictures.sh (the pinned venv). It
checks SRC and OUT, renders into a fresh scratch directory next to OUT (same file system), and
swaps the result into OUT (imageset's swap_in, the same swap images/draw.sh uses) only when every
picture succeeded. OUT is not touched otherwise, not even created.

What it takes and makes, and how it refuses (one line on stderr each, "pictures: PATH: REASON",
exit 1): docs/own-pictures.md. The folder's checks: images/inputs.py; each picture: images/photo.py;
then the image set's writer (imageset/writer.py) names the files a/avatar-N-SIZE.HASH.EXT, each
picture's stable id its file name without the extension.
"""
import os
import shutil
import signal
import sys
import tempfile
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from PIL import Image


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))   # imageset/
from imageset.contract import FORMATS, LADDER  # noqa: E402  (the image set's owner)
from inputs import Bad, check_folders, shown, sources, stable_id  # noqa: E402
from photo import Refused, encode_photo, load_square  # noqa: E402
from imageset.files import swap_in  # noqa: E402
from imageset.manifest import ManifestError  # noqa: E402
from imageset.writer import ManifestInputError, write_set  # noqa: E402

# The set's file-name prefix: a/avatar-N-SIZE.HASH.EXT (the fox set keeps its Renard-N-...).
PREFIX = "avatar"

# Pillow warns on stderr about pictures it reads anyway; photo.load_square silences it, and this is
# the backstop for everything else (its bomb warning is an error everywhere).
warnings.simplefilter("ignore")
warnings.simplefilter("error", Image.DecompressionBombWarning)


def _worker_init():
    # Ctrl-C is the main process's to handle (it stops the pool and removes the scratch); a worker
    # printing its own KeyboardInterrupt traceback would be noise.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def render(job):
    """One picture: (number, path, scratch, pad, check_only) -> ("ok", sizes, animated, side) or
    ("refused", reason) or ("failed", reason: writing the scratch, not the picture's fault).
    check_only: read the picture, write nothing (the run is refused anyway: only its lines count)."""
    number, path, scratch, pad, check_only = job
    try:
        square, animated = load_square(path, pad=pad, largest=LADDER[-1])
    except Refused as e:
        return "refused", str(e)
    except MemoryError:
        return "refused", "needs more memory than this machine gives (a decompression bomb?)"
    except Exception as e:                           # a Pillow error photo.py did not map: still one line
        return "refused", f"cannot be made into an avatar: {type(e).__name__}: {' '.join(str(e).split())}"
    sizes = [s for s in LADDER if s <= square.width]
    if check_only:
        return "ok", sizes, animated, square.width
    try:
        for size in sizes:
            im = square if size == square.width else square.resize((size, size), Image.Resampling.LANCZOS)
            for fmt in FORMATS:
                with open(os.path.join(scratch, f"{PREFIX}-{number}-{size}.{fmt.ext}"), "wb") as f:
                    f.write(encode_photo(fmt, im))
    except OSError as e:
        return "failed", f"cannot write the new set: {e.strerror or e}"
    return "ok", sizes, animated, square.width


def make_set(src, out, pad, jobs, started):
    """The whole run; returns the exit status. Raises Bad (one line) for a refused folder."""
    check_folders(src, out)
    pictures, problems = sources(src)
    # With a problem found already the run is refused, but every picture is still read (not
    # rendered), so that one run lists everything to fix.
    check_only = bool(problems)

    parent = os.path.dirname(os.path.abspath(out))
    try:
        scratch = tempfile.mkdtemp(prefix=f".{os.path.basename(os.path.abspath(out))}.new.", dir=parent)
    except OSError as e:
        raise Bad(f"OUT={shown(out)}: cannot make a scratch folder in {shown(parent)}: {e.strerror or e}")
    try:
        todo = [(n, path, scratch, pad, check_only) for n, (_, path) in enumerate(pictures, 1)]
        if jobs > 1 and len(todo) > 1:
            pool = ProcessPoolExecutor(min(jobs, len(todo)), initializer=_worker_init)
            try:
                results = list(pool.map(render, todo))
            except BrokenProcessPool:
                raise Bad(f"{shown(src)}: a rendering process died (killed for lack of memory?); nothing was "
                          "written to OUT")
            finally:
                pool.shutdown(wait=True, cancel_futures=True)    # stopped early: no picture waits its turn
        else:
            results = [render(job) for job in todo]
        failed = [r[1] for r in results if r[0] == "failed"]
        if failed:
            raise Bad(f"OUT={shown(out)}: {failed[0]}")
        bad = problems + [(name, f"pictures: {shown(path)}: {shown(r[1])}")
                          for (name, path), r in zip(pictures, results) if r[0] == "refused"]
        if bad:
            print("\n".join(line for _, line in sorted(bad)), file=sys.stderr)
            return 1

        names = [name for name, _ in pictures]
        rendered = time.time() - started
        try:
            summary = write_set(scratch, [(n, stable_id(name), r[1]) for n, (name, r) in
                                          enumerate(zip(names, results), 1)], prefix=PREFIX, legacy=False)
        except ManifestInputError as e:
            raise Bad(shown(str(e)))
        except OSError as e:
            raise Bad(f"OUT={shown(out)}: cannot write the new set: {e.strerror or e}")
        # Readable by the servers whatever the umask (Nginx's workers, the containers' uid 33): the
        # set is public anyway.
        for d, _, files in os.walk(scratch):
            os.chmod(d, 0o755)
            for f in files:
                os.chmod(os.path.join(d, f), 0o644)
        if not os.path.isdir(out):
            os.mkdir(out)
            os.chmod(out, 0o755)
        try:
            swap_in(scratch, out)
        except (OSError, ManifestError) as e:
            raise Bad(f"OUT={shown(out)}: swapping the new set in failed: {shown(str(e))}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    animated = [shown(name) for name, r in zip(names, results) if r[2]]
    small = [f"{shown(name)} ({r[3]} px: up to {r[1][-1]})" for name, r in zip(names, results) if r[1][-1] < LADDER[-1]]
    print(f"pictures: {len(names)} from {shown(src)} ({shown(names[0])} .. {shown(names[-1])}), "
          f"{'padded' if pad else 'cropped'} to squares")
    if animated:
        print(f"pictures: animated, first frame used: {listed(animated)}")
    if small:
        print(f"pictures: below {LADDER[-1]} px, larger sizes answered with their largest: {listed(small)}")
    print(f"pictures: {summary}")
    print(f"pictures: rendered in {rendered:.1f} s")
    where = shown(os.path.abspath(out))
    print(f"pictures: set in {where} ({where}/manifest.tsv), {time.time() - started:.1f} s in all")
    return 0


def listed(items, most=10):
    """items joined with commas, the first `most` of them: a line stays readable for 1,000 pictures."""
    more = f", and {len(items) - most} more" if len(items) > most else ""
    return ", ".join(items[:most]) + more


class Stopped(Exception):
    """SIGTERM or SIGHUP: the run stops (the scratch is removed on the way out)."""


def _terminated(signum, frame):
    raise Stopped(signum)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    pad = "--pad" in argv
    jobs = os.cpu_count() or 1
    for a in argv[1:]:
        if a.startswith("--jobs="):
            jobs = max(1, int(a.split("=", 1)[1]))
    if len(args) != 2 or not args[0] or not args[1]:
        print("usage: pictures.py SRC OUT [--pad] [--jobs=N]", file=sys.stderr)
        return 2
    src, out = args
    out = out.rstrip("/") or "/"
    try:
        started = float(os.environ.get("PICTURES_STARTED", ""))
    except ValueError:
        started = time.time()
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _terminated)
    try:
        return make_set(src, out, pad, jobs, started)
    except Bad as e:
        print(f"pictures: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"pictures: interrupted; OUT={shown(out)} is as it was", file=sys.stderr)
        return 128 + signal.SIGINT
    except Stopped as e:
        signum = e.args[0]
        print(f"pictures: stopped by {signal.Signals(signum).name}; OUT={shown(out)} is as it was", file=sys.stderr)
        return 128 + signum
    except Exception as e:
        # Not the input's fault: a bug, or the machine (a full disk...). Still one line, no
        # traceback; PICTURES_DEBUG=1 shows it.
        if os.environ.get("PICTURES_DEBUG"):
            raise
        print(f"pictures: {shown(src)}: failed: {type(e).__name__}: {shown(' '.join(str(e).split()))} "
              "(PICTURES_DEBUG=1 shows where)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
