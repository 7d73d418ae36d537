"""Running `make images` as the tests do: a subprocess without the right to ignore file modes, with a
time limit; a folder's snapshot to prove OUT unchanged; how the command shows a name (escaped(): an
oracle of its own, not images/inputs.py's shown(), so that a bug there shows)."""
import ctypes
import hashlib
import os
import re
import signal
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAKE_ERROR = re.compile(r"make(\[\d+\])?: \*\*\* \[[^\]]*\] Error \d+")   # make's trailer of a failed recipe
TIMEOUT = 120                                                     # s: a hang (a FIFO read) fails, not blocks


def _drop_dac_capabilities():
    """In the child, before exec: as root, lose the right to ignore file modes (PR_CAPBSET_DROP of
    CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH: the exec'd make and everything under it lack them)."""
    if os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        for cap in (1, 2):
            if libc.prctl(24, cap, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def modes_are_enforced():
    """Whether a file of mode 000 is unreadable to the command (as an ordinary user, or root without
    the DAC capabilities)."""
    probe = Path(os.environ.get("TMPDIR", "/tmp")) / f".hostile-probe-{os.getpid()}"
    probe.write_text("x")
    probe.chmod(0)
    try:
        r = subprocess.run(["cat", str(probe)], capture_output=True, preexec_fn=_drop_dac_capabilities)
        return r.returncode != 0
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        probe.unlink()


class Run:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr

    def lines(self):
        """stderr's lines (splitlines: U+2028 splits too), make's 'make: *** [...] Error N' aside."""
        lines = self.stderr.splitlines()
        if self.returncode != 0 and lines and MAKE_ERROR.fullmatch(lines[-1]):
            lines = lines[:-1]
        return lines


def make_images(src, out, *extra):
    """`make -s images SRC=src OUT=out` (src, out: str or bytes paths), output decoded with U+FFFD
    for any byte that is not UTF-8 (so a raw byte never passes for its escape)."""
    args = [b"make", b"-s", b"-C", os.fsencode(ROOT), b"images",
            b"SRC=" + os.fsencode(src), b"OUT=" + os.fsencode(out), *map(os.fsencode, extra)]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         start_new_session=True, preexec_fn=_drop_dac_capabilities)
    try:
        stdout, stderr = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        pytest.fail(f"make images did not finish in {TIMEOUT} s (reading a FIFO? a bomb?)")
    return Run(p.returncode, stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace"))


def snapshot(path):
    """Everything about the tree at path, not following symlinks: each entry's type, mode, mtime and
    content (SHA-256 of a file, the target of a link, the names in a directory). None if absent."""
    path = os.fsencode(path)
    if not os.path.lexists(path):
        return None
    found = {}

    def visit(p, rel):
        st = os.lstat(p)
        entry = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_mtime_ns, st.st_size)
        if stat.S_ISLNK(st.st_mode):
            entry += (os.readlink(p),)
        elif stat.S_ISREG(st.st_mode):
            with open(p, "rb") as f:
                entry += (hashlib.sha256(f.read()).hexdigest(),)
        elif stat.S_ISDIR(st.st_mode):
            names = sorted(os.listdir(p))
            entry += (tuple(names),)
            for n in names:
                visit(os.path.join(p, n), rel + b"/" + n)
        found[rel] = entry

    visit(path, b".")
    return found


def near(pixel, want, tolerance=40):
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, want))


def escaped(text):
    """How the command prints a name: one line, repr-like (a newline as \\n, a byte that is not
    UTF-8 as \\xNN, a backslash doubled), printable characters as they are."""
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
