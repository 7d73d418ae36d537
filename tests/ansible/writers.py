#!/usr/bin/env python3
"""Each role writes only its own files (ansible/README.md, "Roles"): who writes the certificate
and key Nginx reads, and who ships the image directory, read from the roles' tasks and templates.

  python tests/ansible/writers.py [ROLES_DIR]     (default ansible/roles)

- A task that writes on the host (copy, template, file, a community.crypto key or certificate,
  unarchive, ...) with a `dest`/`path` (or a loop item's) under the TLS directory, or a template or
  script that names those paths, is fox_avatar_tls's, and no other role's. The TLS paths are the
  TLS variables and directory, and every variable whose value names one of them, however far down
  (a role's defaults or vars, a set_fact, the task's own vars): fox_avatar_nginx_tls_certificate's
  default is fox_avatar_tls_cert_path, so a task writing to it writes the certificate.
- Every file below tasks/, handlers/ and templates/ is read, at any depth.
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
    own = task.get("vars") if isinstance(task.get("vars"), dict) else {}
    while named := [n for n in own if any(n in f for f in found)]:   # the task's own vars it writes to
        found += [yaml.safe_dump(own.pop(n)) for n in named]
    return " ".join(found)


def yaml_files(directory):
    return sorted(p for p in directory.rglob("*") if p.is_file() and p.suffix in (".yml", ".yaml"))


def definitions(roles):
    """{variable: its value as text} of every role's defaults and vars and every set_fact."""
    found = {}
    for path in yaml_files(roles):
        rel = path.relative_to(roles).parts
        if len(rel) < 3 or rel[1] not in ("defaults", "vars", "tasks", "handlers"):
            continue
        data = yaml.safe_load(path.read_text())
        if rel[1] in ("defaults", "vars"):
            items = data.items() if isinstance(data, dict) else []
        else:
            items = [kv for task in tasks(data if isinstance(data, list) else [])
                     for key, args in task.items() if key.rsplit(".", 1)[-1] == "set_fact" and isinstance(args, dict)
                     for kv in args.items()]
        for name, value in items:
            found[name] = found.get(name, "") + " " + yaml.safe_dump(value)
    return found


def widened(pattern, variables):
    """pattern, or any variable whose value names what it matches, to a fixed point."""
    names = set()
    while True:
        regex = re.compile("|".join([pattern.pattern] + [rf"\b{re.escape(n)}\b" for n in sorted(names)]))
        more = {n for n, value in variables.items() if n not in names and regex.search(value)}
        if not more:
            return regex, names
        names |= more


def main():
    roles = Path(sys.argv[1] if len(sys.argv) > 1 else "ansible/roles")
    problems, shippers = [], set()
    variables = definitions(roles)
    tls_paths, _ = widened(TLS_PATHS, variables)
    images_paths, _ = widened(IMAGES_PATHS, variables)
    task_files = [p for role in sorted(roles.iterdir()) for d in ("tasks", "handlers") for p in yaml_files(role / d)]
    for tasks_file in task_files:
        role = tasks_file.relative_to(roles).parts[0]
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
            if role != TLS_OWNER and tls_paths.search(dest):
                problems.append(f"{where}: writes under the TLS directory (only {TLS_OWNER} does)")
            if role != IMAGES_OWNER and name != "command" and images_paths.search(dest):
                problems.append(f"{where}: writes to an images directory (only {IMAGES_OWNER} does)")
    for template in sorted(p for p in roles.glob("*/templates/**/*") if p.is_file()):
        role = template.relative_to(roles).parts[0]
        if role != TLS_OWNER and tls_paths.search(template.read_text()):
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
