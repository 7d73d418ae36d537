"""A release installed from a registry (docs/releases.md): the README stack's two images pushed to a
registry of Debian's docker-registry package as a version, then `AVATAR_REGISTRY=... AVATAR_VERSION=...
docker compose up -d --wait` in a checkout of its own pulls both and builds nothing; a version the
registry lacks stops `up` with a line naming the two settings."""
import os
import socket
import subprocess

import pytest
import requests

from compose_helpers import compose, containers, inspect, pytestmark  # noqa: F401

VERSION = "0.0.1"


def sh(*args, check=True):
    return subprocess.run(args, capture_output=True, text=True, check=check)


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


@pytest.fixture(scope="module")
def registry():
    name = f"{os.environ['COMPOSE_PROJECT_NAME']}-registry"
    sh("docker", "run", "-d", "--name", name, "-p", "127.0.0.1::5000", os.environ["FOX_REGISTRY_IMAGE"])
    host = "127.0.0.1:" + sh("docker", "port", name, "5000/tcp").stdout.splitlines()[0].rsplit(":", 1)[1]
    pushed = {}
    try:
        for service in ("app", "nginx"):
            (container,) = containers(service)
            ref = f"{host}/fox-avatar/{service}:{VERSION}"
            sh("docker", "tag", inspect(container)["Image"], ref)
            for _ in range(50):   # until the registry answers
                if sh("docker", "push", "-q", ref, check=False).returncode == 0:
                    break
                sh("sleep", "0.2")
            pushed[service] = sh("docker", "image", "inspect", "-f", "{{.Id}}", ref).stdout.strip()
            sh("docker", "rmi", ref)   # what `up` runs must come from the registry
        yield host, pushed
    finally:
        sh("docker", "rm", "-f", "-v", name, check=False)
        sh("docker", "rmi", *[f"{host}/fox-avatar/{s}:{VERSION}" for s in ("app", "nginx")], check=False)


def released(project, **settings):
    https, http = free_ports(2)
    return dict(os.environ, COMPOSE_PROJECT_NAME=project, AVATAR_HTTPS_PORT=str(https), AVATAR_HTTP_PORT=str(http),
                EXTRA_CA_CERTS="", **settings)


def test_a_release_is_pulled_and_nothing_is_built(registry):
    host, pushed = registry
    env = released(f"{os.environ['COMPOSE_PROJECT_NAME']}-release", AVATAR_REGISTRY=host, AVATAR_VERSION=VERSION)
    try:
        up = compose("up", "-d", "--wait", env=env, check=False)
        assert up.returncode == 0 and "Pulled" in up.stdout + up.stderr, up.stdout + up.stderr
        assert not any(s in up.stdout + up.stderr for s in ("Successfully built", "naming to")), up.stderr
        for service in ("app", "nginx"):
            (container,) = containers(service, env=env)
            assert inspect(container)["Image"] == pushed[service], service
        r = requests.get(f"https://127.0.0.1:{env['AVATAR_HTTPS_PORT']}/", verify=False, allow_redirects=False, timeout=5)
        assert r.status_code == 302 and r.headers["Location"].startswith("/a/")
    finally:
        compose("down", "-v", "--timeout", "5", env=env, check=False)


def test_a_version_the_registry_lacks_stops_up_naming_the_settings(registry):
    host, _ = registry
    env = released(f"{os.environ['COMPOSE_PROJECT_NAME']}-norelease", AVATAR_REGISTRY=host, AVATAR_VERSION="0.0.2")
    try:
        up = compose("up", "-d", "--wait", env=env, check=False)
        assert up.returncode != 0 and "released-images-are-pulled-never-built--AVATAR_REGISTRY--AVATAR_VERSION" \
            in up.stdout + up.stderr, up.stdout + up.stderr
        assert compose("ps", "-a", "-q", env=env).stdout.split() == []
    finally:
        compose("down", "-v", "--timeout", "5", env=env, check=False)
