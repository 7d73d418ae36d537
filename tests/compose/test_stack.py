"""What compose adds to the shared HTTP suite, on the README's stack: the fallback while the app
dies and restarts, Nginx following docs/scaling.md's replicas and an upgrade of the app without a
restart or a lost answer, docs/own-pictures.md's set and list of people (with Gravatar's defaults
on). What Nginx logs is tested once, on the loopback stack (tests/nginx/test_private_logs.py)."""
import hashlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import requests
from PIL import Image

from compose_helpers import (FOX_LOCATIONS, FOXES, HTTPS, Visitors, address, avatar, compose, containers, docblocks,
                             inspect, logs, pytestmark, wait_for)  # noqa: F401
from imageset import read_manifest


def visit():
    """An avatar on a new connection, its image fetched: "app" or "fallback" (who answered), else what went wrong."""
    status, location, fallback = avatar()
    if status != 302 or location not in FOX_LOCATIONS:
        return status, location
    image = requests.get(HTTPS + location, verify=os.environ["AVATAR_CA"], timeout=5).status_code
    return ("fallback" if fallback else "app") if image == 200 else (location, image)


def assert_the_fallback_stood_in(visitors):
    assert set(visitors.outcomes) == {"app", "fallback"} and not visitors.bad, (visitors.outcomes, visitors.bad[:5])


def nginx_started():
    (nginx,) = containers("nginx")
    return nginx, inspect(nginx)["State"]["StartedAt"]


def pool():
    return sorted(re.findall(r"^server (\S+):8080;", compose("exec", "-T", "nginx", "cat", "/run/nginx/upstream/app.conf").stdout, re.M))


def test_the_fallback_answers_while_the_app_dies_and_compose_restarts_it():
    (app,) = containers("app")
    before = inspect(app)
    # a crash, as the OOM killer's: not `docker kill`, which the engine counts as a stop
    with Visitors(visit) as visitors:
        os.kill(before["State"]["Pid"], signal.SIGKILL)
        wait_for("the app restarted and healthy", lambda: inspect(app)["State"]["Pid"] != before["State"]["Pid"]
                 and inspect(app)["State"].get("Health", {}).get("Status") == "healthy", timeout=90)
        wait_for("the app answering again", lambda: not avatar()[2], timeout=30)
    assert_the_fallback_stood_in(visitors)
    assert inspect(app)["RestartCount"] == before["RestartCount"] + 1


def test_nginx_follows_the_replicas_of_scaling_md_without_a_restart():
    nginx, started = nginx_started()
    docblocks.run("docs/scaling.md", cwd=os.environ["FOX_CHECKOUT"])
    try:
        want = sorted(address(c) for c in containers("app"))
        assert len(want) == 3
        wait_for("Nginx's pool of three", lambda: pool() == want, timeout=10)
        since = time.time()
        for _ in range(60):
            status, location, fallback = avatar()
            assert status == 302 and location in FOX_LOCATIONS and not fallback, (status, location)
        used = lambda: set(re.findall(r'ua="([\d.]+):8080"', logs("nginx", "--since", str(int(since) - 1))))  # noqa: E731
        wait_for(f"answers from each of {want}", lambda: used() >= set(want), timeout=10)
        assert nginx_started() == (nginx, started)
    finally:
        compose("up", "-d", "--wait", "--no-recreate", "--scale", "app=1")


def test_an_upgrade_of_the_app_costs_no_answer_and_no_nginx_restart(tmp_path):
    """Another image for the app (the running one with a label more) under an override file: compose
    replaces the app alone; Nginx's fallback answers while it is away and follows its new address."""
    (app,) = containers("app")
    image = f"{os.environ['COMPOSE_PROJECT_NAME']}/app:upgraded"
    subprocess.run(["docker", "build", "-q", "-t", image, "-"], check=True, capture_output=True, text=True,
                   input=f"FROM {inspect(app)['Image']}\nLABEL dev.fox-avatar.test=upgraded\n")
    override = tmp_path / "upgrade.yml"
    override.write_text(f'services:\n  app: {{image: "{image}"}}\n')
    files = {"COMPOSE_FILE": f"{os.environ.get('COMPOSE_FILE', 'docker-compose.yml')}:{override}"}
    nginx, started = nginx_started()
    try:
        with Visitors(visit) as visitors:
            compose("up", "-d", "--wait", "--no-build", env=dict(os.environ, **files))
            (new,) = containers("app")
            wait_for("Nginx's pool at the new app", lambda: pool() == [address(new)], timeout=10)
            wait_for("the new app answering", lambda: not avatar()[2], timeout=30)
        assert_the_fallback_stood_in(visitors)
        assert nginx_started() == (nginx, started)
    finally:
        compose("up", "-d", "--wait", "--no-build")
        subprocess.run(["docker", "rmi", image], capture_output=True)


def test_own_pictures_md_makes_and_serves_a_set_of_ones_own_pictures():
    """docs/own-pictures.md's block as written, in the README's checkout, with two pictures in
    $HOME/my-pictures (a home of the test's own, readable by the containers' users)."""
    home = Path(tempfile.mkdtemp(prefix="fox-avatar-home.", dir="/var/tmp"))
    home.chmod(0o755)
    (home / "my-pictures").mkdir()
    Image.new("RGB", (300, 300), (200, 90, 30)).save(home / "my-pictures" / "alice.png")
    Image.new("RGB", (200, 200), (40, 120, 220)).save(home / "my-pictures" / "bob.jpg")
    env_file = Path(os.environ["FOX_CHECKOUT"]) / ".env"
    before = env_file.read_text() if env_file.exists() else ""
    pip_cache = subprocess.run(["pip3", "cache", "dir"], capture_output=True, text=True).stdout.strip()
    try:
        docblocks.run("docs/own-pictures.md", cwd=os.environ["FOX_CHECKOUT"],
                      env={"HOME": str(home), **({"PIP_CACHE_DIR": pip_cache} if pip_cache else {})}, timeout=600)
        own = {f"/{e.path}" for e in read_manifest(home / "avatar-set").images}
        for _ in range(20):
            status, location, fallback = avatar()
            assert status == 302 and location in own and not fallback, (status, location)
            assert requests.get(HTTPS + location, verify=os.environ["AVATAR_CA"], timeout=5).status_code == 200
        # a fox a browser cached before the change lands on one of the new pictures
        old = requests.get(HTTPS + next(iter(FOX_LOCATIONS)), verify=os.environ["AVATAR_CA"],
                           allow_redirects=False, timeout=5)
        assert old.status_code == 302 and old.headers["Location"] in own
    finally:
        env_file.write_text(before)
        compose("up", "-d", "--wait", "--no-build")
        shutil.rmtree(home, ignore_errors=True)


def test_own_pictures_mds_list_of_people_with_gravatars_defaults_on():
    """docs/own-pictures.md's list of people as written (team.txt in the README's checkout), then
    AVATAR_GRAVATAR_DEFAULTS=on: the listed address gets its picture, a stranger's d=404 a 404 and Gitea's d=identicon the stranger's identity."""
    checkout = Path(os.environ["FOX_CHECKOUT"])
    env_file = checkout / ".env"
    before = env_file.read_text() if env_file.exists() else ""
    (checkout / "team.txt").write_text("alice@example.org 7-v12\n")
    alice, stranger = (hashlib.md5(a.encode()).hexdigest() for a in ("alice@example.org", "stranger@example.org"))
    drawing = FOXES.variants.directory

    def get(path, accept="*/*"):
        r = requests.get(HTTPS + path, headers={"Accept": accept}, verify=os.environ["AVATAR_CA"],
                         allow_redirects=False, timeout=5)
        return r.status_code, r.headers.get("Location")
    try:
        docblocks.run("docs/own-pictures.md", 1, cwd=checkout)
        env_file.write_text(env_file.read_text() + "AVATAR_GRAVATAR_DEFAULTS=on\n")
        compose("up", "-d", "--wait", "--no-build")
        assert get(f"/avatar/{alice}?s=64&d=404") == (302, f"/{drawing}/Renard-7-v12-64.png")
        assert get(f"/avatar/{stranger}.png?s=360&d=404")[0] == 404
        status, location = get(f"/avatar/{stranger}?d=identicon", "image/avif,image/svg+xml,*/*;q=0.8")
        assert status == 302 and location.startswith(f"/{drawing}/Renard-") and location.endswith(".svg")
    finally:
        env_file.write_text(before)
        for f in ("team.txt", "people.tsv"):
            (checkout / f).unlink(missing_ok=True)
        compose("up", "-d", "--wait", "--no-build")
