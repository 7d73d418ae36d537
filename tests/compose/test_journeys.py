"""The compose journeys as their pages write them, each from a fresh clone of this tree (FOX_SNAPSHOT)
in a directory of its own: docs/behind-a-proxy.md (its block, then Debian's Caddy running the page's
Caddyfile and Debian's Nginx running the page's server block in front), and docs/compose.md (a
public server on ports 443 and 80 of every address with its certificate from Pebble, Let's
Encrypt's test server, on this host: tests/compose/acme.py; then its own-certificate block). Run
after the README's stack is down: they publish its ports."""
import os
import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
import requests

from acme import assert_acme_journey, free_port, pebble  # noqa: F401  (pebble: a fixture)
from compose_helpers import (ROOT, compose, containers, docblocks, inspect, logs, same_cert, served_certificate, tls_get,
                             wait_for)

NAME = "avatar.example.org"
VISITOR = "127.0.5.9"   # a loopback address of this machine: the visitor behind the proxy
pytestmark = [pytest.mark.skipif(not os.environ.get("FOX_SNAPSHOT"),
                                 reason="needs tests/compose/run.sh's snapshot of the tree (FOX_SNAPSHOT)"),
              pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")]


def fenced(page, language):
    (text,) = re.findall(rf"^```{language}\n(.*?)^```$", (ROOT / page).read_text(), re.M | re.S)
    return text


@pytest.fixture()
def journey(tmp_path, request):
    """Runs a page's block as written in a fresh directory; the project is taken down afterwards."""
    env = {"COMPOSE_PROJECT_NAME": f"fox-avatar-test-{os.getpid()}-{request.node.name[5:25].replace('_', '-')}"}
    ran = {}

    def run(page, index=0, extra_env=None, **kw):
        env.update(extra_env or {})
        run.env.update(env)
        docblocks.run(page, index, cwd=ran.setdefault("cwd", tmp_path), env=env,
                      clone_from=os.environ["FOX_SNAPSHOT"], timeout=900, **kw)
        return tmp_path / "fox-avatar"
    run.env = dict(os.environ, **env)
    yield run
    if (tmp_path / "fox-avatar").exists():
        compose("down", "-v", "--timeout", "5", env=dict(run.env, COMPOSE_PROFILES="monitoring"),
                cwd=tmp_path / "fox-avatar", check=False)


def through(port, path="/", ca=None, source=VISITOR):
    """(status, Location) of GET https://NAME:port/path from the visitor's own address, verified against ca."""
    return tls_get(port, path, NAME, ca, source)[:2]


def assert_visitor_gets_a_fox_through(port, ca, checkout, env):
    def lines(*since):
        return [line for line in logs("nginx", *since, env=env, cwd=checkout).splitlines() if " - - [" in line]
    # The page's own request (from the gateway's network) written out before the visit's
    compose("kill", "-s", "SIGUSR1", "nginx", env=env, cwd=checkout)
    wait_for("the page's request in the access log", lines, timeout=15)
    since = ("--since", str(time.time()))
    status, location = through(port, ca=ca)
    assert status == 302 and location.startswith("/a/"), (status, location)
    assert through(port, location, ca=ca)[0] == 200
    compose("kill", "-s", "SIGUSR1", "nginx", env=env, cwd=checkout)   # the buffered access log out

    found = wait_for("the visits in the access log", lambda: len(lines(*since)) >= 2 and lines(*since), timeout=15)
    assert {line.split()[0] for line in found} == {"127.0.5.0"}, found   # the visitor's network, not the gateway's


def test_behind_caddy_and_an_nginx_as_behind_a_proxy_md_writes_it(journey, tmp_path_factory):
    checkout = journey("docs/behind-a-proxy.md")
    tmp = tmp_path_factory.mktemp("proxies")
    # Caddy: the page's site, on test ports, its own local CA instead of Let's Encrypt
    https_port = free_port()
    (tmp / "Caddyfile").write_text(
        "{\n\tadmin off\n\tskip_install_trust\n\tlocal_certs\n\tauto_https disable_redirects\n"
        f"\tdefault_bind 127.0.0.1\n\thttp_port {free_port()}\n\thttps_port {https_port}\n}}\n\n"
        + fenced("docs/behind-a-proxy.md", "caddyfile"))
    caddy = subprocess.Popen(["caddy", "run", "--adapter", "caddyfile", "--config", str(tmp / "Caddyfile")],
                             env=dict(os.environ, HOME=str(tmp), XDG_DATA_HOME=str(tmp / "data"),
                                      XDG_CONFIG_HOME=str(tmp / "config")),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        ca = str(tmp / "data/caddy/pki/authorities/local/root.crt")
        wait_for("Caddy's certificate", lambda: Path(ca).exists(), timeout=30)
        wait_for("Caddy answering", lambda: caddy.poll() is None and socket.socket().connect_ex(
            ("127.0.0.1", https_port)) == 0, timeout=30)
        assert_visitor_gets_a_fox_through(https_port, ca, checkout, journey.env)
    finally:
        caddy.terminate()
        caddy.wait(20)
    # An Nginx of one's own: the page's server block, its certificate where the page says
    certificate(tmp / "letsencrypt", "one")
    (tmp / "nginx.conf").write_text(f"pid {tmp}/nginx.pid;\nerror_log stderr;\nevents {{}}\nhttp {{\n"
                                    f"access_log off;\n{fenced('docs/behind-a-proxy.md', 'nginx')}}}\n")
    nginx = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
             f'mkdir -p /etc/letsencrypt && mount --bind {tmp}/letsencrypt /etc/letsencrypt && exec "$@"', "-",
             "nginx", "-g", "daemon off;", "-c", str(tmp / "nginx.conf")]
    if socket.socket().connect_ex(("127.0.0.1", 443)) == 0:
        pytest.fail("port 443 is taken on this machine: the page's Nginx needs it")
    proc = subprocess.Popen(nginx, stderr=subprocess.PIPE, text=True)
    try:
        wait_for("the Nginx in front", lambda: proc.poll() is None and socket.socket().connect_ex(
            ("127.0.0.1", 443)) == 0, timeout=20)
        assert_visitor_gets_a_fox_through(443, str(tmp / "letsencrypt/ca.pem"), checkout, journey.env)
    finally:
        proc.terminate()
        print(proc.communicate(timeout=20)[1])

    # the monitoring profile beside it: with Nginx's HTTPS off, the probe asks its HTTP port, and passes
    port = free_port()
    compose("up", "-d", "--wait", env=dict(journey.env, COMPOSE_PROFILES="monitoring", AVATAR_PROMETHEUS_PORT=str(port)),
            cwd=checkout, timeout=900)

    def probes():
        r = requests.get(f"http://127.0.0.1:{port}/api/v1/query", params={"query": 'probe_success{job="fox-avatar-probe"}'},
                         timeout=10)
        return [s["value"][1] for s in r.json()["data"]["result"]] == ["1", "1"]
    wait_for("both probes passing on Nginx's HTTP port", probes, timeout=120, interval=2)


def certificate(directory, serial):
    """directory/ca.pem and live/NAME/{fullchain,privkey}.pem for NAME, signed by that CA."""
    live = directory / "live" / NAME
    live.mkdir(parents=True, exist_ok=True)
    run = lambda *a: subprocess.run(["openssl", *a], check=True, capture_output=True)  # noqa: E731
    if not (directory / "ca.pem").exists():
        run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/CN=fox-avatar test CA", "-keyout", str(directory / "ca.key"), "-out", str(directory / "ca.pem"))
    run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", f"/CN={serial}",
        "-keyout", str(live / "privkey.pem"), "-out", str(directory / "csr.pem"))
    (directory / "ext").write_text(f"subjectAltName=DNS:{NAME}\n")
    run("x509", "-req", "-in", str(directory / "csr.pem"), "-CA", str(directory / "ca.pem"), "-CAkey",
        str(directory / "ca.key"), "-CAcreateserial", "-days", "2", "-extfile", str(directory / "ext"),
        "-out", str(live / "fullchain.pem"))
    return live / "fullchain.pem"


def test_a_public_server_as_compose_md_writes_it(journey, pebble, tmp_path_factory):
    for port in (443, 80):
        if socket.socket().connect_ex(("127.0.0.1", port)) == 0:
            pytest.fail(f"port {port} is taken on this machine: the page's server needs it")
    # Pebble in Let's Encrypt's place: the page's settings, the test's CA given by the environment
    checkout = journey("docs/compose.md", hosts={NAME: "127.0.0.1"}, extra_env={
        "AVATAR_ACME_DIRECTORY": pebble.directory, "AVATAR_ACME_CA_FILE": str(pebble.ca_file),
        "CURL_CA_BUNDLE": str(pebble.root)})
    # every address of both families, HTTP sent to HTTPS, HTTP/3 on the same port's UDP
    for host in ("127.0.0.1", "[::1]"):
        r = requests.get(f"https://{host}/", verify=False, allow_redirects=False, timeout=5)
        assert r.status_code == 302 and r.headers["Alt-Svc"].startswith('h3=":443"'), (host, r.headers)
    r = requests.get("http://127.0.0.1/?s=64", headers={"Host": NAME}, allow_redirects=False, timeout=5)
    assert (r.status_code, r.headers["Location"]) == (308, f"https://{NAME}/?s=64")
    # the certificate: issued, probed, renewed under load, kept through down and up, the placeholder
    assert_acme_journey(checkout, journey.env, pebble, NAME, lambda: through(443, ca=str(pebble.root), source="127.0.0.1"))

    # the own certificate: the page's files, made by a test CA, in the home directory the page copies from
    letsencrypt = tmp_path_factory.mktemp("own")
    fullchain = certificate(letsencrypt, "one")
    home = fullchain.parent
    shutil.which("sudo") or pytest.fail("sudo is missing (tests/compose/run.sh installs it)")
    docblocks.run("docs/compose.md", 1, cwd=checkout, env=dict(journey.env, HOME=str(home)), timeout=300)
    assert same_cert(served_certificate(443, NAME), fullchain.read_text())
    assert through(443, ca=str(letsencrypt / "ca.pem"), source="127.0.0.1")[0] == 302

    # renewed files copied in again: Nginx reloads with them (checked every second here), no restart
    override = checkout / "check-often.yml"
    override.write_text("services:\n  nginx:\n    environment: {NGINX_TLS_CHECK_SECONDS: '1'}\n")
    env = dict(journey.env, COMPOSE_FILE=f"{journey.env.get('COMPOSE_FILE', 'docker-compose.yml')}:{override}")
    compose("up", "-d", "--wait", env=env, cwd=checkout)
    (nginx,) = containers("nginx", env=env, cwd=checkout)
    started = inspect(nginx)["State"]["StartedAt"]
    renewed = certificate(letsencrypt, "two")
    done = subprocess.run(["bash", "-euo", "pipefail", "-c",
                           "\n".join(line for line in docblocks.blocks("docs/compose.md")[1].splitlines()
                                     if line.startswith("sudo install"))],
                          cwd=checkout, env=dict(journey.env, HOME=str(home)), timeout=60)
    assert done.returncode == 0
    wait_for("the renewed certificate served", lambda: same_cert(served_certificate(443, NAME), renewed.read_text()),
             timeout=20)
    assert inspect(nginx)["State"]["StartedAt"] == started, "Nginx was restarted, not reloaded"
