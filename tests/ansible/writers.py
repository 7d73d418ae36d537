#!/usr/bin/env python3
"""Each role writes only its own files (ansible/README.md, "Roles"): who writes the certificate
and key Nginx reads, and who ships the image directory, read from the roles' tasks and templates.

  python tests/ansible/writers.py [ROLES_DIR]     (default ansible/roles)

- A task that writes on the host (copy, template, file, a community.crypto key or certificate,
  unarchive, ...) with a `dest`/`path` (or a loop item's) under the TLS directory, or a template or
  script that names those paths, is fox_avatar_tls's, and no other role's.
- The image set is shipped (fox_avatar_common's ship.yml with `fox_avatar_common_ship_files:
  manifest`) by exactly one role, fox_avatar_images, and no other role's task writes to an images
  directory.
Prints each violation (role, file, task) and exits 1 when there is one.
"""
import re
import sys
from pathlib import Path

import yaml

WRITERS = {"copy", "template", "file", "lineinfile", "blockinfile", "replace", "unarchive", "get_url",
           "assemble", "openssl_privatekey", "x509_certificate", "openssl_csr", "openssl_dhparam",
           "openssl_pkcs12", "command", "shell"}
TLS_OWNER, IMAGES_OWNER = "fox_avatar_tls", "fox_avatar_images"
TLS_PATHS = re.compile(r"fox_avatar_tls_(cert_path|key_path|dir)\b|fox_avatar_acme_(cert|key)_path\b|/etc/ssl/fox-avatar")
IMAGES_PATHS = re.compile(r"\bfox_avatar_(\w+_)?images_dir\b|/opt/fox-avatar/images")


def tasks(items):
    """Every task in a task list, blocks opened (block, rescue, always)."""
    for task in items or []:
        if not isinstance(task, dict):
            continue
        if "block" in task:
            for key in ("block", "rescue", "always"):
                yield from tasks(task.get(key))
        else:
            yield task


def module(task):
    """(short module name, its arguments) of a task."""
    for key, value in task.items():
        short = key.rsplit(".", 1)[-1]
        if short in WRITERS or short in ("include_role", "import_role"):
            return short, value if isinstance(value, dict) else {"_raw": value}
    return None, {}


def destinations(task, args):
    """What a writing task writes to: its dest/path/creates, or the loop items' when they come from there."""
    found = [str(args.get(k, "")) for k in ("dest", "path", "argv", "cmd", "_raw")]
    if any("item" in f for f in found):
        found.append(yaml.safe_dump(task.get("loop", task.get("with_items", ""))))
    return " ".join(found)


def main():
    roles = Path(sys.argv[1] if len(sys.argv) > 1 else "ansible/roles")
    problems, shippers = [], set()
    for tasks_file in sorted(roles.glob("*/tasks/*.yml")) + sorted(roles.glob("*/handlers/*.yml")):
        role = tasks_file.parts[-3]
        for task in tasks(yaml.safe_load(tasks_file.read_text())):
            name, args = module(task)
            where = f"{role}: {tasks_file.relative_to(roles)}: {task.get('name', '?')}"
            if name in ("include_role", "import_role"):
                if (str(args.get("tasks_from", "")).startswith("ship")
                        and str(task.get("vars", {}).get("fox_avatar_common_ship_files")) == "manifest"):
                    shippers.add(role)
                    if role != IMAGES_OWNER:
                        problems.append(f"{where}: ships an image set (only {IMAGES_OWNER} does)")
                continue
            if name is None:
                continue
            dest = destinations(task, args)
            if role != TLS_OWNER and TLS_PATHS.search(dest):
                problems.append(f"{where}: writes under the TLS directory (only {TLS_OWNER} does)")
            if role != IMAGES_OWNER and name != "command" and IMAGES_PATHS.search(dest):
                problems.append(f"{where}: writes to an images directory (only {IMAGES_OWNER} does)")
    for template in sorted(roles.glob("*/templates/*")):
        role = template.parts[-3]
        if role != TLS_OWNER and TLS_PATHS.search(template.read_text()):
            problems.append(f"{role}: {template.relative_to(roles)}: a template that names the TLS paths (only {TLS_OWNER}'s may)")
    if shippers != {IMAGES_OWNER}:
        problems.append(f"the image set is shipped by {sorted(shippers) or 'no role'}, not by {IMAGES_OWNER} alone")
    for problem in problems:
        print(problem)
    if not problems:
        print(f"{TLS_OWNER} alone writes the TLS paths; {IMAGES_OWNER} alone ships the image set")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
