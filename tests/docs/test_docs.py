"""The docs against the repository (make test-docs): every relative link in every Markdown doc resolves (file
and #anchor); every repository path, `make` target and compose setting AVATAR_* a doc names exists; the
docs keep their word budgets and tell no history (issue numbers, dated run diaries)."""
import fnmatch
import re
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README_WORDS = 800
USER_PAGES_WORDS = 15_000       # README.md, docs/*.md but the benchmark's report, the collection's README
DEVELOPER_DOC_WORDS = 2_000     # each
DEVELOPER_DOCS = ("docs/architecture.md", "tests/README.md", "nginx/README.md", "app/README.md")
CHANGELOG_LINES = 80

# Markdown copies the benchmark's report test renders into (links relative to another place): not docs.
NOT_DOCS = ("tests/bench/fixture/", "tests/bench/expected/")


def repo_files():
    """Tracked files plus new ones not yet committed (not ignored)."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return sorted({f for f in out.split("\0") if f and (ROOT / f).exists()})


def docs():
    """Every Markdown file; a link to another one (ansible/CHANGELOG.md, the collection's copy of the
    changelog) is that one, checked once where it lives."""
    return [f for f in repo_files() if f.endswith(".md") and not f.startswith(NOT_DOCS)
            and not (ROOT / f).is_symlink()]


# ---------------------------------------------------------------- Markdown reading

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)


def prose(text):
    """The text without fenced code blocks and code spans (links are not links inside code)."""
    return CODE_SPAN.sub(" ", FENCE.sub("", text))


def code(text):
    """(inline code spans, fenced blocks) of a Markdown text."""
    blocks = [m.group(0) for m in FENCE.finditer(text)]
    spans = [m.group(2) for m in CODE_SPAN.finditer(FENCE.sub("", text))]
    return spans, blocks


def slug(heading):
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation removed, spaces to '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)       # links: their text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    text = re.sub(r"[*_~]", lambda m: m.group(0) if m.group(0) == "_" else "", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@lru_cache(maxsize=None)
def anchors(path):
    text = FENCE.sub("", Path(path).read_text())
    seen, out = {}, set()
    for m in HEADING.finditer(text):
        s = slug(m.group(2))
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    out.update(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", text))
    return out


def link_problems(doc):
    """Every relative link of doc (a path from the repository root) that does not resolve."""
    here = ROOT / doc
    bad = []
    for target in LINK.findall(prose(here.read_text())):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("//"):
            continue  # https:, mailto:, ...: not this test's business
        path, _, anchor = target.partition("#")
        dest = (here.parent / path).resolve() if path else here
        if not dest.exists():
            bad.append(f"{doc}: link {target}: no file {path}")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{doc}: link {target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
        elif anchor and dest.is_dir():
            bad.append(f"{doc}: link {target}: an anchor into a directory")
    return bad


# ---------------------------------------------------------------- names

def ignored(path):
    """Whether git ignores the path (build outputs: app/target/avatar.jar, .venv/...)."""
    return subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=ROOT).returncode == 0


PLACEHOLDER = re.compile(r"<[^<>]*>|\{[^{}]*\}|\.\.\.|\b[A-Z][A-Z0-9_]{0,9}\b")


@lru_cache(maxsize=None)
def entries(directory):
    """The first path parts of the repository's files under directory ("" = the root)."""
    prefix = f"{directory}/" if directory else ""
    return {f[len(prefix):].split("/", 1)[0] for f in repo_files() if f.startswith(prefix)}


def path_tokens(span, base=""):
    """Words of a code span that name a repository path (from the root): their first part is a top-level
    entry of the repository (app/..., docs/bench.md, Makefile), or, with a slash, an entry of the doc's
    own directory base (nginx/README.md's `compose/docker-entrypoint.sh`). Placeholders (<hash>, N, NAME, {a,b})
    become globs."""
    for word in root_words(span):
        first = word.split("/", 1)[0]
        if first in entries("") and (word != first or "." in first or first == "Makefile"):
            yield word
        elif base and "/" in word and first in entries(base):
            yield f"{base}/{word}"


def root_words(span):
    span = re.sub(r"<[^<>]*>", "*", span)
    for word in span.split():
        word = word.strip("\"'(),;:").lstrip("@")
        word = re.sub(r"^[A-Za-z_]+=", "", word)          # KEY=path
        if not word or word.startswith(("/", "~", "$", "-", "http")) or "://" in word:
            continue
        yield word


def path_exists(word):
    if (ROOT / word).exists():
        return True
    pattern = PLACEHOLDER.sub("*", word).rstrip("/")
    if pattern != word.rstrip("/") or "*" in word:
        files = repo_files()
        dirs = {str(Path(f).parent) for f in files}
        if any(fnmatch.fnmatchcase(f, pattern) for f in files) or any(fnmatch.fnmatchcase(d, pattern) for d in dirs):
            return True
    return ignored(word)


@lru_cache(maxsize=None)
def make_targets():
    text = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([A-Za-z][\w.-]*)\s*:(?!=)", text, re.M))
    return targets - {"SHELL", "JAR", "MVN"}


MAKE = re.compile(r"(?:^|[\s;&|(`$])make\s+((?:-\S+\s+)*)([A-Za-z][\w*-]*)", re.M)


def make_names(text):
    spans, blocks = code(text)
    for chunk in spans + blocks:
        for line in chunk.splitlines():
            if not re.search(r"\bapt(-get)? install\b", line):  # there make is a package
                yield from (m.group(2) for m in MAKE.finditer(line))


AVATAR = re.compile(r"\bAVATAR_[A-Z0-9_]*[A-Z0-9]\b")


def compose_settings():
    """The compose settings: what docker-compose.yml reads from the environment."""
    return set(re.findall(r"\$\{(AVATAR_[A-Z0-9_]+)", (ROOT / "docker-compose.yml").read_text()))


def stack_settings():
    """The Swarm stack's settings: what docker-stack.yml reads from the environment."""
    return set(re.findall(r"\$\{(AVATAR_[A-Z0-9_]+)", (ROOT / "docker-stack.yml").read_text()))


@lru_cache(maxsize=None)
def known_avatar_names():
    """Every AVATAR_* name something reads: the compose settings, and the names the sidecar (app/src/main),
    the container entry points (nginx/compose, app/), the tests and tools read (their code, not docs)."""
    names = set(compose_settings()) | stack_settings()
    for f in repo_files():
        if f.endswith(".md") or f.startswith(("docs/", "tests/docs/")) or not f.startswith(("app/", "nginx/", "tests/", "tools/", "bench/")):
            continue
        try:
            names |= set(AVATAR.findall((ROOT / f).read_text()))
        except (UnicodeDecodeError, IsADirectoryError):
            continue
    return names


def words(doc):
    """What `wc -w` counts."""
    return len((ROOT / doc).read_text().split())


def user_pages():
    return ["README.md", "ansible/README.md"] + sorted(
        f for f in docs() if f.startswith("docs/") and f.count("/") == 1 and f != "docs/bench.md")


ISSUE_REF = re.compile(r"\bissues? #?\d+\b|(?<![\w&#])#\d+\b", re.I)
DIARY = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b|\b(?:passed|failed|took|ran) in \d|\bwall time\b", re.I)
RELEASE_HEADING = re.compile(r"^## \[[^\]]+\] - 20\d\d-\d\d-\d\d$")


def issue_refs(text):
    return ISSUE_REF.findall(re.sub(r"\]\([^)]*\)", "]()", text))


def diary_lines(text):
    return [line for line in text.splitlines() if DIARY.search(line) and not RELEASE_HEADING.match(line)]


# ---------------------------------------------------------------- the tests

def test_readme_is_a_door():
    assert words("README.md") <= README_WORDS, f"README.md: {words('README.md')} words, at most {README_WORDS}"


def test_the_user_pages_fit_their_budget():
    counts = {doc: words(doc) for doc in user_pages()}
    assert sum(counts.values()) <= USER_PAGES_WORDS, f"{sum(counts.values())} words in all: {counts}"


@pytest.mark.parametrize("doc", DEVELOPER_DOCS)
def test_a_developer_doc_fits_its_budget(doc):
    assert words(doc) <= DEVELOPER_DOC_WORDS


def test_the_changelog_is_short():
    lines = (ROOT / "CHANGELOG.md").read_text().count("\n")
    assert lines <= CHANGELOG_LINES, f"CHANGELOG.md: {lines} lines (what a release holds, for its users)"


@pytest.mark.parametrize("doc", docs())
def test_no_doc_names_an_issue(doc):
    assert issue_refs((ROOT / doc).read_text()) == []


@pytest.mark.parametrize("doc", [d for d in docs() if d != "docs/bench.md"])
def test_no_doc_keeps_a_diary(doc):
    """Dates and run times belong to the CI log and the commits (docs/bench.md holds the measurements)."""
    assert diary_lines((ROOT / doc).read_text()) == []


@pytest.mark.parametrize("doc", docs())
def test_every_relative_link_resolves(doc):
    assert link_problems(doc) == []


@pytest.mark.parametrize("doc", docs())
def test_every_repository_path_named_exists(doc):
    spans, _ = code((ROOT / doc).read_text())
    base = str(Path(doc).parent) if "/" in doc else ""
    missing = sorted({w for s in spans for w in path_tokens(s, base) if not path_exists(w)})
    assert missing == [], f"{doc} names paths the repository does not have"


@pytest.mark.parametrize("doc", docs())
def test_every_make_target_named_exists(doc):
    targets = make_targets()
    unknown = sorted({t for t in make_names((ROOT / doc).read_text())
                      if not any(fnmatch.fnmatchcase(x, t) for x in targets)})
    assert unknown == [], f"{doc} names make targets the Makefile lacks (it has {sorted(targets)})"


@pytest.mark.parametrize("doc", docs())
def test_every_avatar_setting_named_exists(doc):
    unknown = sorted(set(AVATAR.findall((ROOT / doc).read_text())) - known_avatar_names())
    assert unknown == [], f"{doc} names AVATAR_* settings nothing reads (compose: {sorted(compose_settings())})"


def test_every_compose_and_stack_setting_is_described():
    pages = "".join((ROOT / d).read_text() for d in docs() if d.startswith("docs/"))
    assert sorted(s for s in compose_settings() | stack_settings() if f"`{s}`" not in pages) == []


def test_the_checks_can_fail(tmp_path):
    """The readers find what they must: a made-up link, path, target and setting are caught."""
    assert slug("Deploy with `compose` (v2)!") == "deploy-with-compose-v2"
    assert list(path_tokens("cp tests/docs/test_docz.py images/Renard-N.png")) == ["tests/docs/test_docz.py",
                                                                                   "images/Renard-N.png"]
    assert not path_exists("tests/docs/test_docz.py") and path_exists("images/Renard-N.png")
    assert path_exists("app/target/avatar.jar")  # a build output .gitignore names
    assert list(make_names("run `make tset-app` or\n```sh\nmake -j2 bench\n```\nto make the key")) == ["tset-app", "bench"]
    assert "AVATAR_HTTPS_PROT" not in known_avatar_names() and "AVATAR_HTTPS_PORT" in compose_settings()
    assert "AVATAR_NGINX_NODES" in stack_settings() and "AVATAR_NGINX_NODE" not in known_avatar_names()
    assert issue_refs("fixed in issue 45, see #12 and [x](#10-000-browsers), &#39;") == ["issue 45", "#12"]
    assert diary_lines("## [1.0.0] - 2026-12-01\nOn 2026-11-27 make test passed in 35:05.\n") == [
        "On 2026-11-27 make test passed in 35:05."]


# A file a doc has its reader write into the checkout: a shell redirection (`> .env`, `>> .env`,
# `cat > ansible/inventory.yml`), `mkdir -p certs`, a `LIST=` file, a setting naming `./FILE`.
WRITTEN = re.compile(r"(?:(?:^|\s)(?:>>?|mkdir -p|LIST=)\s*|=\./)([A-Za-z0-9_.][A-Za-z0-9_./-]*)")


def written_in_checkout(text):
    spans, blocks = code(text)
    for chunk in spans + blocks:
        for line in chunk.splitlines():
            for m in WRITTEN.finditer(line):
                name = m.group(1).rstrip(".")
                if name and name != "&1":
                    yield name + ("/" if "mkdir" in m.group(0) or name == "certs" else "")
            if "docker-compose.override.yml" in line:
                yield "docker-compose.override.yml"


@pytest.mark.parametrize("doc", [d for d in docs() if d == "README.md" or d.startswith("docs/")])
def test_files_the_docs_have_readers_write_into_the_checkout_are_ignored(doc):
    """`git add .` must not take an owner's settings, keys, lists or inventories: git's own answer."""
    names = sorted(set(written_in_checkout((ROOT / doc).read_text())))
    tracked = set(repo_files())
    names = [n for n in names if n not in tracked and not n.startswith(("dev/", "tmp/"))]
    if not names:
        return
    done = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "--no-index", "--stdin", "-v", "-n"],
                          input="\n".join(names) + "\n", capture_output=True, text=True)
    unignored = [line.split("\t")[1] for line in done.stdout.splitlines() if line.startswith("::\t")]
    assert unignored == [], f"{doc} has readers write these into the checkout, and .gitignore lets git add them"
