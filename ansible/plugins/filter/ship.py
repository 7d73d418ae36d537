# What fox_avatar_common's tasks/ship.yml does with a directory of files (its one decision), and the
# names a directory holds:
#
#   NAMES | fox_avatar.deploy.ship_plan(SRC, DEST[, HAVE])
#   SRC | fox_avatar.deploy.ship_names
#
# NAMES: the paths to ship, relative to SRC, a directory on the control machine, which the plan reads
# itself (it runs there): a name is shipped as the file it is, or as the file a link points at (the
# roles carry the repository's shared files as links into nginx/, monitoring/ and app/), as
# ansible.builtin.copy does. HAVE: the registered result of ansible.builtin.find with get_checksum over
# DEST on the host (a skipped find, or none yet, holds nothing). Returns
#   dirs     the directories of NAMES (one level), created before the files, never removed
#   missing  the NAMES that are not a readable file under SRC (a dangling link among them)
#   todo     the paths to copy: a file under SRC, and not a root-owned 0644 file with the same
#            checksum (SHA-1, as find's) under DEST
#   extra    the paths found under DEST that NAMES (and their directories) do not name
# The pre-flight play runs the same plan without HAVE (fox_avatar_common's tasks/ship_check.yml), so
# a file the ship would find missing stops the run before any host is touched.
# An image set has about 460 files: membership is looked up in dicts, never by scanning lists, and
# SRC's files are read only when HAVE holds files to compare them with.
# Documentation: ship_plan.yml and ship_names.yml beside this file (ansible-doc -t filter ...).
import hashlib
import os
from collections.abc import Mapping, Sequence

from ansible.errors import AnsibleFilterError


def _files(result):
    if result is None:
        return []
    if not isinstance(result, Mapping):
        raise AnsibleFilterError("ship_plan: HAVE must be the registered result of ansible.builtin.find")
    return result.get("files") or []


def _readable_file(path):
    # os.path.isfile follows links: a link to a file is that file, a dangling link is none
    return os.path.isfile(path) and os.access(path, os.R_OK)


def _sha1(path):
    digest = hashlib.sha1()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def ship_plan(names, src, dest, have=None):
    if isinstance(names, (str, bytes)) or not isinstance(names, Sequence):
        raise AnsibleFilterError(f"ship_plan: the names to ship must be a list of paths, not {type(names).__name__}")
    names = [str(n) for n in names]
    src, dest = str(src), str(dest)
    dirs = list(dict.fromkeys(d for d in map(os.path.dirname, names) if d))
    present = {n: None for n in names if _readable_file(os.path.join(src, n))}
    held = {}  # path -> checksum, root's 0644 files only
    for f in _files(have):
        if "checksum" in f and f.get("uid") == 0 and f.get("mode") == "0644":
            held[os.path.relpath(f["path"], dest)] = f["checksum"]
    keep = dict.fromkeys(names + dirs)
    return {
        "dirs": dirs,
        "missing": [n for n in names if n not in present],
        "todo": [n for n in present if n not in held or held[n] != _sha1(os.path.join(src, n))],
        "extra": [p for p in (os.path.relpath(f["path"], dest) for f in _files(have)) if p not in keep],
    }


def ship_names(src):
    try:
        entries = list(os.scandir(str(src)))
    except (FileNotFoundError, NotADirectoryError):
        return []
    # a directory (or a link to one) is not shipped; a dangling link is named, for ship_plan to miss
    return sorted(e.name for e in entries if not e.name.startswith(".") and not e.is_dir())


class FilterModule:
    def filters(self):
        return {"ship_plan": ship_plan, "ship_names": ship_names}
