"""docker-stack.yml on the three-node swarm tests/swarm/run.sh made, deployed by docs/swarm.md's
blocks as written (the release 1.0.0 in registry.example:5000), in order: the deploy, what Debian
12's CLI makes of the file, every node's HTTPS and HTTP/3 on its published ports, the tasks'
hardening, a rolling update of the app under load, the own certificate from secrets, the list of
people from a config with Gravatar's defaults on."""
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from imageset import read_manifest
from imageset.people import people

from swarm import STACK, Load, Swarm, avatar, served_certificate, sh

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "lib"))
import docblocks  # noqa: E402

NAME = "avatar.example.org"
FOXES = read_manifest(ROOT / "images")
DRAWING = FOXES.variants.directory
RELEASE = {"AVATAR_REGISTRY": "registry.example:5000", "AVATAR_VERSION": "1.0.0"}   # the page's exports
pytestmark = [pytest.mark.skipif(not os.environ.get("SWARM_NODES"), reason="needs tests/swarm/run.sh's swarm"),
              pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")]   # each node's own certificate


def md5(address):
    return hashlib.md5(address.encode()).hexdigest()


@pytest.fixture(scope="module")
def swarm():
    return Swarm()


@pytest.fixture(scope="module")
def checkout(swarm, tmp_path_factory):
    """docs/swarm.md's first block, run as written with the manager's engine as this CLI's."""
    cwd = tmp_path_factory.mktemp("swarm")
    docblocks.run("docs/swarm.md", cwd=cwd, env={"DOCKER_HOST": swarm.docker_host},
                  clone_from=os.environ["FOX_SNAPSHOT"], timeout=600)
    return cwd / "fox-avatar"


def test_the_page_deploys_the_app_over_three_nodes_and_nginx_on_each(swarm, checkout):
    assert swarm.wait_converged("app", 3) == ["n1", "n2", "n3"]
    assert swarm.wait_converged("nginx", 3) == ["n1", "n2", "n3"]


def test_debian_12s_cli_reads_the_whole_file_and_names_a_missing_setting(swarm, checkout):
    for f in ("docker-stack.yml", "nginx/swarm/no-certificate", "nginx/swarm/no-people"):
        sh("docker", "exec", swarm.manager.container, "mkdir", "-p", f"/stack/{Path(f).parent}")
        sh("docker", "cp", str(checkout / f), f"{swarm.manager.container}:/stack/{f}")
    assert swarm.manager.docker("version", "-f", "{{.Client.Version}}").stdout.startswith("20.10.")
    deploy = swarm.manager.docker("stack", "deploy", "-c", "/stack/docker-stack.yml", STACK, env=RELEASE)
    assert "Ignoring unsupported options" not in deploy.stdout + deploy.stderr, deploy.stdout + deploy.stderr
    missing = swarm.manager.docker("stack", "deploy", "-c", "/stack/docker-stack.yml", STACK,
                                   env={"AVATAR_REGISTRY": "registry.example:5000"}, check=False)
    assert missing.returncode != 0 and "AVATAR_VERSION" in missing.stderr, missing.stderr
    swarm.wait_converged("app", 3)
    swarm.wait_converged("nginx", 3)


def test_every_node_answers_https_and_http3_on_its_published_ports(swarm, checkout):
    for n in swarm.nodes:
        status, location = avatar(n.ip)
        assert status == 302 and location.startswith("/a/"), (n.host, status, location)
        status, location = avatar(n.ip, path=f"/avatar/{md5('alice@example.org')}?s=64")
        assert status == 302 and location.startswith(f"/{DRAWING}/"), (n.host, status, location)
        identity = requests.get(f"https://{n.ip}{location}", verify=False, timeout=10)
        assert (identity.status_code, identity.headers["Content-Type"]) == (200, "image/png"), (n.host, location)
        http3 = sh("docker", "run", "--rm", "--network", swarm.net, os.environ["AVATAR_TRIXIE_CLIENT"], "curl",
                   "--http3-only", "-sk", "-o", "/dev/null", "-w", "%{http_code} %{http_version}",
                   f"https://{n.ip}/", check=False)
        assert http3.stdout == "302 3", (n.host, http3.stdout, http3.stderr)


def test_tasks_are_read_only_without_capabilities_as_their_users(swarm, checkout):
    for n in swarm.nodes:
        for service, user in (("app", "10001:10001"), ("nginx", "33:33")):
            c = n.task(service)
            got = n.docker("inspect", "-f", "{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.CapDrop}} {{.Config.User}}",
                           c).stdout.split()
            assert got == ["true", "[ALL]", user], (n.host, service, got)
            assert "CapEff:\t0000000000000000" in n.docker("exec", c, "cat", "/proc/1/status").stdout


def test_a_rolling_update_of_the_app_loses_no_request(swarm, checkout):
    image = f"{swarm.push}/fox-avatar/app:1.0.1"
    sh("docker", "build", "-q", "-t", image, "-",
       input=f"FROM {swarm.push}/fox-avatar/app:1.0.0\nLABEL dev.fox-avatar.test=1.0.1\n")
    sh("docker", "push", "-q", image)
    with Load(swarm.nodes) as load:
        swarm.manager.docker("service", "update", "--detach", "--image", "registry.example:5000/fox-avatar/app:1.0.1",
                             f"{STACK}_app")
        swarm.wait_converged("app", 3)
    print(f"\n   rolling update of the app: {load.requests} requests, {len(load.bad)} bad")
    assert load.requests > 50 and load.bad == [], load.bad[:5]
    assert "app:1.0.1" in swarm.manager.docker("service", "inspect", "-f", "{{.Spec.TaskTemplate.ContainerSpec.Image}}",
                                               f"{STACK}_app").stdout


def test_the_pages_certificate_and_its_renewal_reach_every_node(swarm, checkout, tmp_path):
    """docs/swarm.md's second block as written, its files made by a test CA where the page reads them
    (root's, as certbot keeps them), run twice: a first certificate, then a renewed one."""
    live = tmp_path / "letsencrypt" / "live" / NAME
    live.mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    openssl = lambda *a: sh("openssl", *a)  # noqa: E731
    unshare = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
               f'mkdir -p /etc/letsencrypt && mount --bind {tmp_path / "letsencrypt"} /etc/letsencrypt && exec "$@"', "-"]
    for serial in ("1", "2"):
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-set_serial", serial, "-subj", f"/CN={NAME}", "-addext", f"subjectAltName=DNS:{NAME}",
                "-keyout", str(live / "privkey.pem"), "-out", str(live / "fullchain.pem"))
        for f in live.iterdir():
            f.chmod(0o600)
        done = subprocess.run([*unshare, sys.executable, str(ROOT / "tests/lib/docblocks.py"), "run", "docs/swarm.md",
                               "1", "--cwd", str(checkout)],
                              env=dict(os.environ, HOME=str(home), DOCKER_HOST=swarm.docker_host, **RELEASE), timeout=600)
        assert done.returncode == 0
        swarm.wait_converged("nginx", 3)
        want = (live / "fullchain.pem").read_text()
        for n in swarm.nodes:
            assert served_certificate(n.ip, NAME) == want, (n.host, serial)
    secrets = swarm.manager.docker("secret", "ls", "--format", "{{.Name}}").stdout.split()
    assert len([s for s in secrets if s.startswith("fox-avatar-tls-cert-") and s != "fox-avatar-tls-cert-none"]) == 2, secrets


def test_a_list_of_people_and_gravatars_defaults_reach_every_node(swarm, checkout, tmp_path):
    """docs/swarm.md's settings: AVATAR_PEOPLE_FILE as the config AVATAR_PEOPLE_CONFIG names, and
    AVATAR_GRAVATAR_DEFAULTS=on, by the same deploy: a rolling update of both services."""
    listed = tmp_path / "people.tsv"
    listed.write_text(people("alice@example.org 7-v12\n", FOXES))
    settings = {"AVATAR_PEOPLE_FILE": str(listed), "AVATAR_PEOPLE_CONFIG": "t1", "AVATAR_GRAVATAR_DEFAULTS": "on"}
    sh("docker", "stack", "deploy", "-c", str(checkout / "docker-stack.yml"), STACK,
       env=dict(os.environ, DOCKER_HOST=swarm.docker_host, **RELEASE, **settings))
    swarm.wait_converged("app", 3)
    swarm.wait_converged("nginx", 3)
    for n in swarm.nodes:
        assert avatar(n.ip, path=f"/avatar/{md5('alice@example.org')}?s=64&d=404") == (302, f"/{DRAWING}/Renard-7-v12-64.png")
        assert avatar(n.ip, path=f"/avatar/{md5('stranger@example.org')}?d=404") == (404, None), n.host
