"""A release installed the way docs/compose.md writes it ("Install a release"):

    AVATAR_REGISTRY=host:port AVATAR_VERSION=X.Y.Z docker compose up -d --wait

The run's freshly built images (fox-avatar/app:local, fox-avatar/nginx:local) are pushed into a
registry of Debian's docker-registry package (the Swarm layer's image, tests/swarm/registry.Dockerfile,
built by tests/swarm/swarm.sh's swarm_registry_ready) under a test version, as `make release` names
them (REGISTRY/fox-avatar/app:X.Y.Z, REGISTRY/fox-avatar/nginx:X.Y.Z), and their registry tags removed
here; then a project of its own runs the documented command: both images come from the registry (the
containers' image names, the image IDs the pushed ones), nothing is built, and it answers a 302 to an
image it serves; then the monitoring profile as docs/monitoring.md gives it for a release (its four
images built here, tagged with the version, the two services still the pulled ones). A version the
registry does not have stops `up` naming the settings, with nothing built or started.

Needs tests/compose/run.sh's environment (COMPOSE_FILE, the built images) and FOX_REGISTRY_IMAGE.
"""
import json
import os
import socket
import ssl
import subprocess
import http.client

import pytest

from test_compose import ROOT, compose

VERSION = "0.0.1"
MONITORING = ("prometheus", "nginx-exporter", "mtail", "blackbox")
NEEDED = ("COMPOSE_PROJECT_NAME", "COMPOSE_FILE", "FOX_REGISTRY_IMAGE")

pytestmark = pytest.mark.skipif(
    any(not os.environ.get(v) for v in NEEDED),
    reason="needs tests/compose/run.sh's environment and the registry image (FOX_REGISTRY_IMAGE)")


def sh(*args, check=True, **kw):
    return subprocess.run(args, capture_output=True, text=True, check=check, **kw)


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def image_id(ref):
    return sh("docker", "image", "inspect", "-f", "{{.Id}}", ref).stdout.strip()


@pytest.fixture(scope="module")
def registry():
    """host:port of a registry holding the run's two images as release VERSION; the IDs pushed."""
    name = f"{os.environ['COMPOSE_PROJECT_NAME']}-registry"
    sh("docker", "run", "-d", "--name", name, "-p", "127.0.0.1::5000", os.environ["FOX_REGISTRY_IMAGE"])
    pushed = {}
    try:
        port = sh("docker", "port", name, "5000/tcp").stdout.splitlines()[0].rsplit(":", 1)[1]
        host = f"127.0.0.1:{port}"
        for image in ("app", "nginx"):
            ref = f"{host}/fox-avatar/{image}:{VERSION}"
            sh("docker", "tag", f"fox-avatar/{image}:local", ref)
            for _ in range(50):   # the registry's first answer (a push retries nothing by itself)
                if sh("docker", "push", "-q", ref, check=False).returncode == 0:
                    break
                sh("sleep", "0.2")
            else:
                raise AssertionError(f"could not push {ref}: " + sh("docker", "logs", name, check=False).stderr[-2000:])
            pushed[image] = image_id(ref)
            sh("docker", "rmi", ref)   # what `up` runs must come from the registry
        yield host, pushed
    finally:
        sh("docker", "rm", "-f", "-v", name, check=False)
        refs = sh("docker", "image", "ls", "--format", "{{.Repository}}:{{.Tag}}", check=False).stdout.split()
        mine = [r for r in refs if r.startswith(f"127.0.0.1:{port}/")] if pushed else []
        if mine:
            sh("docker", "rmi", *mine, check=False)


def released_env(project, **settings):
    https_port, http_port, prometheus_port = free_ports(3)
    env = dict(os.environ, COMPOSE_PROJECT_NAME=project, AVATAR_HTTPS_PORT=str(https_port),
               AVATAR_HTTP_PORT=str(http_port), AVATAR_PROMETHEUS_PORT=str(prometheus_port), **settings)
    env.pop("EXTRA_CA_CERTS", None)   # a machine installing a release builds nothing: no CA for Maven
    return env


def get(port, path, ca):
    ctx = ssl.create_default_context(cafile=ca)
    conn = http.client.HTTPSConnection("localhost", port, context=ctx, timeout=10)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        r.read()
        return r.status, r.getheader("Location"), r.getheader("Content-Type")
    finally:
        conn.close()


def test_a_release_runs_from_the_registry_with_nothing_built(registry, tmp_path):
    host, pushed = registry
    project = f"{os.environ['COMPOSE_PROJECT_NAME']}-release"
    env = released_env(project, AVATAR_REGISTRY=host, AVATAR_VERSION=VERSION)
    try:
        up = compose("up", "-d", "--wait", "--wait-timeout", "120", env=env, check=False, timeout=300)
        out = up.stdout + up.stderr
        assert up.returncode == 0, out
        # nothing built: no builder output (BuildKit's steps, the classic builder's), both pulled
        assert not any(s in out for s in ("naming to", "Successfully built", "load build definition")), out
        assert "Pulled" in out, out
        for service in ("app", "nginx"):
            (container,) = compose("ps", "-q", service, env=env).stdout.split()
            info = json.loads(sh("docker", "inspect", container).stdout)[0]
            assert info["Config"]["Image"] == f"{host}/fox-avatar/{service}:{VERSION}", service
            assert info["Image"] == pushed[service], service
        ca = tmp_path / "ca.pem"
        ca.write_text(compose("exec", "-T", "nginx", "cat", "/etc/nginx/tls/fullchain.pem", env=env).stdout)
        port = int(env["AVATAR_HTTPS_PORT"])
        status, location, _ = get(port, "/?s=64", str(ca))
        assert status == 302 and location.startswith("/a/"), (status, location)
        status, _, ctype = get(port, location, str(ca))
        assert status == 200 and ctype.startswith("image/"), (location, status, ctype)

        # the monitoring profile, as docs/monitoring.md gives it for a release: its four images built
        # here (from the layer cache of the run's own) under the version, the two services untouched
        up = compose("--profile", "monitoring", "up", "-d", "--wait", "--wait-timeout", "180", env=env,
                     check=False, timeout=600)
        assert up.returncode == 0, up.stdout + up.stderr
        running = compose("--profile", "monitoring", "ps", "--format", "{{.Service}} {{.Image}}", env=env).stdout
        assert sorted(running.split("\n")) == sorted(
            [f"{s} fox-avatar/{s}:{VERSION}" for s in MONITORING]
            + [f"{s} {host}/fox-avatar/{s}:{VERSION}" for s in ("app", "nginx")] + [""]), running
    finally:
        compose("--profile", "monitoring", "down", "-v", "--timeout", "5", env=env, check=False)
        sh("docker", "rmi", *[f"fox-avatar/{s}:{VERSION}" for s in MONITORING], check=False)


def test_a_version_the_registry_does_not_have_stops_up_with_nothing_built(registry):
    host, _ = registry
    project = f"{os.environ['COMPOSE_PROJECT_NAME']}-norelease"
    env = released_env(project, AVATAR_REGISTRY=host, AVATAR_VERSION="0.0.2")
    try:
        up = compose("up", "-d", "--wait", env=env, check=False, timeout=300)
        out = up.stdout + up.stderr
        assert up.returncode != 0, out
        # the build compose falls back to is refused by its target, which names the settings
        assert "released-images-are-pulled-never-built--AVATAR_REGISTRY--AVATAR_VERSION" in out, out
        assert f"fox-avatar/app:0.0.2" in out or "fox-avatar/nginx:0.0.2" in out, out
        assert compose("ps", "-a", "-q", env=env).stdout.split() == []
        for service in ("app", "nginx"):
            assert sh("docker", "image", "inspect", f"{host}/fox-avatar/{service}:0.0.2", check=False).returncode != 0
    finally:
        compose("down", "-v", "--timeout", "5", env=env, check=False)
