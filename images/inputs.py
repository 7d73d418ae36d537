"""What `make images SRC=DIR OUT=DIR` accepts as its input, checked before anything is decoded or
written (images/pictures.py runs these first):

    check_folders(src, out)     SRC a readable folder; OUT a folder that can take the set and does
                                not overlap SRC (the same folder, one inside the other); else Bad
    sources(src)                the pictures in set order, and one line for each entry that cannot
                                be one (a FIFO, a socket, a device, a link leading outside SRC or to
                                nothing, a name that is not UTF-8 or holds a control character, two
                                files with the same bytes); Bad for the folder itself (unreadable,
                                empty, more than MAX_PICTURES entries)
    shown(text)                 a path or name on one line, escaped (every message uses it)
    stable_id(name)             a picture's id: its file name without the extension
"""
import errno
import hashlib
import os
import stat
import unicodedata

from photo import Refused, kind_of, open_regular

# At most this many pictures in a set: the keyed pick spreads keys over 10,000 buckets, so a set of
# 1,000 still gives each picture about 10 (about 0.1 % of the keys each, give or take a third).
MAX_PICTURES = 1000


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
