"""Compose serving a set of someone's own pictures: AVATAR_IMAGES_DIR names a directory made by
`make images SRC=... OUT=...` anywhere on the machine; both services mount it read-only, Nginx
renders its site file from it at start. `/` answers only its pictures, every size and format is
served, the fallback agrees, and the files of the set served before redirect into it, both ways
(tests/stack/custom_set.py, the loopback stack's checks); a directory
that is not a complete set stops Nginx with one line naming AVATAR_IMAGES_DIR."""
import os
import shutil
import tempfile

import pytest

from foxavatar.imageset import parse_manifest, read_manifest
from stack.custom_set import REPO, assert_retired_names_redirect, assert_serves_the_custom_set, make_custom_set
from stack.stacks import ExternalStack
from test_compose import compose, logs, recreate

pytestmark = pytest.mark.skipif(
    any(not os.environ.get(v) for v in ("COMPOSE_PROJECT_NAME", "AVATAR_HTTPS_PORT", "AVATAR_CA")),
    reason="needs a running compose project: run tests/compose/run.sh (make test-compose)")


@pytest.fixture(scope="module")
def own_set():
    own = tempfile.mkdtemp(prefix="fox-avatar-own-set.", dir="/var/tmp")   # readable by uid 33
    os.chmod(own, 0o755)
    try:
        yield make_custom_set(own)
    finally:
        shutil.rmtree(own, ignore_errors=True)


def external_stack(images_dir):
    return ExternalStack({
        "AVATAR_HOST": "localhost", "AVATAR_ADDR": "127.0.0.1",
        "AVATAR_HTTPS_PORT": os.environ["AVATAR_HTTPS_PORT"], "AVATAR_HTTP_PORT": os.environ["AVATAR_HTTP_PORT"],
        "AVATAR_CA": os.environ["AVATAR_CA"], "AVATAR_IMAGES_DIR": str(images_dir),
        "AVATAR_APP_STOP": "docker compose stop app",
        "AVATAR_APP_START": "docker compose up -d --wait --no-recreate app",
        "AVATAR_HTTP3": "1", "AVATAR_PQ": "1"})


def test_avatar_images_dir_serves_a_set_of_own_pictures_in_both_services(own_set):
    try:
        recreate(AVATAR_IMAGES_DIR=str(own_set))
        for service, target in (("app", "/opt/avatar/images"), ("nginx", "/srv/fox-avatar/images")):
            listed = compose("exec", "-T", service, "cat", f"{target}/manifest.tsv").stdout
            assert listed == (own_set / "manifest.tsv").read_text(), f"{service}: not the set's manifest"
        assert_serves_the_custom_set(external_stack(own_set))
        # a redirect cached before the change names a fox-set file: it lands on the own set
        assert_retired_names_redirect(external_stack(own_set), read_manifest(REPO / "images"))
    finally:
        recreate()
    served = compose("exec", "-T", "nginx", "cat", "/srv/fox-avatar/images/manifest.tsv").stdout
    assert len(parse_manifest(served).legacy) == 21, "without AVATAR_IMAGES_DIR the fox set is served again"
    # ... and one cached while the own set was served lands on the fox set
    assert_retired_names_redirect(external_stack(REPO / "images"), read_manifest(own_set))


def test_a_directory_that_is_not_a_set_stops_nginx_with_one_line_naming_the_setting(tmp_path):
    os.chmod(tmp_path, 0o755)
    env = dict(os.environ, AVATAR_IMAGES_DIR=str(tmp_path))
    try:
        done = compose("up", "-d", "--wait", "--wait-timeout", "60", "--no-build", "--force-recreate",
                       "--no-deps", "nginx", env=env, check=False)
        assert done.returncode != 0
        lines = [line for line in logs("nginx", env=env).splitlines() if "AVATAR_IMAGES_DIR" in line]
        assert lines and all(line == lines[0] for line in lines), lines
        assert lines[0].startswith(f"nginx-entrypoint: AVATAR_IMAGES_DIR={tmp_path}: not a complete image set"), lines[0]
    finally:
        recreate()
