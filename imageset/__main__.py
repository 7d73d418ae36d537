"""python3 -m imageset COMMAND ... (from the repository root, or PYTHONPATH=ROOT): the image set's command line.

    write DIR [--prefix P] [--ids FILE] [--no-legacy]
        name DIR's rendered PREFIX-N-SIZE.EXT files by content and write DIR/manifest.tsv (writer.py;
        the ids are PREFIX-N, or FILE's lines, one per picture); prints the summary
    check DIR        read and check DIR's set (manifest and every file it lists); prints a summary
    copy SRC DEST    copy SRC's set (its manifest and the files it lists, nothing else) into DEST
    swap-in SCRATCH OUT   swap the finished set in SCRATCH into OUT (files.swap_in)
    java [FILE]      write the sidecar's ImageSetContract.java (java.py)

A bad set or argument: one line on stderr naming it, exit 1 (usage: exit 2).
"""
import sys

from .files import copy_set, swap_in
from .java import write as write_java
from .manifest import ManifestError, read_manifest
from .writer import ManifestInputError, rendered, write_set

USAGE = "usage: python3 -m imageset write DIR [--prefix P] [--ids FILE] [--no-legacy] | check DIR | copy SRC DEST | swap-in SCRATCH OUT | java [FILE]"


def _write(argv):
    args, prefix, ids_file, legacy = [], "Renard", None, True
    it = iter(argv)
    for a in it:
        if a == "--prefix":
            prefix = next(it, "")
        elif a == "--ids":
            ids_file = next(it, "")
        elif a == "--no-legacy":
            legacy = False
        else:
            args.append(a)
    if len(args) != 1:
        print(USAGE, file=sys.stderr)
        return 2
    scratch = args[0]
    found = rendered(scratch, prefix)
    if ids_file:
        with open(ids_file, encoding="utf-8") as f:
            ids = f.read().splitlines()
        if len(ids) != len(found):
            print(f"manifest: {ids_file} has {len(ids)} ids for {len(found)} pictures", file=sys.stderr)
            return 1
    else:
        ids = [f"{prefix}-{n}" for n, _ in found]
    print(write_set(scratch, [(n, i, sizes) for (n, sizes), i in zip(found, ids)], prefix, legacy))
    return 0


def main(argv):
    command, args = (argv[0], argv[1:]) if argv else ("", [])
    try:
        if command == "write":
            return _write(args)
        if command == "check" and len(args) == 1:
            m = read_manifest(args[0])
            print(f"{args[0]}: {len(m.foxes)} pictures, {len(m.paths())} files, ladder {m.sizes}")
            return 0
        if command == "copy" and len(args) == 2:
            print(f"copy: {copy_set(*args)} files")
            return 0
        if command == "swap-in" and len(args) == 2:
            swap_in(*args)
            return 0
        if command == "java" and len(args) <= 1:
            print(write_java(*args))
            return 0
    except (ManifestError, ManifestInputError) as e:
        print(f"{command}: {e}", file=sys.stderr)
        return 1
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
