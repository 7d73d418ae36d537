"""Behind your own proxy (docs/compose.md, "Behind your own proxy"): a real Caddy (Debian's package) on
this machine terminates TLS with its own certificate (`tls internal`, here the global `local_certs`)
and proxies to the project's published HTTP port; Nginx is recreated with AVATAR_TLS=off and
AVATAR_REAL_IP_FROM set to the project network's gateway (the address Nginx sees every connection
from this machine as: Docker's userland proxy), and the default access log (anonymous).

The Caddyfile is the one docs/compose.md shows (its ```caddyfile block), with the test's port in place
of 8080; the global options in front of it only keep Caddy to this test (loopback, free ports, no
admin API, no trust store install).

A visitor connects to Caddy from its own loopback address (127.0.5.9): the log must keep its network,
127.0.5.0, never the gateway's. A client container on the project's network (an address nobody
trusts) sends a forged X-Forwarded-For straight to Nginx: the log keeps the container's network.
Nginx gets the run's own settings back at the end (run.sh's: TLS on, the full log).
"""
import http.client
import os
import re
import socket
import ssl
import subprocess
import time
from pathlib import Path

import pytest

from stack import client
from stack.headers import assert_cors_headers
from stack.images import ACCEPT, IMMUTABLE, assert_served_image, redirect_entry
from stack.stacks import Stack
from imageset import read_manifest
from compose_helpers import SITE_CONF, compose, containers, inspect, logs

ROOT = Path(__file__).resolve().parents[2]
NEEDED = ("COMPOSE_PROJECT_NAME", "COMPOSE_FILE", "AVATAR_HTTP_PORT", "AVATAR_TRIXIE_CLIENT")
pytestmark = pytest.mark.skipif(
    any(not os.environ.get(v) for v in NEEDED),
    reason="needs a running compose project and the client image: run tests/compose/run.sh (make test-compose)")

NAME = "avatar.example.org"   # the doc's site name; the test connects to 127.0.0.1 naming it (SNI, Host)
VISITOR = "127.0.5.9"         # the visitor's own address (every 127/8 address is this machine's loopback)
FORGED = "203.0.113.77"       # what a visitor claims in X-Forwarded-For


def doc_caddyfile():
    """The Caddyfile docs/compose.md shows, as it shows it."""
    blocks = re.findall(r"^```caddyfile\n(.*?)^```$", (ROOT / "docs/compose.md").read_text(), re.M | re.S)
    assert len(blocks) == 1, "docs/compose.md shows one Caddyfile (```caddyfile)"
    return blocks[0]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gateway():
    """The project network's gateway: the address Nginx sees a client on this machine as."""
    (nginx,) = containers("nginx")
    (name,) = inspect(nginx)["NetworkSettings"]["Networks"]
    out = subprocess.run(["docker", "network", "inspect", "-f", "{{(index .IPAM.Config 0).Gateway}}", name],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert re.fullmatch(r"[0-9.]+", out), out
    return out, name


def network24(address):
    return address.rsplit(".", 1)[0] + ".0"


def access_lines(start):
    """Nginx's access lines (anonymous format) whose client field is `start` (a /24 network)."""
    return [line for line in logs("nginx").splitlines() if line.startswith(f"{start} - - [")]


def wait_lines(start, count, timeout=20):
    """The access lines of network `start`, once there are at least `count` (the log is buffered: 1 s)."""
    deadline = time.monotonic() + timeout
    while True:
        lines = access_lines(start)
        if len(lines) >= count:
            return lines
        assert time.monotonic() < deadline, f"{len(lines)} of {count} lines of {start} in the access log"
        time.sleep(0.5)


class CaddyStack(Stack):
    """Caddy on 127.0.0.1, as the stack tests' helpers (tests/stack/images.py) see a stack."""
    kind = "caddy"
    host, addr = NAME, "127.0.0.1"


class _Visitor(http.client.HTTPSConnection):
    """HTTPS to Caddy from the visitor's own address, naming NAME."""
    def connect(self):
        raw = socket.create_connection(("127.0.0.1", self.port), self.timeout, source_address=(VISITOR, 0))
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)


ANSWERED = []   # the visits Nginx answered (its every answer has nosniff; Caddy's own 502 has not)


def visit(caddy, path, headers=None):
    """GET path through Caddy as the visitor: a client.Response."""
    conn = _Visitor(NAME, caddy.https_port, timeout=10, context=ssl.create_default_context(cafile=caddy.ca_file))
    try:
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        hdrs = {}
        for k, v in r.getheaders():
            hdrs.setdefault(k.lower(), []).append(v)
        response = client.Response(r.status, hdrs, r.read(), f"HTTP/{r.version / 10:.1f}")
        if response.header("X-Content-Type-Options") == "nosniff":
            ANSWERED.append(path)
        return response
    finally:
        conn.close()


def direct(path, headers=None):
    """GET path straight to the published HTTP port (plain HTTP), from this machine."""
    conn = http.client.HTTPConnection("127.0.0.1", int(os.environ["AVATAR_HTTP_PORT"]), timeout=10)
    try:
        conn.request("GET", path, headers={"Host": NAME, **(headers or {})})
        r = conn.getresponse()
        hdrs = {}
        for k, v in r.getheaders():
            hdrs.setdefault(k.lower(), []).append(v)
        return client.Response(r.status, hdrs, r.read(), f"HTTP/{r.version / 10:.1f}")
    finally:
        conn.close()


@pytest.fixture(scope="module")
def caddy(tmp_path_factory):
    """Nginx recreated behind Caddy (AVATAR_TLS=off, AVATAR_REAL_IP_FROM=the gateway, the access log
    anonymous), Caddy running the doc's Caddyfile; both put back afterwards."""
    tmp = tmp_path_factory.mktemp("caddy")
    address, network = gateway()
    env = {k: v for k, v in os.environ.items() if k != "AVATAR_ACCESS_LOG"}
    env.update(AVATAR_TLS="off", AVATAR_REAL_IP_FROM=address)
    t0 = time.monotonic()
    compose("up", "-d", "--wait", "--no-build", "--force-recreate", "--no-deps", "nginx", env=env)
    recreated = time.monotonic() - t0
    stack = CaddyStack()
    stack.https_port, stack.http_port = free_port(), free_port()
    site = doc_caddyfile()
    assert site.count("127.0.0.1:8080") == 1, site
    (tmp / "Caddyfile").write_text(
        "{\n\tadmin off\n\tskip_install_trust\n\tlocal_certs\n\tauto_https disable_redirects\n"
        f"\tdefault_bind 127.0.0.1\n\thttp_port {stack.http_port}\n\thttps_port {stack.https_port}\n}}\n\n"
        + site.replace("127.0.0.1:8080", f"127.0.0.1:{os.environ['AVATAR_HTTP_PORT']}"))
    caddy_env = dict(os.environ, HOME=str(tmp), XDG_DATA_HOME=str(tmp / "data"), XDG_CONFIG_HOME=str(tmp / "config"))
    log = open(tmp / "caddy.log", "w")
    proc = subprocess.Popen(["caddy", "run", "--adapter", "caddyfile", "--config", str(tmp / "Caddyfile")],
                            env=caddy_env, stdout=log, stderr=subprocess.STDOUT)
    try:
        stack.ca_file = str(tmp / "data/caddy/pki/authorities/local/root.crt")
        deadline = time.monotonic() + 30
        while True:   # Caddy makes its CA and the site's certificate, then listens
            assert proc.poll() is None, (tmp / "caddy.log").read_text()
            try:
                if visit(stack, "/healthz-probe").status:
                    break
            except (OSError, ssl.SSLError):
                assert time.monotonic() < deadline, (tmp / "caddy.log").read_text()
                time.sleep(0.2)
        print(f"\nbehind a proxy: Nginx recreated with AVATAR_TLS=off in {recreated:.1f} s; "
              f"Caddy up {time.monotonic() - t0 - recreated:.1f} s later")
        yield stack, address, network
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()
        compose("up", "-d", "--wait", "--no-build", "--force-recreate", "--no-deps", "nginx")


@pytest.fixture(scope="module")
def manifest():
    return read_manifest(ROOT / "images")


def test_nginx_listens_plain_http_only_with_the_gateway_trusted(caddy):
    stack, address, _ = caddy
    site = compose("exec", "-T", "nginx", "cat", SITE_CONF).stdout
    public = re.findall(r"^\s*listen \*:(\S+?);", site, re.M)
    assert public == ["8080"], public   # the container's HTTP port, no ssl, no quic, no 8443
    assert not re.search(r"^\s*ssl_certificate", site, re.M), "TLS off reads no certificate"
    assert re.findall(r"^\s*set_real_ip_from (\S+);", site, re.M) == [address]
    assert "nginx-entrypoint: generating" not in logs("nginx")


def test_through_caddy_a_browser_gets_the_302_and_the_image(caddy, manifest):
    stack, _, _ = caddy
    accept, fmt = ACCEPT["chromium"]
    for path in ("/", "/?u=visitor@example.org&s=80", "/avatar/" + "0" * 32):
        r = visit(stack, path, {"Accept": accept})
        assert r.status == 302, (path, r.status)
        assert_cors_headers(r, f"through Caddy {path}")
        entry = redirect_entry(stack, manifest, r)
        assert entry.fmt == fmt, entry
        image = visit(stack, "/" + entry.path, {"Accept": accept})
        assert_served_image(stack, manifest, entry.path, image)
        assert image.header("Cache-Control") == IMMUTABLE
        for answer in (r, image):
            # HSTS and HTTP/3 are the proxy's now: our Nginx sends neither; Caddy names its own port
            assert answer.count("Strict-Transport-Security") == 0, answer.headers
            assert all(f'":{stack.https_port}"' in v for v in answer.headers.get("alt-svc", [])), answer.headers
    legacy = manifest.legacy[0].path
    r = visit(stack, "/" + legacy)
    assert_served_image(stack, manifest, legacy, r)
    assert r.header("Cache-Control") == f"public, max-age={604800}"


def test_the_log_keeps_the_visitors_network_never_caddys(caddy):
    """Every visit Caddy forwarded so far is logged with the visitor's network, none with the gateway's
    (nothing has reached Nginx straight from this machine yet: the direct port's test comes next).
    One visit claims a chain of its own: Caddy does not trust the visitor, and Nginx takes the last
    address it does not trust, the visitor's."""
    stack, address, _ = caddy
    assert visit(stack, "/?u=chain@example.org").status == 302
    assert visit(stack, "/", {"X-Forwarded-For": f"{FORGED}, 198.51.100.1"}).status == 302
    lines = wait_lines(network24(VISITOR), len(ANSWERED))   # the log is buffered (1 s)
    assert len(lines) == len(ANSWERED), (ANSWERED, lines)
    assert sum('"GET / HTTP/1.1" 302 ' in line for line in lines) >= 4, lines
    assert access_lines(network24(address)) == [], "a visit was logged with Caddy's network"
    assert access_lines(network24(FORGED)) == [] and access_lines("198.51.100.0") == []


def test_the_direct_http_port_answers_the_302_with_no_hsts_or_alt_svc(caddy, manifest):
    r = direct("/?u=direct@example.org")
    assert r.status == 302, r.status   # not the 308 to HTTPS
    assert_cors_headers(r, "direct")
    assert r.header("X-Content-Type-Options") == "nosniff"
    assert r.count("Strict-Transport-Security") == 0 and r.count("Alt-Svc") == 0, r.headers
    location = r.header("Location")
    assert location.startswith("/") and manifest.entry(location[1:]) is not None, location
    image = direct(location)
    assert image.status == 200 and image.header("Cache-Control") == IMMUTABLE
    assert image.count("Strict-Transport-Security") == 0 and image.count("Alt-Svc") == 0, image.headers


def test_a_forged_x_forwarded_for_straight_to_nginx_changes_nothing(caddy):
    """From a client container on the project's network (not the gateway: nobody trusts it)."""
    _, address, network = caddy
    before = {line for line in logs("nginx").splitlines()}
    script = ('hostname -I; curl -s -o /dev/null -w "%{http_code}\\n" '
              f'-H "X-Forwarded-For: {FORGED}" http://nginx:8080/')
    done = subprocess.run(["docker", "run", "--rm", "--network", network, os.environ["AVATAR_TRIXIE_CLIENT"],
                           "sh", "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    peer, status = done.stdout.split()
    assert status == "302" and peer != address, done.stdout
    # its line: the peer's network (on a /16 bridge, the gateway's /24 too), never the forged one
    deadline = time.monotonic() + 20
    while True:
        new = [line for line in logs("nginx").splitlines() if line not in before and " - - [" in line
               and '"GET / HTTP/1.1" 302 ' in line]
        if new:
            break
        assert time.monotonic() < deadline, "the request is not in the access log"
        time.sleep(0.5)
    # (a line of the direct port's test may come late: from this machine, the gateway, the same /24)
    assert {line.split(" ", 1)[0] for line in new} == {network24(peer)}, new
    assert access_lines(network24(FORGED)) == [], "a forged X-Forwarded-For named the client"
