"""Loopback: a set made from someone's own pictures by `make images SRC=... OUT=...`, served by
the real jar and a real Nginx (the loopback stack given that directory): `/` answers only its
pictures, every size and format is served, the fill rule holds, the fallback agrees; and a real
browser shows a page of its avatars.

FOX_AVATAR_SCREENSHOT_CUSTOM=PATH saves that page as PNG (docs/own-pictures.png is made so:
FOX_AVATAR_SCREENSHOT_CUSTOM=$PWD/docs/own-pictures.png CI=true tests/nginx/run.sh -k custom_set)."""
import os
import shutil
import tempfile

import pytest

from imageset import read_manifest
from stack.custom_set import REPO, assert_retired_names_redirect, assert_serves_the_custom_set, make_custom_set
from stack.stacks import LoopbackStack
from conftest import keyed_img, serve_html
from test_browser import open_page

PEOPLE = ["Ada", "Alan", "Linus", "Margaret", "Ken", "Barbara", "Grace", "Dennis"]


@pytest.fixture(scope="module")
def stack():
    """This module's stack (the browser fixture's too): the loopback stack serving a custom set."""
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


@pytest.fixture(scope="module")
def page_url(stack, tmp_path_factory):
    cells = "\n".join(f'<figure>{keyed_img(stack, i, n, 64)}<figcaption>{n}</figcaption></figure>'
                      for i, n in enumerate(PEOPLE))
    with serve_html(tmp_path_factory, "team", "<p>Our own pictures, one per key (make images SRC=pictures "
                    "OUT=set):</p><main>\n" + cells + "\n</main>", style=(
                        "body{margin:0;padding:16px;font:14px/1.3 sans-serif;background:#fafafa;width:608px}"
                        "main{display:grid;grid-template-columns:repeat(8,64px);gap:12px}"
                        "figure{margin:0;text-align:center}img{border-radius:50%;display:block}")) as page:
        yield page


def test_a_browser_shows_a_page_of_the_sets_avatars(stack, browser, page_url):
    open_page(browser, page_url)
    for i, name in enumerate(PEOPLE):
        w, h = browser.execute_script("return [arguments[0].naturalWidth, arguments[0].naturalHeight]",
                                      browser.find_element("id", f"a{i}"))
        assert (w, h) in ((64, 64), (128, 128)), f"{name}: {w}x{h}"
    if os.environ.get("FOX_AVATAR_SCREENSHOT_CUSTOM"):
        browser.find_element("tag name", "body").screenshot(os.environ["FOX_AVATAR_SCREENSHOT_CUSTOM"])
