"""A set made from someone's own pictures by `make images SRC=... OUT=...`, on the loopback stack:
`/` answers only its pictures, every size and format is served, the fill rule holds, the fallback
agrees, and the names of the set served before redirect into it (tests/stack/custom_set.py), the
drawn set's identities too; `make people` against it gives a list the sidecar takes."""
import hashlib
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from imageset import read_manifest
from imageset.contract import BLANK, MP
from imageset.people import read_people
from stack.client import get
from stack.custom_set import REPO, assert_retired_names_redirect, assert_serves_the_custom_set, make_custom_set
from stack.images import ACCEPT, redirect_entry
from stack.stacks import LoopbackStack


@pytest.fixture(scope="module")
def stack():
    """This module's stack: the loopback stack serving a custom set."""
    own = tempfile.mkdtemp(prefix="fox-avatar-own-set.", dir="/var/tmp")   # readable by Nginx's workers
    os.chmod(own, 0o755)
    try:
        s = LoopbackStack(images_dir=make_custom_set(own))
        try:
            yield s
        finally:
            s.close()
    finally:
        shutil.rmtree(own, ignore_errors=True)


def test_loopback_serves_a_set_of_own_pictures_and_only_it(stack):
    assert_serves_the_custom_set(stack)


def test_a_redirect_cached_before_the_set_changed_never_leads_to_a_404(stack):
    """The fox set's files are the ones a keyed redirect cached before the change names."""
    assert_retired_names_redirect(stack, read_manifest(REPO / "images"))


def test_a_keyed_identity_cached_before_the_switch_to_own_pictures_lands_on_a_picture(stack):
    """A set of one's own has no identities. A keyed redirect a browser (an SVG) or a downloader (a
    PNG of a size) kept from the drawn set gets a 302, never cached, to this set's picture of that
    number (any picture where it has fewer; d=mp's and d=blank's too), at the PNG's size or, for an
    SVG, the default size, in the last format whatever Accept lists; and that file is served."""
    m, vs = read_manifest(stack.images_dir), read_manifest(REPO / "images", check_files=False).variants
    assert m.variants is None and vs, "needs an own set served and the drawn set's identities"
    cases = [(vs.location(stem, 0, True), "chromium", fox, m.default_size)
             for stem, fox in [(vs.stem(2, 23), 2), (vs.stem(21, 0), None), (MP, None), (BLANK, None)]]
    cases += [(vs.location(vs.stem(fox, 7), size, False), client, fox if fox <= 3 else None, size)
              for fox in (1, 3, 7) for size in vs.sizes for client in ("curl", "old-safari")]
    for path, client, fox, size in cases:
        r = get(stack, path, headers={"Accept": ACCEPT[client][0]})
        assert (r.status, r.header("Cache-Control")) == (302, "no-store"), (path, r.status, r.header("Cache-Control"))
        assert r.header("Access-Control-Allow-Origin") == "*" and r.header("Strict-Transport-Security"), path
        e = redirect_entry(stack, m, r)
        assert "/" + e.path == m.answer(fox or e.fox, size, m.formats[-1].ext), (path, client, e)
        assert get(stack, "/" + e.path).status == 200, e.path
    stem = vs.stem(2, 23)
    for never in [vs.location(stem, 0, True) + ".gz", f"/i/{stem}.svg", f"/{vs.directory}/x/{stem}.svg",
                  f"/{vs.directory}/{stem}.png", f"/{vs.directory}/Renard-2.svg", f"/{vs.directory}/{stem}-64.webp"]:
        assert get(stack, never).status == 404, never


def md5(address):
    return hashlib.md5(address.encode()).hexdigest()


def make_people(cwd, *args):
    """`make people ARGS` as the owner types it, in cwd (where people.tsv and .env are)."""
    return subprocess.run(["make", "-s", "-C", str(cwd), "-f", str(REPO / "Makefile"), "people", *args],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})


def test_make_people_against_the_set_compose_serves_gives_a_list_the_sidecar_takes(stack, tmp_path):
    """Own pictures, then a picture for each person: `make people` takes the set compose serves
    (.env's AVATAR_IMAGES_DIR, or IMAGES=DIR), so the list it writes starts the sidecar, which gives
    each listed person their picture. A list that names what the set lacks is refused
    in one line naming where the set came from, and people.tsv is left as it was."""
    team = tmp_path / "team.txt"
    team.write_text("alice@example.org 2\nbob@example.org\n")
    (tmp_path / ".env").write_text(f"AVATAR_HTTPS_PORT=8443\nAVATAR_IMAGES_DIR='{stack.images_dir}'\n")
    made = make_people(tmp_path, f"LIST={team}")
    assert made.returncode == 0, made.stderr
    assert f"AVATAR_IMAGES_DIR={stack.images_dir} (.env)" in made.stderr, made.stderr
    tsv = tmp_path / "people.tsv"
    assert make_people(tmp_path, f"LIST={team}", f"IMAGES={stack.images_dir}").returncode == 0
    m = read_manifest(stack.images_dir)
    listed = read_people(tsv.read_text(), m)
    assert listed[md5("alice@example.org")] == (2, None) and listed[md5("bob@example.org")][1] is None
    with_list = LoopbackStack(images_dir=stack.images_dir, app_args=["--people", str(tsv)])
    try:
        sidecar = redirect_entry(with_list, m, get(with_list, f"/?u={md5('alice@example.org')}&s=64"))
        assert sidecar == m.entry(m.answer(2, 64, "png")[1:])
    finally:
        with_list.close()

    drawn = tmp_path / "drawn"         # no .env: the drawn foxes, images/ of where make runs
    drawn.mkdir()
    (drawn / "images").symlink_to(REPO / "images")
    team.write_text("alice@example.org 2-v5\n")
    before = tsv.read_bytes()
    refused = make_people(tmp_path, f"LIST={team}")
    assert refused.returncode != 0 and tsv.read_bytes() == before
    lines = [line for line in refused.stderr.splitlines() if not re.match(r"make(\[\d+\])?: \*\*\* ", line)]
    assert lines == [f"people: {team} line 1: picture '2-v5' names an identity, but the set has none "
                     f"(no variants record), in the set AVATAR_IMAGES_DIR={stack.images_dir} (.env)"], refused.stderr
    assert make_people(drawn, f"LIST={team}").returncode == 0, "the drawn foxes (no .env) have identities"
