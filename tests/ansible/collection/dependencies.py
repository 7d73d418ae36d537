#!/usr/bin/env python3
"""tests/ansible/specs.sh: the collections fox_avatar.deploy uses are the ones its galaxy.yml declares.

Reads what the collection ships (roles/, site.yml, plugins/; not the Molecule scenarios, which the
tarball leaves out) for references ns.coll.NAME - a task's module, a filter, a lookup, a test, a
connection - and `ansible_collections.ns.coll` imports in the plugins; a reference counts when
ns.coll is a collection Ansible knows (this Python's ansible_collections, the `ansible` package's
bundle), so that a host name such as avatar.example.org does not. Comments are not read.

  dependencies.py ANSIBLE_DIR            one line per used collection and where (ansible.builtin and
                                         the collection itself left out), then exit 1 if
                                         the used set (without ansible.builtin and the collection
                                         itself) differs from galaxy.yml's dependencies
  dependencies.py --declared ANSIBLE_DIR the declared collections, one a line
"""
import re
import sys
from pathlib import Path

import ansible_collections
import yaml

SELF = "fox_avatar.deploy"
IMPLICIT = {"ansible.builtin", SELF}


def known_collections():
    found = set()
    for root in ansible_collections.__path__:
        for coll in Path(root).glob("*/*"):
            if (coll / "MANIFEST.json").is_file() or (coll / "galaxy.yml").is_file():
                found.add(f"{coll.parent.name}.{coll.name}")
    return found | IMPLICIT


def uncommented(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".j2":
        text = re.sub(r"\{#.*?#\}", "", text, flags=re.S)
    lines = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        lines.append(re.sub(r"\s#\s.*$", "", line))
    return "\n".join(lines)


def used(ansible_dir, known):
    ref = re.compile(r"(?<![\w.])([a-z][a-z0-9_]*)\.([a-z][a-z0-9_]*)\.[a-z][a-z0-9_]*")
    files = [ansible_dir / "site.yml"]
    for pattern in ("roles/**/*.yml", "roles/**/*.j2", "plugins/**/*.py", "plugins/**/*.yml", "meta/*.yml"):
        files += sorted(ansible_dir.glob(pattern))
    where = {}
    for path in files:
        if not path.is_file():
            continue
        for match in ref.finditer(uncommented(path)):
            name = f"{match[1]}.{match[2]}"
            if match[1] == "ansible_collections":  # a plugin's import: ansible_collections.ns.coll...
                name = ".".join(match[0].split(".")[1:3])
            if name in known:
                where.setdefault(name, set()).add(str(path.relative_to(ansible_dir)))
    return where


def declared(ansible_dir):
    galaxy = yaml.safe_load((ansible_dir / "galaxy.yml").read_text(encoding="utf-8"))
    return galaxy.get("dependencies") or {}


def main(argv):
    if argv[:1] == ["--declared"]:
        print(*declared(Path(argv[1])), sep="\n")
        return 0
    ansible_dir = Path(argv[0])
    where = used(ansible_dir, known_collections())
    for name in sorted(set(where) - IMPLICIT):
        print(f"{name}: {', '.join(sorted(where[name]))}")
    need = set(where) - IMPLICIT
    have = set(declared(ansible_dir))
    for name in sorted(need - have):
        print(f"galaxy.yml: {name} is used but not in dependencies")
    for name in sorted(have - need):
        print(f"galaxy.yml: {name} is in dependencies but nothing uses it")
    return 1 if need != have else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
