"""A set made from someone's own pictures by `make images SRC=... OUT=...`, on the loopback stack:
`/` answers only its pictures, every size and format is served, the fill rule holds, the fallback
agrees, and the names of the set served before redirect into it (tests/stack/custom_set.py), the
drawn set's identities too."""
import os
import shutil
import tempfile

import pytest

from imageset import read_manifest
from imageset.contract import BLANK, MP
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
    SVG, the default size, in the format its Accept gets here; and that file is served."""
    m, vs = read_manifest(stack.images_dir), read_manifest(REPO / "images", check_files=False).variants
    assert m.variants is None and vs, "needs an own set served and the drawn set's identities"
    cases = [(vs.location(stem, 0, True), "chromium", fox, m.default_size)
             for stem, fox in [(vs.stem(2, 23), 2), (vs.stem(21, 0), None), (MP, None), (BLANK, None)]]
    cases += [(vs.location(vs.stem(fox, 7), size, False), client, fox if fox <= 3 else None, size)
              for fox in (1, 3, 7) for size in vs.sizes for client in ("curl", "old-safari")]
    for path, client, fox, size in cases:
        accept, fmt = ACCEPT[client]
        r = get(stack, path, headers={"Accept": accept})
        assert (r.status, r.header("Cache-Control")) == (302, "no-store"), (path, r.status, r.header("Cache-Control"))
        assert r.header("Access-Control-Allow-Origin") == "*" and r.header("Strict-Transport-Security"), path
        e = redirect_entry(stack, m, r)
        assert "/" + e.path == m.answer(fox or e.fox, size, fmt), (path, client, e)
        assert get(stack, "/" + e.path).status == 200, e.path
    stem = vs.stem(2, 23)
    for never in [vs.location(stem, 0, True) + ".gz", f"/i/{stem}.svg", f"/{vs.directory}/x/{stem}.svg",
                  f"/{vs.directory}/{stem}.png", f"/{vs.directory}/Renard-2.svg", f"/{vs.directory}/{stem}-64.webp"]:
        assert get(stack, never).status == 404, never

