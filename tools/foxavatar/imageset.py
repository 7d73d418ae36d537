"""The image set: which files of a directory are images, per the rule in images/names.regex.

    from foxavatar.imageset import NAME_RE, image_names
    image_names("images")   # ['Renard-1.png', 'Renard-2.png', ..., 'Renard-21.png']

The rule has one owner, images/names.regex; this module only reads it.
Standard library only (nginx/render.py runs it inside an image build).
"""
import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RULE_FILE = REPO / "images" / "names.regex"


def read_rule(path=RULE_FILE):
    """The one non-comment, non-blank line of the rule file."""
    lines = [line.strip() for line in Path(path).read_text(encoding="utf-8").splitlines()]
    rules = [line for line in lines if line and not line.startswith("#")]
    if len(rules) != 1:
        raise ValueError(f"{path}: expected one rule line, found {len(rules)}")
    return rules[0]


NAME_RE = re.compile(read_rule())


def natural_key(name):
    """Orders Renard-2 before Renard-10."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def image_names(directory, rule=NAME_RE):
    """Names of the images directly in directory, in natural order; [] if it is not a directory."""
    d = Path(directory)
    if not d.is_dir():
        return []
    names = [n for n in os.listdir(d) if rule.fullmatch(n) and (d / n).is_file()]
    return sorted(names, key=natural_key)
