"""A set made from someone's own pictures by `make images SRC=... OUT=...`, on the loopback stack:
`/` answers only its pictures, every size and format is served, the fill rule holds, the fallback
agrees, and the names of the set served before redirect into it (tests/stack/custom_set.py)."""
import os
import shutil
import tempfile

import pytest

from imageset import read_manifest
from stack.custom_set import REPO, assert_retired_names_redirect, assert_serves_the_custom_set, make_custom_set
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
