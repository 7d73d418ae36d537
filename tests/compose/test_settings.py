"""The compose settings as files: docker-compose.yml owns each default once (x-settings and the few
single-use ${VAR:-default}), .env.example lists exactly those settings with those defaults, and the
defaults that mirror a playbook variable (or a template default) equal it.

Needs the `docker compose` CLI only (no running stack); tests/compose/run.sh runs it.
"""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from imageset import read_manifest
from imageset.nginx import template_data
from stack.stacks import load_renderer

import ports  # tools/ports.py, ports.env's reader

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
ENV_EXAMPLE = ROOT / ".env.example"

# compose setting -> (playbook role, variable) for the same thing, with the same default.
SAME_AS_ANSIBLE = {
    "AVATAR_IMAGES_MAX_AGE": ("fox_avatar_nginx", "fox_avatar_nginx_images_max_age"),
    "AVATAR_APP_PORT": ("fox_avatar_app", "fox_avatar_app_port"),
}

# A release's two settings (docs/compose.md, "Install a release"): no default (empty: both images
# built from this checkout), each read in both image names and the build's guard by design.
RELEASE = ("AVATAR_REGISTRY", "AVATAR_VERSION")

pytestmark = pytest.mark.skipif(shutil.which("docker") is None, reason="needs the docker CLI")


def clean_env(**extra):
    """The environment without any setting: what a user without .env and exports has."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("AVATAR_", "COMPOSE_")) and k != "EXTRA_CA_CERTS"}
    env.update(extra)
    return env


def config(env_file=os.devnull, **settings):
    done = subprocess.run(
        ["docker", "compose", "-f", str(COMPOSE_FILE), "--env-file", str(env_file),
         "config", "--format", "json"],
        cwd=ROOT, env=clean_env(**settings), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def compose_defaults():
    """{VAR: default} of every ${VAR:-default} / ${VAR-default} in docker-compose.yml; a variable
    must not be given two different defaults."""
    found = {}
    for var, default in re.findall(r"\$\{(\w+):?-([^}]*)\}", COMPOSE_FILE.read_text()):
        if var not in RELEASE:
            assert found.setdefault(var, default) == default, f"{var}: two defaults in docker-compose.yml"
    return found | {var: "" for var in RELEASE}


def env_example():
    values = {}
    for line in ENV_EXAMPLE.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, value = line.split("=", 1)
            values[name.strip()] = re.sub(r'^"(.*)"$', r"\1", value.strip())
    return values


def ansible_default(role, var):
    """A role's default as the playbook gets it: a port read from ports.env through the collection's
    lookup (fox_avatar.deploy.port) as ports.env gives it."""
    path = ROOT / "ansible" / "roles" / role / "defaults" / "main.yml"
    value = yaml.safe_load(path.read_text())[var]
    port = re.fullmatch(r"\{\{ lookup\('fox_avatar\.deploy\.port', '([A-Z0-9_]+)'\) \}\}", str(value))
    return ports.read()[port[1]] if port else value


def test_compose_file_works_without_env_file_and_publishes_on_loopback_only():
    cfg = config()
    ports = {(p["host_ip"], str(p["published"]), p["target"], p["protocol"])
             for p in cfg["services"]["nginx"]["ports"]}
    # HTTPS on TCP and HTTP/3 on UDP share the port
    assert ports == {("127.0.0.1", "8443", 8443, "tcp"), ("127.0.0.1", "8443", 8443, "udp"),
                     ("127.0.0.1", "8080", 8080, "tcp")}
    assert "ports" not in cfg["services"]["app"], "the sidecar is reachable through Nginx only"
    assert cfg["services"]["nginx"]["environment"]["AVATAR_HTTPS_PORT"] == "8443"


def test_env_example_lists_every_setting_with_its_compose_default():
    defaults = compose_defaults()
    assert env_example() == defaults
    # and compose reads it as such: the same configuration with or without it
    assert config(ENV_EXAMPLE) == config()


def test_each_setting_is_read_once_in_docker_compose_yml():
    """One place per setting (YAML anchors carry it further), so its default cannot diverge."""
    text = COMPOSE_FILE.read_text()
    for var in set(compose_defaults()) - set(RELEASE):
        assert len(re.findall(r"\$\{" + var + r"\b", text)) == 1, var


@pytest.mark.parametrize("setting", sorted(SAME_AS_ANSIBLE))
def test_compose_default_equals_the_playbook_default(setting):
    role, var = SAME_AS_ANSIBLE[setting]
    assert str(ansible_default(role, var)) == compose_defaults()[setting], \
        f"{setting} (docker-compose.yml) and {var} ({role}) disagree"


def test_compose_defaults_equal_the_templates_own_defaults():
    text = load_renderer()({
        "avatar_server_name": "x", "avatar_tls_certificate": "/c", "avatar_tls_certificate_key": "/k",
        "avatar_images_root": "/r", "avatar_image_set": template_data(read_manifest(ROOT / "images")),
        # the compose image's Nginx (Debian 13); the defaults checked here do not depend on it
        "avatar_nginx_build": (ROOT / "tests/nginx/nginx-V/debian-13.txt").read_text()})
    max_age = re.search(r"set \$avatar_images_max_age (\d+);", text).group(1)
    app_port = re.search(r"^\s*server 127\.0\.0\.1:(\d+);", text, re.M).group(1)
    defaults = compose_defaults()
    assert (defaults["AVATAR_IMAGES_MAX_AGE"], defaults["AVATAR_APP_PORT"]) == (max_age, app_port)


def test_app_port_is_one_value_for_both_services():
    for env in ({}, {"AVATAR_APP_PORT": "9099"}):
        services = config(**env)["services"]
        want = env.get("AVATAR_APP_PORT", "8080")
        assert services["app"]["environment"]["AVATAR_PORT"] == want
        assert services["nginx"]["environment"]["AVATAR_APP_PORT"] == want


def test_runtime_settings_reach_the_nginx_container():
    services = config(AVATAR_IMAGES_MAX_AGE="60", AVATAR_HTTPS_PORT="9443")["services"]
    env = services["nginx"]["environment"]
    assert env["AVATAR_IMAGES_MAX_AGE"] == "60" and env["AVATAR_HTTPS_PORT"] == "9443"
    assert sorted(str(p["published"]) for p in services["nginx"]["ports"]) == ["8080", "9443", "9443"]


def test_a_release_is_pulled_and_never_built():
    """Neither setting: both images built from this checkout (no build target); both: the release's
    names, and the build compose would fall back to when a pull fails has a target no Dockerfile has,
    naming the settings; AVATAR_VERSION alone: a registry name that does not resolve, never Docker
    Hub's. The monitoring profile's images are built here, never pulled, tagged with the version."""
    def services(**settings):
        return config(COMPOSE_PROFILES="monitoring", **settings)["services"]
    built = services()
    for name in ("app", "nginx"):
        assert built[name]["image"] == f"fox-avatar/{name}:local" and "target" not in built[name]["build"]
    released = services(AVATAR_REGISTRY="registry.test:5000", AVATAR_VERSION="1.1.0")
    for name in ("app", "nginx"):
        assert released[name]["image"] == f"registry.test:5000/fox-avatar/{name}:1.1.0"
        assert released[name]["build"]["target"] == "released-images-are-pulled-never-built--AVATAR_REGISTRY--AVATAR_VERSION"
    half = services(AVATAR_VERSION="1.1.0")
    for name in ("app", "nginx"):
        assert half[name]["image"] == f"avatar-registry-not-set.invalid/fox-avatar/{name}:1.1.0"
        assert "AVATAR_VERSION" in half[name]["build"]["target"]
    assert "AVATAR_REGISTRY" in services(AVATAR_REGISTRY="registry.test:5000")["app"]["build"]["target"]
    for name in ("prometheus", "nginx-exporter", "mtail", "blackbox"):
        assert (built[name]["image"], built[name]["pull_policy"]) == (f"fox-avatar/{name}:local", "never")
        assert released[name]["image"] == f"fox-avatar/{name}:1.1.0"
