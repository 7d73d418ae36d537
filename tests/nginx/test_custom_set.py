"""Loopback: a set made from someone's own pictures by `make images SRC=... OUT=...`, served by
the real jar and a real Nginx (the loopback stack given that directory): `/` answers only its
pictures, every size and format is served, the fill rule holds, the fallback agrees."""
import os
import shutil
import tempfile

import pytest

from stack.custom_set import assert_serves_the_custom_set, make_custom_set
from stack.stacks import LoopbackStack


@pytest.fixture(scope="module")
def custom_stack():
    own = tempfile.mkdtemp(prefix="fox-avatar-own-set.", dir="/var/tmp")   # readable by Nginx's workers
    try:
        os.chmod(own, 0o755)
        s = LoopbackStack(images_dir=make_custom_set(own))
        try:
            yield s
        finally:
            s.close()
    finally:
        shutil.rmtree(own, ignore_errors=True)


def test_loopback_serves_a_set_of_own_pictures_and_only_it(custom_stack):
    assert_serves_the_custom_set(custom_stack)
