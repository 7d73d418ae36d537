"""Compose serving a set of someone's own pictures, and what the changes a user makes cost the front
door. AVATAR_IMAGES_DIR names a directory made by `make images SRC=... OUT=...` anywhere on the
machine; both services mount it read-only, Nginx renders its site file from it at start. `/` answers
only its pictures, every size and format is served, the fallback agrees, and the files of the set
served before redirect into it, both ways (tests/stack/custom_set.py, the loopback stack's checks); a
directory that is not a complete set stops Nginx with one line naming AVATAR_IMAGES_DIR.

Each change runs the user's command (`docker compose up -d --wait`; the images are built) under a
request loop (request_loop.py: a browser asking one avatar after another, following every redirect
to the image): a set change, an upgrade of both images, both at once on the way back, then an upgrade
of the app alone. The tests run in file order, each on the stack the one before left; the last one
puts the run's own stack back (the module does, if a test stopped before).
"""
import os
import re
import shutil
import subprocess
import tempfile
import uuid
from datetime import datetime
from pathlib import Path

import pytest

from imageset import parse_manifest, read_manifest
from request_loop import RequestLoop
from stack.custom_set import REPO, assert_retired_names_redirect, assert_serves_the_custom_set, make_custom_set
from stack.stacks import ExternalStack
from compose_helpers import (access_log, address, compose, containers, get_avatar, inspect, logs, pool_servers, recreate,
                          setting, wait_for)

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


@pytest.fixture(scope="module")
def made_images():
    """Images the module makes: removed at its end, after the run's own stack is back."""
    images = []
    yield images
    for service in ("app", "nginx"):
        (container,) = containers(service)
        info = inspect(container)
        mounts = {m["Destination"]: m["Source"] for m in info["Mounts"]}
        if info["Config"]["Image"] in images or REPO / "images" not in map(Path, mounts.values()):
            recreate()   # a test stopped before putting it back
            break
    for image in images:
        subprocess.run(["docker", "rmi", image], capture_output=True)


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory, made_images):
    """COMPOSE_FILE values naming an 'upgrade': each running image with one label more, under a name
    of this run; "both" for both services, "app" for the app's alone. To compose it is what
    `git pull`, then `up --build`, gives: another image, so the service is recreated."""
    project = os.environ["COMPOSE_PROJECT_NAME"]
    directory = tmp_path_factory.mktemp("upgrade")
    lines = {}
    for service in ("app", "nginx"):
        (container,) = containers(service)
        name = f"{project}/{service}:upgraded"
        subprocess.run(["docker", "build", "-q", "-t", name, "-"], capture_output=True, text=True, check=True,
                       input=f"FROM {inspect(container)['Image']}\nLABEL dev.fox-avatar.test=upgraded\n")
        made_images.append(name)
        lines[service] = f"  {service}: {{image: \"{name}\"}}\n"
    files = {}
    for which, services in (("both", ("app", "nginx")), ("app", ("app",))):
        override = directory / f"compose.{which}.yml"
        override.write_text("services:\n" + "".join(lines[s] for s in services))
        files[which] = f"{os.environ['COMPOSE_FILE']}{os.pathsep}{override}"
    return files


def external_stack(images_dir):
    return ExternalStack({
        "AVATAR_HOST": "localhost", "AVATAR_ADDR": "127.0.0.1",
        "AVATAR_HTTPS_PORT": os.environ["AVATAR_HTTPS_PORT"], "AVATAR_HTTP_PORT": os.environ["AVATAR_HTTP_PORT"],
        "AVATAR_CA": os.environ["AVATAR_CA"], "AVATAR_IMAGES_DIR": str(images_dir),
        "AVATAR_APP_STOP": "docker compose stop app",
        "AVATAR_APP_START": "docker compose up -d --wait --no-recreate app",
        "AVATAR_HTTP3": "1", "AVATAR_PQ": "1"})


def under_the_loop(*args, **settings):
    """`docker compose up -d --wait ARGS` with settings added to the run's environment (COMPOSE_FILE:
    a list of files), under the request loop; returns the loop."""
    with RequestLoop(os.environ["AVATAR_HTTPS_PORT"], os.environ["AVATAR_CA"]) as loop:
        loop.wait_warm()   # answers before the change, and every key's redirect in the loop's cache
        compose("up", "-d", "--wait", "--no-build", *args, env=dict(os.environ, **settings))
    return loop


def docker_time(text):
    """Seconds since the epoch of a Docker timestamp (RFC 3339 with nanoseconds)."""
    text = re.sub(r"(\.\d{6})\d*", r"\1", text).replace("Z", "+00:00")
    return datetime.fromisoformat(text).timestamp()


def assert_one_nginx_restart(loop, change):
    """What a change that replaces both containers may cost: the front door out once, from compose's
    replacing the Nginx container until the new Nginx runs (its pid file written: it listens by
    then), and Nginx started without waiting for the new app (its fallback answers meanwhile); every
    answer a 302 to a served image. (Before, compose started Nginx only once the new app had passed
    its health check, seconds later.)"""
    summary = loop.summary()
    assert summary["wrong"] == 0, f"{change}: answered, but not with a served image: {summary}"
    outages = loop.outages()
    assert len(outages) == 1, f"{change}: the front door was out {len(outages)} times: {outages}, {summary}"
    (nginx,) = containers("nginx")
    (app,) = containers("app")
    healthy = min(docker_time(c["End"]) for c in inspect(app)["State"]["Health"]["Log"] if c["ExitCode"] == 0)
    assert docker_time(inspect(nginx)["State"]["StartedAt"]) < healthy, f"{change}: Nginx waited for the app"
    running = float(compose("exec", "-T", "nginx", "stat", "-c", "%.9Y", "/run/nginx.pid").stdout)
    start, _end, _kinds = outages[0]
    first_end = next(e for s, e, _kind, _detail in loop.results if s == start)   # the first failed avatar's
    assert first_end >= docker_time(inspect(nginx)["Created"]), f"{change}: out before compose replaced Nginx"
    # Nginx listens before it writes its pid file: an avatar begun after that is never refused. In the
    # first milliseconds after it, a few may still be reset (measured under load: up to 11 within
    # 5 ms, Docker's userland proxy on the published loopback port handing over to the new
    # container), until the new Nginx's first answer. After that answer, what may still fail: Nginx
    # reloads when the app's address appears (40-app-pool.sh logs each), and a graceful reload closes
    # an accepted connection that has sent no request yet: the loop (one connection at a time) loses
    # at most one avatar to each reload.
    later = [(s, kind, detail) for s, _e, kind, detail in loop.results if kind != "ok" and s > running]
    assert not [f for f in later if f[1] == "refused"], f"{change}: refused after the new Nginx ran: {later}"
    back = min((s for s, _e, kind, _d in loop.results if kind == "ok" and s > running), default=None)
    assert back is not None, f"{change}: no avatar answered after the new Nginx ran ({summary})"
    lost = [(round(s - running, 3), kind, detail) for s, kind, detail in later if s > back]
    reloads = logs("nginx").count("Nginx reloaded")
    assert len(lost) <= reloads, (f"{change}: {len(lost)} avatars failed after the new Nginx's first answer, "
                                  f"{reloads} reload(s): {lost} ({summary})")
    return summary


def test_a_set_change_costs_one_nginx_restart_and_every_answer_lands_on_a_served_image(own_set, made_images):
    loop = under_the_loop(AVATAR_IMAGES_DIR=str(own_set))
    summary = assert_one_nginx_restart(loop, "set change")
    assert summary["retired"] > 0, f"no cached redirect of the fox set was asked after the change: {summary}"


def test_avatar_images_dir_serves_a_set_of_own_pictures_in_both_services(own_set):
    for service, target in (("app", "/opt/avatar/images"), ("nginx", "/srv/fox-avatar/images")):
        listed = compose("exec", "-T", service, "cat", f"{target}/manifest.tsv").stdout
        assert listed == (own_set / "manifest.tsv").read_text(), f"{service}: not the set's manifest"
    assert_serves_the_custom_set(external_stack(own_set))
    # a redirect cached before the change names a fox-set file: it lands on the own set
    assert_retired_names_redirect(external_stack(own_set), read_manifest(REPO / "images"))


def test_an_upgrade_of_both_images_costs_one_nginx_restart(own_set, upgraded):
    loop = under_the_loop(AVATAR_IMAGES_DIR=str(own_set), COMPOSE_FILE=upgraded["both"])
    assert_one_nginx_restart(loop, "upgrade of both images")
    for service in ("app", "nginx"):
        (container,) = containers(service)
        assert inspect(container)["Config"]["Image"].endswith(f"/{service}:upgraded")


def test_back_to_the_fox_set_and_the_images_of_the_run_at_once_costs_one_nginx_restart(own_set):
    loop = under_the_loop()
    summary = assert_one_nginx_restart(loop, "the fox set and the run's images back")
    assert summary["retired"] > 0, f"no cached redirect of the own set was asked after the change: {summary}"
    served = compose("exec", "-T", "nginx", "cat", "/srv/fox-avatar/images/manifest.tsv").stdout
    assert len(parse_manifest(served).legacy) == 21, "without AVATAR_IMAGES_DIR the fox set is served again"
    # ... and one cached while the own set was served lands on the fox set
    assert_retired_names_redirect(external_stack(REPO / "images"), read_manifest(own_set))


def test_an_upgrade_of_the_app_alone_costs_the_front_door_nothing_and_nginx_follows_its_new_address(upgraded):
    """No start order and no Nginx restart: compose replaces the app alone, Nginx follows its
    addresses itself (nginx/compose/entrypoint.d/40-app-pool.sh) and its fallback answers while
    the app is away. (Before, compose restarted Nginx after the new app's health check.)"""
    (nginx,) = containers("nginx")
    started = inspect(nginx)["State"]["StartedAt"]
    loop = under_the_loop(COMPOSE_FILE=upgraded["app"])
    summary = loop.summary()
    assert loop.outages() == [] and summary["wrong"] == 0, summary
    assert summary["fallback"] > 0, f"no request fell into the app's absence: the test proved nothing ({summary})"
    assert containers("nginx") == [nginx] and inspect(nginx)["State"]["StartedAt"] == started, "Nginx was restarted"
    (app,) = containers("app")
    new = address(app)
    assert pool_servers() == [f"{new}:{setting('AVATAR_APP_PORT')}"]

    def answered_by_the_app():
        probe = uuid.uuid4().hex
        assert get_avatar(probe).status_code == 302
        line = access_log([probe])[probe]
        return "fallback=0" in line and f'ua="{new}:' in line
    wait_for("the new app answering through Nginx", answered_by_the_app, timeout=30)


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
