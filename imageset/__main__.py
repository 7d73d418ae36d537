"""python3 -m imageset COMMAND ... (from the repository root, or PYTHONPATH=ROOT): the image set's command line.

    write DIR [--variants DIR:COUNT:SIZE,...]   images/draw.sh: DIR's Renard-N-SIZE.EXT named, listed (writer.py)
    check DIR                                    read and check DIR's set and every file it lists
    swap-in SCRATCH OUT                          images/draw.sh: files.swap_in
    people TEAM [--images DIR | --env FILE]      make people: people.tsv for TEAM and the set DIR, else
                                                 the AVATAR_IMAGES_DIR a compose .env FILE sets, else images/

A bad set or argument: one line on stderr naming it, exit 1 (usage: exit 2).
"""
import os
import shlex
import sys

from .files import swap_in
from .manifest import ManifestError, read_manifest
from .people import PeopleError, people
from .writer import ManifestInputError, rendered, write_set

USAGE = "usage: python3 -m imageset write DIR [--variants DIR:COUNT:SIZES] | check DIR | swap-in SCRATCH OUT | people TEAM [--images DIR | --env FILE]"
DRAWN = "images"        # the set `make images` draws, and compose serves without AVATAR_IMAGES_DIR


def _write(scratch, variants=None):
    if variants:
        directory, count, sizes = variants.split(":")
        variants = (directory, int(count), [int(x) for x in sizes.split(",")])
    print(write_set(scratch, [(n, f"Renard-{n}", sizes) for n, sizes in rendered(scratch, "Renard")], variants=variants))
    return 0


def env_images_dir(env_file):
    """The AVATAR_IMAGES_DIR a compose .env file sets (its last line for it; quotes and $VARIABLES
    as compose reads them; relative to the file's directory), or None: not set, or no file."""
    value = None
    try:
        with open(env_file, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return None
    for line in lines:
        name, eq, v = line.strip().removeprefix("export ").partition("=")
        if eq and name.strip() == "AVATAR_IMAGES_DIR":
            v = v.strip()
            if v[:1] == "'" and v[-1:] == "'" and len(v) > 1:
                value = v[1:-1]
            else:
                v = v[1:-1] if v[:1] == '"' and v[-1:] == '"' and len(v) > 1 else v.split(" #")[0].strip()
                value = os.path.expandvars(v)
    if not value:
        return None
    return os.path.join(os.path.dirname(env_file), os.path.expanduser(value))


def _people(args):
    """people TEAM [--images DIR | --env FILE]: people.tsv on stdout; its set's source on stderr."""
    team, option, value = (args + [None, None])[:3]
    if option == "--images":
        images, source = value, f"IMAGES={shlex.quote(value)}"
    else:
        images = env_images_dir(value) if option == "--env" else None
        source = f"AVATAR_IMAGES_DIR={shlex.quote(images)} ({value})" if images else f"{DRAWN}/, the drawn foxes" + (
            f" (no IMAGES, and {value} sets no AVATAR_IMAGES_DIR)" if option else "")
        images = images or DRAWN
    try:
        m = read_manifest(images, check_files=False)
    except ManifestError as e:
        raise PeopleError(f"the set {source}: {e}") from None
    try:
        with open(team, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeError) as e:
        raise PeopleError(f"{team}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    try:
        listed = people(text, m, team)
    except PeopleError as e:
        raise PeopleError(f"{e}, in the set {source}") from None
    print(listed, end="")
    print(f"people: {len(listed.splitlines()) - 1} hashes listed, with pictures of the set {source}", file=sys.stderr)
    return 0


def main(argv):
    command, args = (argv[0], argv[1:]) if argv else ("", [])
    try:
        if command == "write" and (len(args) == 1 or len(args) == 3 and args[1] == "--variants"):
            return _write(args[0], args[2] if len(args) == 3 else None)
        if command == "check" and len(args) == 1:
            m = read_manifest(args[0])
            print(f"{args[0]}: {len(m.foxes)} pictures, {len(m.paths())} files, ladder {m.sizes}")
            return 0
        if command == "swap-in" and len(args) == 2:
            swap_in(*args)
            return 0
        if command == "people" and len(args) in (1, 3) and args[1:2] in ([], ["--images"], ["--env"]):
            return _people(args)
    except (ManifestError, ManifestInputError, PeopleError, OSError) as e:
        print(f"{command}: {e}", file=sys.stderr)
        return 1
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
