#!/usr/bin/env python3
"""Render the Nginx site, one file, from nginx/fox-avatar.conf.j2.

    nginx/render.py [VARS.json ...] [name=value ...] [--images DIR] [-o OUTPUT]

Variables come from JSON files and name=value pairs (a value is parsed as JSON when it can be:
443, true, ["127.0.0.1"]; otherwise it is a string). --images DIR sets avatar_image_set from
DIR/manifest.tsv (imageset.nginx.template_data; every file it lists must be in DIR).
The template pulls in fox-avatar/*.conf with Jinja's include (search path: this directory), with
the Jinja settings of Ansible's template module: trim_blocks, and the template's trailing newline
kept (Ansible adds it back; an included file's is dropped). A missing variable or an incomplete
image set is a one-line error naming it (exit 2). Needs Jinja2 (the venv; Debian's python3-jinja2).
"""
import argparse
import json
import os
import sys
from pathlib import Path

import jinja2

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "fox-avatar.conf.j2"
sys.path.insert(0, str(HERE.parent))   # imageset/: the repository root, or the image's lib dir
from imageset import ManifestError, read_manifest  # noqa: E402
from imageset.nginx import template_data  # noqa: E402


def render(variables, template=TEMPLATE):
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.dirname(template)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        autoescape=False,
    )
    text = env.get_template(os.path.basename(template)).render(**variables)
    source = Path(template).read_text(encoding="utf-8")
    missing = (len(source) - len(source.rstrip("\n"))) - (len(text) - len(text.rstrip("\n")))
    return text + "\n" * max(missing, 0)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="*", metavar="VARS.json|name=value")
    parser.add_argument("--images", metavar="DIR", help="set avatar_image_set from DIR/manifest.tsv")
    parser.add_argument("-o", "--output", help="file to write (default: stdout)")
    args = parser.parse_args(argv)
    variables = {}
    for item in args.inputs:
        if "=" in item and not item.endswith(".json"):
            name, value = item.split("=", 1)
            try:
                variables[name] = json.loads(value)
            except ValueError:
                variables[name] = value
        else:
            with open(item, encoding="utf-8") as f:
                variables.update(json.load(f))
    return args, variables


def main(argv=None):
    args, variables = parse_args(argv)
    if args.images is not None:
        try:
            m = read_manifest(args.images)
        except ManifestError as e:
            print(f"render: --images: {e}", file=sys.stderr)
            return 2
        variables["avatar_image_set"] = template_data(m)
    try:
        text = render(variables)
    except jinja2.UndefinedError as e:
        print(f"render: missing variable: {e.message}", file=sys.stderr)
        return 2
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
