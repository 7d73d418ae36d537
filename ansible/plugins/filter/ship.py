# What fox_avatar_common's tasks/ship.yml does with a directory of files (its one decision):
#
#   NAMES | fox_avatar.deploy.ship_plan(WANT, SRC, DEST[, HAVE])
#
# NAMES: the paths to ship, relative to SRC; WANT and HAVE: the registered results of
# ansible.builtin.find with get_checksum over SRC (on the control machine) and over DEST (on the
# host; a skipped find, or none yet, holds nothing). Returns
#   dirs     the directories of NAMES (one level), created before the files, never removed
#   missing  the NAMES that are not a file under SRC
#   todo     the paths to copy: found under SRC, and not a root-owned 0644 file with the same
#            checksum under DEST
#   extra    the paths found under DEST that NAMES (and their directories) do not name
# An image set has about 460 files: membership is looked up in dicts, never by scanning lists.
# Documentation: ship_plan.yml beside this file (ansible-doc -t filter fox_avatar.deploy.ship_plan).
import os.path
from collections.abc import Mapping, Sequence

from ansible.errors import AnsibleFilterError


def _files(result, what):
    if result is None:
        return []
    if not isinstance(result, Mapping):
        raise AnsibleFilterError(f"ship_plan: {what} must be the registered result of ansible.builtin.find")
    return result.get("files") or []


def ship_plan(names, want, src, dest, have=None):
    if isinstance(names, (str, bytes)) or not isinstance(names, Sequence):
        raise AnsibleFilterError(f"ship_plan: the names to ship must be a list of paths, not {type(names).__name__}")
    names = [str(n) for n in names]
    src, dest = str(src), str(dest)
    dirs = list(dict.fromkeys(d for d in map(os.path.dirname, names) if d))
    named = dict.fromkeys(names)
    wanted = {}  # path -> checksum
    for f in _files(want, "WANT"):
        path = os.path.relpath(f["path"], src)
        if path in named:
            wanted[path] = f["checksum"]
    held = {}  # path -> checksum, root's 0644 files only
    for f in _files(have, "HAVE"):
        if "checksum" in f and f.get("uid") == 0 and f.get("mode") == "0644":
            held[os.path.relpath(f["path"], dest)] = f["checksum"]
    keep = dict.fromkeys(names + dirs)
    return {
        "dirs": dirs,
        "missing": [n for n in names if n not in wanted],
        "todo": [path for path, checksum in wanted.items() if held.get(path) != checksum],
        "extra": [p for p in (os.path.relpath(f["path"], dest) for f in _files(have, "HAVE")) if p not in keep],
    }


class FilterModule:
    def filters(self):
        return {"ship_plan": ship_plan}
