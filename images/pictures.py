#!/usr/bin/env python3
"""Make an image set from a folder of pictures (the front end for your own pictures).

    python3 images/pictures.py SRC OUT [--pad] [--jobs=N]

`make images SRC=DIR OUT=DIR [PAD=1]` runs this through images/pictures.sh (the pinned venv). It
checks SRC and OUT, renders into a fresh scratch directory next to OUT (same file system), and
swaps the result into OUT (images/swap-in.sh, the same swap images/draw.sh uses) only when every
picture succeeded. OUT is not touched otherwise, not even created.

The pictures: every entry directly in SRC whose name does not start with '.', in file-name order
(Python's string order of the names: "10.jpg" comes before "2.jpg"; number them 01, 02...).
Folders are skipped; a symbolic link is followed if it stays inside SRC. Each picture is read by
content (images/photo.py: JPEG, PNG, WebP, AVIF, GIF, TIFF, BMP), made square and sRGB, stripped
of all metadata, and rendered at every ladder size up to its own square side (never upscaled) in
every format, with the photo encoder profile. Then images/manifest.py's write_set names the files
by content (a/avatar-N-SIZE.HASH.EXT) and writes manifest.tsv; the picture's stable id (what its
keys hang on) is its file name without the extension, so renaming a file moves its keys and
replacing its content does not.

Every bad input gets one line on stderr, "pictures: PATH: REASON" (a name is shown escaped, on one
line: see shown()), and the exit status is 1: a bad picture, an entry that is not a picture file
(a FIFO, a socket, a device, a link leading outside SRC or to nothing), a file name that is not
UTF-8 or holds a control character, two files with the same bytes, more than MAX_PICTURES, or an
OUT that overlaps SRC. Nothing is printed on stderr when all is well; what was made goes to stdout.
"""
import errno
import hashlib
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unicodedata
import warnings
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from PIL import Image

from ladder import FORMATS, LADDER
from manifest import ManifestInputError, write_set
from photo import Refused, encode_photo, kind_of, load_square, open_regular

HERE = os.path.dirname(os.path.abspath(__file__))
# The set's file-name prefix: a/avatar-N-SIZE.HASH.EXT (the fox set keeps its Renard-N-...).
PREFIX = "avatar"
# At most this many pictures: the keyed pick spreads keys over 10,000 buckets (manifest v2), so a
# set of 1,000 still gives each picture about 10 buckets (about 0.1 % of the keys each, give or
# take a third); the Nginx fallback's maps grow with the set too. A folder with more entries is
# refused in one line, before any is read.
MAX_PICTURES = 1000

# Pillow warns on stderr about pictures it reads anyway; photo.load_square silences it, and this is
# the backstop for everything else (its bomb warning is an error everywhere).
warnings.simplefilter("ignore")
warnings.simplefilter("error", Image.DecompressionBombWarning)


def shown(text):
    """text (a path or a name; from the file system, so possibly with surrogate escapes) on one
    line, unambiguously: printable characters as they are, a backslash doubled, a byte that is not
    UTF-8 as \\xNN, every other non-printable character (newline, tab, U+2028, a right-to-left
    override...) as Python writes it in a string (\\n, \\t, \\u2028, \\u202e)."""
    out = []
    for c in text:
        if c == "\\":
            out.append("\\\\")
        elif "\udc80" <= c <= "\udcff":
            out.append(f"\\x{ord(c) - 0xdc00:02x}")
        elif c.isprintable():
            out.append(c)
        else:
            out.append(repr(c)[1:-1])
    return "".join(out)


class Bad(Exception):
    """The run is refused; str() is one line, paths in it already shown()."""


def check_folders(src, out):
    """Refuse (Bad) an SRC that is not a readable folder, or an OUT that cannot take the set: not a
    folder, no parent, not writable, or overlapping SRC (the same folder, one inside the other)."""
    try:
        st = os.stat(src)
    except FileNotFoundError:
        raise Bad(f"{shown(src)}: does not exist (SRC must name a folder of pictures)")
    except PermissionError:
        raise Bad(f"{shown(src)}: cannot be read: permission denied")
    except OSError as e:
        raise Bad(f"{shown(src)}: cannot be read: {e.strerror or e}")
    if not stat.S_ISDIR(st.st_mode):
        raise Bad(f"{shown(src)}: not a directory (SRC must name a folder of pictures)")
    if not os.access(src, os.R_OK | os.X_OK):
        raise Bad(f"{shown(src)}: cannot be read: permission denied")

    name = f"OUT={shown(out)}"
    parent = os.path.dirname(os.path.abspath(out))
    if os.path.lexists(out) and not os.path.isdir(out):
        raise Bad(f"{name}: exists and is not a directory")
    if not os.path.isdir(parent):
        raise Bad(f"{name}: its parent directory {shown(parent)} does not exist")
    real_src, real_out = os.path.realpath(src), os.path.realpath(out)
    if real_src == real_out:
        raise Bad(f"{name}: the same folder as SRC={shown(src)}; keep the pictures and the set apart "
                  "(choose an OUT outside SRC)")
    if os.path.commonpath([real_src, real_out]) == real_src:
        raise Bad(f"{name}: inside SRC={shown(src)}; keep the pictures and the set apart "
                  "(choose an OUT outside SRC)")
    if os.path.commonpath([real_src, real_out]) == real_out:
        raise Bad(f"{name}: SRC={shown(src)} is inside it; keep the pictures and the set apart "
                  "(choose an OUT that does not hold SRC)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise Bad(f"{name}: cannot write in its parent directory {shown(parent)} "
                  "(the new set is made there, then swapped in)")
    for d in (out, os.path.join(out, "a")):
        if os.path.lexists(d) and not os.path.isdir(d):
            raise Bad(f"{name}: {shown(d)} is not a directory (OUT must be an image set, or a new folder)")
        if os.path.isdir(d) and not os.access(d, os.W_OK | os.X_OK):
            raise Bad(f"{name}: cannot write in {shown(d)}")


def bad_name(name):
    """Why a file name cannot be a picture's id, or None."""
    if any("\udc80" <= c <= "\udcff" for c in name):
        return "the file name is not valid UTF-8; rename it"
    if any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in name):
        return "the file name holds a control character (a newline, a tab...); rename it"
    return None


def stable_id(name):
    return os.path.splitext(name)[0]


def sources(src):
    """(pictures, problems): the pictures of src in set order, [(name, path)], and [(name, line)] for
    each entry that cannot be a picture (empty if all can). Raises Bad (one line) for the folder itself:
    unreadable, empty, or more than MAX_PICTURES entries. Every file is read once (its SHA-256, for
    duplicates) without blocking: nothing is decoded here."""
    try:
        names = sorted(n for n in os.listdir(src) if not n.startswith("."))
    except PermissionError:
        raise Bad(f"{shown(src)}: cannot be read: permission denied")
    except OSError as e:
        raise Bad(f"{shown(src)}: cannot be read: {e.strerror or e}")
    real_src = os.path.realpath(src)
    entries, problems = [], []
    for name in names:
        path = os.path.join(src, name)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue                                   # gone since the listing
        except OSError as e:
            entries.append((name, path, f"cannot be read: {e.strerror or e}"))
            continue
        if stat.S_ISLNK(st.st_mode):
            try:
                st = os.stat(path)
            except FileNotFoundError:
                entries.append((name, path, f"a symbolic link to nothing ({shown(os.readlink(path))})"))
                continue
            except OSError as e:
                loop = e.errno == errno.ELOOP
                entries.append((name, path, "a symbolic link loop" if loop else f"cannot be read: {e.strerror or e}"))
                continue
            target = os.path.realpath(path)
            if os.path.commonpath([real_src, target]) != real_src:
                entries.append((name, path, f"a symbolic link to {shown(target)}, outside SRC: only "
                                            "pictures inside the folder are read; copy it in"))
                continue
        if stat.S_ISDIR(st.st_mode):
            continue                                   # subfolders are not read
        entries.append((name, path, None if stat.S_ISREG(st.st_mode) else f"{kind_of(st.st_mode)}, not a picture file"))
    if not entries:
        raise Bad(f"{shown(src)}: no picture in this folder (empty folder)")
    if len(entries) > MAX_PICTURES:
        raise Bad(f"{shown(src)}: {len(entries)} files, more than the {MAX_PICTURES} pictures a set may hold")

    pictures, ids, seen = [], {}, {}
    for name, path, reason in entries:
        reason = reason or bad_name(name)
        if reason is None:
            sid = stable_id(name)
            if sid in ids:
                reason = (f"same name as {shown(ids[sid])} but for the extension (the name without "
                          "extension is the picture's id); rename one")
            else:
                ids[sid] = name
        if reason is None:
            try:
                digest, size = hashlib.sha256(), 0
                with open_regular(path) as f:
                    while block := f.read(1 << 20):
                        digest.update(block)
                        size += len(block)
                digest = digest.digest()
            except Refused as e:
                reason = str(e)
            except OSError as e:
                reason = f"cannot be read: {e.strerror or e}"
            else:
                if size == 0:
                    reason = "empty file"
                elif digest in seen:
                    reason = f"the same bytes as {shown(seen[digest])} (a copy?); keep one of them"
                else:
                    seen[digest] = path
        if reason is None:
            pictures.append((name, path))
        else:
            problems.append((name, f"pictures: {shown(path)}: {reason}"))
    return pictures, problems


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
        swap = subprocess.run([os.path.join(HERE, "swap-in.sh"), scratch, out])
        if swap.returncode != 0:
            raise Bad(f"OUT={shown(out)}: swapping the new set in failed (above)")
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
