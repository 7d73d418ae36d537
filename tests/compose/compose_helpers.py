"""The compose layer's shared helpers: the running project (tests/compose/run.sh exports
COMPOSE_PROJECT_NAME, COMPOSE_FILE, AVATAR_HTTPS_PORT, AVATAR_HTTP_PORT and AVATAR_CA), its
containers, logs, settings and recreations, the served certificate, the image set. Every
tests/compose/test_*.py file imports what it needs from here (and its pytestmark)."""
import json
import os
import re
import socket
import ssl
import subprocess
import time

import pytest
import requests

from imageset import MANIFEST, read_manifest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MANIFEST_OF_IMAGES = read_manifest(os.path.join(ROOT, "images"))
# What both images must hold: the manifest and every file it lists.
IMAGE_SET = [MANIFEST] + MANIFEST_OF_IMAGES.paths()
IMAGE_LOCATIONS = {f"/{e.path}" for e in MANIFEST_OF_IMAGES.images}   # the Location of every avatar redirect
LEGACY_IMAGE = MANIFEST_OF_IMAGES.legacy[0].path   # Cache-Control from AVATAR_IMAGES_MAX_AGE
SITE_CONF = "/etc/nginx/conf.d/fox-avatar.conf"
NEEDED = ("COMPOSE_PROJECT_NAME", "COMPOSE_FILE", "AVATAR_HTTPS_PORT", "AVATAR_CA")

pytestmark = pytest.mark.skipif(
    any(not os.environ.get(v) for v in NEEDED),
    reason="needs a running compose project: run tests/compose/run.sh (make test-compose)")


def compose(*args, check=True, env=None, timeout=300):
    """`docker compose ARGS` in the repository root; returns the completed process."""
    done = subprocess.run(["docker", "compose", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"docker compose {' '.join(args)} failed ({done.returncode}):\n"
                             f"{done.stdout}\n{done.stderr}")
    return done


def logs(service, env=None):
    """`docker compose logs` of SERVICE (its output and errors), without terminal control sequences:
    Debian 13's compose (2.26) starts every line with ESC [2K (erase line), even into a pipe."""
    done = compose("logs", "--no-color", "--no-log-prefix", service, env=env)
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", done.stdout + done.stderr)


def containers(service):
    return compose("ps", "-q", service).stdout.split()


def inspect(container):
    out = subprocess.run(["docker", "inspect", container], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)[0]


def address(container):
    """The container's address on the project's network."""
    return next(iter(inspect(container)["NetworkSettings"]["Networks"].values()))["IPAddress"]


def pool_servers():
    """The servers of Nginx's upstream: the file 40-app-pool.sh writes (address:port each)."""
    pool = compose("exec", "-T", "nginx", "cat", "/run/nginx/upstream/app.conf").stdout
    return re.findall(r"^server (\S+);", pool, re.M)


def https_url(path="/"):
    return f"https://localhost:{os.environ['AVATAR_HTTPS_PORT']}{path}"


def get_avatar(probe):
    """GET /?probe=... over a new HTTPS connection (so Nginx's current workers answer)."""
    return requests.get(https_url(f"/?probe={probe}"), verify=os.environ["AVATAR_CA"],
                        allow_redirects=False, timeout=5)


def served_certificate():
    """The PEM certificate Nginx presents on the HTTPS port."""
    ctx = ssl.create_default_context(cafile=None)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", int(os.environ["AVATAR_HTTPS_PORT"])), 5) as raw:
        with ctx.wrap_socket(raw, server_hostname="localhost") as tls:
            return ssl.DER_cert_to_PEM_cert(tls.getpeercert(binary_form=True))


def volume_certificate():
    return compose("exec", "-T", "nginx", "cat", "/etc/nginx/tls/fullchain.pem").stdout


def same_cert(a, b):
    return ssl.PEM_cert_to_DER_cert(a) == ssl.PEM_cert_to_DER_cert(b)


def access_log(probes, timeout=10):
    """{probe: its line in Nginx's access log} (format `avatar`: run.sh sets AVATAR_ACCESS_LOG=full;
    on the container's output).
    Waits a little for lines still on their way to the log driver."""
    deadline = time.monotonic() + timeout
    while True:
        found = {}
        for line in logs("nginx").splitlines():
            m = re.search(r"[?&]probe=([0-9a-f]{32})\b", line)
            if m and m.group(1) in probes and " - " in line:   # access lines, not error lines
                found[m.group(1)] = line
        missing = set(probes) - set(found)
        if not missing:
            return found
        assert time.monotonic() < deadline, f"{len(missing)} requests missing from the access log"
        time.sleep(0.5)


def wait_for(what, predicate, timeout=60, interval=0.5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def image_response():
    return requests.get(https_url(f"/{LEGACY_IMAGE}"), verify=os.environ["AVATAR_CA"], timeout=5)


def upstream_block(text):
    """The `upstream avatar_app { ... }` block of an Nginx file, comments and indentation gone."""
    block = re.search(r"^upstream avatar_app \{\n(.*?)^\}", text, re.S | re.M).group(1)
    return [line.strip() for line in block.splitlines()
            if line.strip() and not line.strip().startswith("#")]


def setting(name):
    """The value compose gives the Nginx container for a setting (docker-compose.yml's default
    unless tests/compose/run.sh set it)."""
    config = json.loads(compose("config", "--format", "json").stdout)
    return config["services"]["nginx"]["environment"][name]


def recreate(*services, env_file=None, **settings):
    """Recreate services (no build) with settings from env_file (read as compose reads .env)
    and/or added to the environment; neither: back to the run's own."""
    env = dict(os.environ, **settings)
    if env_file:
        env["COMPOSE_ENV_FILES"] = str(env_file)
    compose("up", "-d", "--wait", "--no-build", "--force-recreate", *services, env=env)


def digests(run, directory, names):
    """{name: sha256} of names under directory, by `run` (a command prefix: compose exec or docker run)."""
    out = subprocess.run([*run, "bash", "-c", f'cd {directory} && sha256sum -- "$@"', "sha256sum", *names],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return {name: digest for digest, name in (line.split(None, 1) for line in out.splitlines())}
