#!/usr/bin/env python3
"""The docs' shell blocks, run as written (stdlib only: any layer's python3 can import or run it).

Library:
  blocks(page)                 the fenced ```sh (or ```bash) blocks of a page, in order
  run(page, index=0, cwd=None, env=None, clone_from=None, hosts=None, timeout=None)
                               runs one block with `bash -euo pipefail` in cwd (default: a new temporary
                               directory); on exit 0 records (page, index, sha256 of the block) under
                               .cache/docblocks/; raises BlockFailed otherwise
      clone_from=PATH          `git clone https://github.com/fox-avatar/fox-avatar` clones PATH instead
                               (git's url.PATH.insteadOf through GIT_CONFIG_COUNT/KEY_n/VALUE_n)
      hosts={NAME: ADDRESS}    NAME resolves to ADDRESS inside the block (an /etc/hosts bound over the real
                               one in a private mount namespace; needs root)
  snapshot()                   a bare repository whose branch main is the working tree as it is now
                               (uncommitted and untracked files included): a clone_from for a dirty tree
  journey_pages()              README.md and the pages its `## Journeys` section links in its bullets
  check(pages=None)            the problems (a list of strings): a page whose first block has no success
                               record matching its current text
CLI (for shell layers):
  tests/lib/docblocks.py run PAGE [INDEX] [--cwd DIR] [--clone-from PATH] [--host NAME=ADDRESS]...
  tests/lib/docblocks.py blocks PAGE          prints the blocks, each after a "# PAGE block N" line
  tests/lib/docblocks.py snapshot             prints the path of a new snapshot()
  tests/lib/docblocks.py clear                forgets every record (make test starts with it)
  tests/lib/docblocks.py check [PAGE...]      the journey pages by default; exit 1 on any problem
Records live in $DOCBLOCKS_CACHE (default .cache/docblocks at the repository root).
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLONE_URL = "https://github.com/fox-avatar/fox-avatar"
LANGUAGES = ("sh", "bash")
FENCE = re.compile(r"^([ \t]*)```([\w-]*)[^\n]*\n(.*?)^\1```[ \t]*$", re.M | re.S)


class BlockFailed(RuntimeError):
    pass


def _page(page):
    """(absolute path, name relative to the repository root) of a page given either way."""
    path = Path(page) if Path(page).is_absolute() else ROOT / page
    try:
        name = str(path.resolve().relative_to(ROOT))
    except ValueError:
        name = str(path)
    return path, name


def blocks(page):
    out = []
    for indent, lang, body in FENCE.findall(_page(page)[0].read_text()):
        if lang in LANGUAGES:
            out.append("".join(line[len(indent):] if line.startswith(indent) else line
                               for line in body.splitlines(keepends=True)))
    return out


def block(page, index=0):
    found = blocks(page)
    if index >= len(found):
        raise BlockFailed(f"{_page(page)[1]} has {len(found)} shell block(s) (```sh), no block {index}")
    return found[index]


def sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def cache_dir():
    return Path(os.environ.get("DOCBLOCKS_CACHE") or ROOT / ".cache" / "docblocks")


def _record_path(name, index):
    return cache_dir() / f"{name.replace('/', '__')}.{index}.json"


def clone_env(clone_from):
    """Git's configuration, through the environment, that makes CLONE_URL (with or without .git) PATH."""
    env = {k: v for k, v in os.environ.items() if k.startswith("GIT_CONFIG_")}
    n = int(env.get("GIT_CONFIG_COUNT", "0"))
    for url in (CLONE_URL, CLONE_URL + ".git"):
        env[f"GIT_CONFIG_KEY_{n}"] = f"url.{Path(clone_from).resolve()}.insteadOf"
        env[f"GIT_CONFIG_VALUE_{n}"] = url
        n += 1
    env["GIT_CONFIG_COUNT"] = str(n)
    return env


def snapshot(dest=None):
    """A bare repository (dest, default a new temporary one) whose branch main, and HEAD, is the working
    tree as it is now, tags included; the real index and refs are left alone."""
    dest = Path(dest or tempfile.mkdtemp(prefix="docblocks-snapshot-"))
    git = ["git", "-C", str(ROOT)]
    with tempfile.TemporaryDirectory() as tmp:
        index = Path(tmp) / "index"
        real = subprocess.run(git + ["rev-parse", "--git-path", "index"], capture_output=True, text=True,
                              check=True).stdout.strip()
        if (ROOT / real).exists():
            shutil.copy(ROOT / real, index)
        env = dict(os.environ, GIT_INDEX_FILE=str(index))
        subprocess.run(git + ["add", "-A"], env=env, check=True)
        tree = subprocess.run(git + ["write-tree"], env=env, capture_output=True, text=True,
                              check=True).stdout.strip()
    commit = subprocess.run(git + ["commit-tree", tree, "-p", "HEAD", "-m", "working tree snapshot"],
                            capture_output=True, text=True, check=True,
                            env=dict(os.environ, GIT_AUTHOR_NAME="docblocks", GIT_AUTHOR_EMAIL="docblocks@localhost",
                                     GIT_COMMITTER_NAME="docblocks", GIT_COMMITTER_EMAIL="docblocks@localhost"),
                            ).stdout.strip()
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(dest)], check=True)
    subprocess.run(git + ["push", "-q", str(dest), f"{commit}:refs/heads/main", "refs/tags/*:refs/tags/*"],
                   check=True)
    return dest


def _hosts_wrapper(hosts, tmp):
    """The command prefix that runs bash with hosts' names resolved, in a mount namespace of its own."""
    hosts_file = Path(tmp) / "hosts"
    hosts_file.write_text(Path("/etc/hosts").read_text()
                          + "".join(f"{addr} {name}\n" for name, addr in hosts.items()))
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            'mount --bind "$0" /etc/hosts && exec "$@"', str(hosts_file)]


def run(page, index=0, cwd=None, env=None, clone_from=None, hosts=None, timeout=None):
    """Runs block index of page verbatim; returns the cwd it ran in. Output goes to this process's."""
    path, name = _page(page)
    text = block(path, index)
    cwd = Path(cwd) if cwd else Path(tempfile.mkdtemp(prefix="docblock-"))
    full_env = dict(os.environ)
    if clone_from:
        full_env.update(clone_env(clone_from))
    full_env.update(env or {})
    print(f"docblocks: {name} block {index}, in {cwd}:\n"
          + "".join(f"    {line}\n" for line in text.splitlines()), flush=True)
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        cmd = (_hosts_wrapper(hosts, tmp) if hosts else []) + ["bash", "-euo", "pipefail", "-c", text]
        try:
            rc = subprocess.run(cmd, cwd=cwd, env=full_env, stdin=subprocess.DEVNULL, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            raise BlockFailed(f"{name} block {index} did not end within {timeout} s") from None
    seconds = round(time.monotonic() - start, 1)
    if rc != 0:
        raise BlockFailed(f"{name} block {index} failed (exit {rc}) after {seconds} s, run as written in {cwd}")
    record = _record_path(name, index)
    record.parent.mkdir(parents=True, exist_ok=True)
    tmp = record.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"page": name, "index": index, "sha256": sha256(text), "seconds": seconds,
                               "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}) + "\n")
    tmp.replace(record)
    print(f"docblocks: {name} block {index} passed in {seconds} s", flush=True)
    return cwd


def journey_pages(readme="README.md"):
    """README.md and every Markdown page a bullet of its `## Journeys` section links (relative links)."""
    path, name = _page(readme)
    m = re.search(r"^## Journeys[ \t]*\n(.*?)(?=^## |\Z)", path.read_text(), re.M | re.S)
    if not m:
        raise BlockFailed(f"{name} has no '## Journeys' section; name the pages: docblocks.py check PAGE...")
    pages = [name]
    for line in m.group(1).splitlines():
        if re.match(r"\s*[-*+]\s", line):
            for target in re.findall(r"\]\(\s*<?([^)\s>#]+\.md)(?:#[^)\s>]*)?>?\s*\)", line):
                page = _page(path.parent / target)[1]
                if page not in pages:
                    pages.append(page)
    return pages


def check(pages=None):
    problems = []
    for page in pages or journey_pages():
        path, name = _page(page)
        if not path.exists():
            problems.append(f"{name}: no such page")
            continue
        found = blocks(path)
        if not found:
            problems.append(f"{name}: no ```sh block (a journey page starts with its copy-paste block)")
            continue
        record = _record_path(name, 0)
        ran = json.loads(record.read_text()) if record.exists() else None
        if ran is None:
            problems.append(f"{name}: its first block never ran to success (no {record})")
        elif ran["sha256"] != sha256(found[0]):
            problems.append(f"{name}: its first block changed since it last ran to success ({ran['at']})")
    return problems


def main(argv):
    import argparse
    p = argparse.ArgumentParser(prog="docblocks.py", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run one block of a page as written")
    r.add_argument("page")
    r.add_argument("index", nargs="?", type=int, default=0)
    r.add_argument("--cwd")
    r.add_argument("--clone-from", metavar="PATH")
    r.add_argument("--host", action="append", default=[], metavar="NAME=ADDRESS")
    r.add_argument("--timeout", type=float)
    sub.add_parser("blocks").add_argument("page")
    sub.add_parser("snapshot")
    sub.add_parser("clear")
    sub.add_parser("check").add_argument("pages", nargs="*")
    a = p.parse_args(argv)
    try:
        if a.cmd == "run":
            hosts = dict(h.split("=", 1) for h in a.host)
            run(a.page, a.index, cwd=a.cwd, clone_from=a.clone_from, hosts=hosts or None, timeout=a.timeout)
        elif a.cmd == "blocks":
            for i, text in enumerate(blocks(a.page)):
                print(f"# {_page(a.page)[1]} block {i}\n{text}")
        elif a.cmd == "snapshot":
            print(snapshot())
        elif a.cmd == "clear":
            shutil.rmtree(cache_dir(), ignore_errors=True)
        else:
            pages = a.pages or journey_pages()
            problems = check(pages)
            for line in problems:
                print(f"docblocks: {line}", file=sys.stderr)
            print(f"docblocks: {len(pages) - len(problems)} of {len(pages)} journey pages' first blocks "
                  "ran as written")
            return 1 if problems else 0
    except BlockFailed as e:
        print(f"docblocks: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
