"""Swapping a new image set in: swap_in(scratch, out), for images/draw.sh (python3 -m imageset
swap-in) and images/pictures.py, once a new set is complete. Standard library only.
"""
import filecmp
import os
from pathlib import Path

from .contract import MANIFEST, SUBDIR
from .manifest import ManifestError, read_manifest


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


__all__ = ["ManifestError", "swap_in"]
