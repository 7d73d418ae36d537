"""The files of an image set: which to ship, copying a set, swapping a new one in.

    from imageset.files import ship_list, copy_set, swap_in
    ship_list(m)            # ['manifest.tsv', 'a/...', ..., 'Renard-21.png']: what a deployment copies
    copy_set(src, dest)     # the compose image builds (app/Dockerfile, nginx/Dockerfile)
    swap_in(scratch, out)   # images/draw.sh and images/pictures.py, once a new set is complete

Standard library only, and within what Debian's python3-minimal has (no shutil): the compose
image builds run `copy` with it. Command line: python3 -m imageset copy|swap-in (__main__.py).
"""
import filecmp
import os
from pathlib import Path

from .contract import MANIFEST, SUBDIR
from .manifest import ManifestError, read_manifest


def ship_list(m):
    """The paths (relative to the images directory) of a set: its manifest, then every file it lists."""
    return [MANIFEST] + m.paths()


def _copy(src, dest):
    """cp -p: the bytes, the mode and the times."""
    dest.write_bytes(src.read_bytes())
    st = src.stat()
    os.chmod(dest, st.st_mode & 0o7777)
    os.utime(dest, ns=(st.st_atime_ns, st.st_mtime_ns))


def copy_set(src, dest):
    """Copy the image set of src (its manifest and every file it lists, nothing else) into dest;
    returns how many files it lists. A bad or incomplete set raises ManifestError, before any copy."""
    src, dest = Path(src), Path(dest)
    m = read_manifest(src)
    for path in ship_list(m):
        (dest / path).parent.mkdir(parents=True, exist_ok=True)
        _copy(src / path, dest / path)
    return len(m.paths())


def swap_in(scratch, out):
    """Swap a finished set from scratch into out: new files first, then the manifest naming them, then
    away with the files the old manifest listed that the new one does not (a/*, and flat legacy names
    such as Renard-N.png). A live Nginx never serves a half-written set, and files no longer made do
    not linger. Unchanged files are left alone (their mtimes too); nothing else in out is touched
    (images/ keeps its scripts)."""
    scratch, out = Path(scratch), Path(out)
    new = read_manifest(scratch)
    try:        # the old set's legacy names (none if its manifest cannot be read)
        old = read_manifest(out, check_files=False).legacy if (out / MANIFEST).is_file() else []
    except ManifestError:
        old = []
    out.mkdir(parents=True, exist_ok=True)
    if not (out / SUBDIR).is_dir():
        (out / SUBDIR).mkdir()
        os.chmod(out / SUBDIR, 0o755)       # served: readable whatever the umask
    keep = set(new.paths())
    stale = [p for p in sorted((out / SUBDIR).iterdir()) if f"{SUBDIR}/{p.name}" not in keep]
    stale += [out / e.path for e in old if "/" not in e.path and e.path not in keep and (out / e.path).exists()]
    for path in new.paths() + [MANIFEST]:       # the manifest last
        target = out / path
        if not (target.is_file() and filecmp.cmp(scratch / path, target, shallow=False)):
            os.replace(scratch / path, target)
    for p in stale:
        if p.is_file():
            p.unlink()


__all__ = ["ManifestError", "copy_set", "ship_list", "swap_in"]
