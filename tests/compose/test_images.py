"""The two images as compose runs them: hardened, serving exactly the mounted image set (and
baking the fox set), Nginx with its fixed connection limits, and every wrong setting refused in one
line naming it."""
import hashlib
import os
import re
import subprocess

import pytest

from compose_helpers import FOXES, ROOT, compose, containers, inspect, pytestmark  # noqa: F401

SET_FILES = ["manifest.tsv"] + FOXES.paths()
SET_DIRS = {"app": "/opt/avatar/images", "nginx": "/srv/fox-avatar/images"}


def digests(command, directory):
    out = subprocess.run([*command, "bash", "-c", f"cd {directory} && sha256sum -- \"$@\"", "-", *SET_FILES],
                         capture_output=True, text=True, check=True).stdout
    return {name: digest for digest, name in (line.split(None, 1) for line in out.splitlines())}


@pytest.mark.parametrize("service", ["app", "nginx"])
def test_containers_are_non_root_read_only_and_without_capabilities(service):
    (container,) = containers(service)
    host = inspect(container)["HostConfig"]
    assert host["ReadonlyRootfs"] and host["CapDrop"] == ["ALL"] and not host["CapAdd"]
    assert "no-new-privileges:true" in host["SecurityOpt"] and host["Memory"] > 0
    assert host["LogConfig"] == {"Type": "local", "Config": {"max-size": "10m", "max-file": "3"}}
    status = compose("exec", "-T", service, "cat", "/proc/1/status").stdout
    assert "0" not in re.search(r"^Uid:\s+(.*)$", status, re.M).group(1).split()
    assert int(re.search(r"^CapEff:\s+(\w+)$", status, re.M).group(1), 16) == 0
    write = compose("exec", "-T", service, "touch", "/probe", check=False)
    assert write.returncode != 0 and "Read-only file system" in write.stderr
    # no setuid or setgid file in the image (a Swarm cannot set no-new-privileges)
    found = subprocess.run(["docker", "run", "--rm", "--user", "0", "--entrypoint", "find", inspect(container)["Image"],
                            "/", "-xdev", "-perm", "/6000", "-type", "f"], capture_output=True, text=True)
    assert (found.returncode, found.stdout) == (0, ""), found.stdout + found.stderr


@pytest.mark.parametrize("service", ["app", "nginx"])
def test_both_serve_the_mounted_set_and_bake_the_fox_set(service):
    want = {name: hashlib.sha256((ROOT / "images" / name).read_bytes()).hexdigest() for name in SET_FILES}
    assert digests(["docker", "compose", "exec", "-T", service], SET_DIRS[service]) == want
    (container,) = containers(service)
    image = inspect(container)["Config"]["Image"]
    assert digests(["docker", "run", "--rm", "--entrypoint", "", image], SET_DIRS[service]) == want


def test_nginx_runs_with_the_fixed_connection_limits_and_no_warning():
    config = compose("exec", "-T", "nginx", "nginx", "-T")
    for directive in ("worker_processes 2;", "worker_rlimit_nofile 16384;", "worker_connections 6400;",
                      "map_hash_max_size 4096;", "map_hash_bucket_size 256;", "variables_hash_bucket_size 128;"):
        assert directive in config.stdout, directive
    assert "test is successful" in config.stderr and not re.search(r"\[(warn|emerg)\]", config.stderr)
    assert not re.search(r"\[(warn|emerg|alert|crit)\]", compose("logs", "nginx").stdout)


def test_the_nginx_image_runs_other_commands_without_settings_and_refuses_to_serve_without_them():
    (container,) = containers("nginx")
    image = inspect(container)["Config"]["Image"]
    version = subprocess.run(["docker", "run", "--rm", image, "nginx", "-V"], capture_output=True, text=True)
    assert version.returncode == 0 and "nginx/1.26." in version.stderr and "--with-http_v3_module" in version.stderr
    bare = subprocess.run(["docker", "run", "--rm", image], capture_output=True, text=True)
    assert (bare.returncode, bare.stderr.splitlines()) == (2, [
        "nginx-entrypoint: AVATAR_HTTPS_PORT: not set (start Nginx with docker compose or docker stack deploy)"])


ACME = {"AVATAR_ACME_EMAIL": "hostmaster@example.org", "AVATAR_TLS_NAMES": "avatar.example.org"}


@pytest.mark.parametrize("setting, value, others", [
    ("AVATAR_HTTPS_PORT", "84x3", {}), ("AVATAR_IMAGES_MAX_AGE", "7d", {}), ("AVATAR_KEEPALIVE_TIMEOUT", "0", {}),
    ("AVATAR_TLS_NAMES", "local/host", {}), ("AVATAR_ACCESS_LOG", "verbose", {}), ("AVATAR_TLS", "yes", {}),
    ("AVATAR_REAL_IP_FROM", "10.0.0.1/8", {}), ("AVATAR_REAL_IP_FROM", "proxy.example", {}),
    ("AVATAR_IMAGES_DIR", "/var/tmp", {}),
    # ACME: an address the CA can reach, for names it can reach, from a directory over HTTPS
    ("AVATAR_ACME_EMAIL", "hostmaster", ACME), ("AVATAR_TLS_NAMES", "localhost 127.0.0.1 ::1", ACME),
    ("AVATAR_TLS_NAMES", "avatar.example.org 192.0.2.7", ACME), ("AVATAR_TLS_NAMES", "*.example.org", ACME),
    ("AVATAR_ACME_DIRECTORY", "http://acme.example.org/directory", ACME),
    ("AVATAR_ACME_CA_FILE", str(ROOT / "LICENSE"), ACME), ("AVATAR_TLS_DIR", "/var/tmp", ACME)])
def test_a_wrong_setting_is_one_line_naming_it(setting, value, others):
    env = {**os.environ, **others, setting: value}
    done = compose("run", "--rm", "--no-deps", "-T", "nginx", env=env, check=False)
    errors = [line for line in done.stderr.splitlines() if line.startswith("nginx-entrypoint:")]
    assert done.returncode == 2 and len(errors) == 1 and setting in errors[0], done.stderr


def test_a_release_that_cannot_be_pulled_stops_up_naming_its_settings():
    """With AVATAR_REGISTRY and AVATAR_VERSION nothing is built: a failed pull (no registry listens
    here) falls back to a build target no Dockerfile has, named after the two settings."""
    env = dict(os.environ, COMPOSE_PROJECT_NAME=os.environ["COMPOSE_PROJECT_NAME"] + "-release",
               AVATAR_REGISTRY="127.0.0.1:9", AVATAR_VERSION="0.0.0", AVATAR_HTTPS_PORT="0", AVATAR_HTTP_PORT="0")
    up = compose("up", "-d", "--wait", env=env, check=False)
    assert up.returncode != 0 and "released-images-are-pulled-never-built--AVATAR_REGISTRY--AVATAR_VERSION" \
        in up.stdout + up.stderr, up.stdout + up.stderr
    assert compose("ps", "-a", "-q", env=env).stdout == ""
