"""What the fact registers of tests/docs read (test_fact_copies.py, test_selfsigned_owner.py,
test_gravatar_owner.py, test_cross_role_fallbacks.py): the product files, their code lines, a
value as a whole token."""
import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def product_files():
    """The repository's product files: neither tests nor docs nor Molecule scenarios; links once, as
    the files they point at."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.split("\0")
    for name in listed:
        if not name or name.startswith(("tests/", "docs/", "app/src/test/", "ansible/molecule/")) \
                or name.endswith(".md") or os.path.islink(ROOT / name):
            continue
        try:
            yield name, (ROOT / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue


def holds(text, value):
    """value in text as a whole token (not a part of a longer number, name or address)."""
    return re.search(r"(?<![0-9A-Za-z_.])" + value + r"(?![0-9A-Za-z_])", text) is not None


def is_comment(line):
    """A comment line (#, //, /* and * lines, Jinja's {# #})."""
    return line.strip().startswith(("#", "//", "/*", "*", "{#"))


def code_lines(text):
    """The lines of a file that are not comments."""
    return [line for line in text.splitlines() if not is_comment(line)]
