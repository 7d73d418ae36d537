"""A proxy in front of two app hosts, the certificate from Pebble: converge, a second run, the shared
HTTP suite through the proxy, a rolling upgrade under light load with a release's jar by URL and
checksum, and certbot's renewal."""
import functools
import hashlib
import http.client
import http.server
import os
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared"))
import foxmol  # noqa: E402

PREFIX = os.environ.get("FOX_MOLECULE_PREFIX", "foxmol")
PROXY, APPS = f"{PREFIX}-split-proxy", [f"{PREFIX}-split-app1", f"{PREFIX}-split-app2"]
NET = os.environ.get("FOX_MOLECULE_SPLIT_NET", "10.213.54")
SITE, PROXY_ADDR = "avatar.test", f"{NET}.10"
PID = "systemctl show -p MainPID --value"
UPSTREAM = "/etc/nginx/fox-avatar-upstream/apps.conf"


def pebble_root() -> Path:
    return Path(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "pebble", "pebble-root.pem")


def served_certificate() -> str:
    return subprocess.run(["openssl", "s_client", "-connect", f"{PROXY_ADDR}:443", "-servername", SITE],
                          input="", capture_output=True, text=True, timeout=30).stdout


def fingerprint(s_client_output: str) -> str:
    return subprocess.run(["openssl", "x509", "-noout", "-fingerprint"], input=s_client_output, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def converged():
    return foxmol.playbook("converge")


def test_the_first_run_succeeds(converged):
    assert converged.clean, converged.excerpt()


def test_a_second_run_changes_nothing(converged):
    run = foxmol.playbook("second-run")
    assert run.unchanged, run.excerpt()


def test_the_proxys_upstream_lists_each_app_host_at_its_private_address(converged):
    lines = foxmol.host_exec(PROXY, "grep", "^server", UPSTREAM).splitlines()
    assert lines == [f"server {NET}.11:8080;  # {APPS[0]}", f"server {NET}.12:8080;  # {APPS[1]}"], lines
    for n, app in enumerate(APPS, 11):
        listening = foxmol.host_exec(app, "ss", "-Htln", "sport = :8080").split()
        assert f"{NET}.{n}:8080" in listening, listening


def test_nginx_serves_pebbles_certificate_from_certbots_lineage(converged):
    assert "Pebble Intermediate CA" in served_certificate()
    assert foxmol.host_exec(PROXY, "readlink", "/etc/ssl/fox-avatar/fullchain.pem") == "/etc/letsencrypt/live/fox-avatar/fullchain.pem"


def test_the_shared_http_suite_passes_through_the_proxy(converged):
    run = foxmol.stack_suite("stack-suite", site=SITE, addr=PROXY_ADDR, ca=pebble_root(), proxy=PROXY, apps=APPS,
                             http3=False, pq=False, network=foxmol.host_network(PROXY))
    assert run.rc == 0, foxmol.tail(run)


class Visitors:
    """Light load: GET / on a fresh TLS connection each time, as a page embedding the avatar makes."""

    def __init__(self):
        self.statuses, self.errors, self.stop = {}, [], threading.Event()
        self.ctx = ssl.create_default_context(cafile=str(pebble_root()))
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop.is_set():
            try:
                conn = http.client.HTTPConnection(PROXY_ADDR, 443, timeout=10)
                conn.sock = self.ctx.wrap_socket(socket.create_connection((PROXY_ADDR, 443), timeout=10), server_hostname=SITE)
                conn.request("GET", "/", headers={"Host": SITE, "Connection": "close"})
                status = conn.getresponse().status
                self.statuses[status] = self.statuses.get(status, 0) + 1
                conn.close()
            except OSError as e:
                self.errors.append(repr(e))
            time.sleep(0.02)


@pytest.fixture(scope="module")
def upgrade(converged):
    """A release's jar (the built one with one more entry), served on this machine's loopback and named
    by URL and checksum, rolled out while visitors keep coming."""
    served = foxmol.workdir("release")
    jar = served / "avatar-0.0.2.jar"
    shutil.copyfile(foxmol.REPO / "app" / "target" / "avatar.jar", jar)
    with zipfile.ZipFile(jar, "a") as z:
        z.writestr("META-INF/fox-avatar-rolling-upgrade-test.txt", "a new jar\n")
    sha = hashlib.sha256(jar.read_bytes()).hexdigest()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    before = {host: foxmol.host_exec(host, *PID.split(), "fox-avatar" if host in APPS else "nginx") for host in [PROXY, *APPS]}
    fallback = foxmol.host_exec(PROXY, "wc", "-l", "/var/log/nginx/fox-avatar/fallback.log")
    visitors = Visitors()
    visitors.thread.start()
    try:
        run = foxmol.playbook("rolling-upgrade", extra_vars={"fox_avatar_app_jar_url": f"http://127.0.0.1:{server.server_address[1]}/{jar.name}",
                                                             "fox_avatar_app_jar_checksum": f"sha256:{sha}"})
    finally:
        visitors.stop.set()
        visitors.thread.join()
        server.shutdown()
    return SimpleNamespace(run=run, sha=sha, before=before, fallback=fallback, visitors=visitors)


def test_the_rolling_upgrade_succeeds(upgrade):
    assert upgrade.run.clean, upgrade.run.excerpt()


def test_each_app_host_runs_the_new_jar_after_a_restart(upgrade):
    for app in APPS:
        assert foxmol.host_exec(app, "sha256sum", "/opt/fox-avatar/avatar.jar").split()[0] == upgrade.sha
        assert foxmol.host_exec(app, *PID.split(), "fox-avatar") != upgrade.before[app]


def test_every_visitor_got_a_302_from_a_live_service_meanwhile(upgrade):
    print(f"rolling upgrade: {upgrade.run.seconds:.0f} s, answers {upgrade.visitors.statuses}, errors {len(upgrade.visitors.errors)}")
    assert set(upgrade.visitors.statuses) == {302} and sum(upgrade.visitors.statuses.values()) > 100, upgrade.visitors.statuses
    assert upgrade.visitors.errors == []
    assert foxmol.host_exec(PROXY, "wc", "-l", "/var/log/nginx/fox-avatar/fallback.log") == upgrade.fallback


def test_nginx_was_reloaded_not_restarted_and_every_host_is_back(upgrade):
    assert foxmol.host_exec(PROXY, *PID.split(), "nginx") == upgrade.before[PROXY]
    assert " down;" not in foxmol.host_exec(PROXY, "cat", UPSTREAM)


def test_certbots_renewal_is_served_after_a_reload(upgrade):
    before, nginx = served_certificate(), foxmol.host_exec(PROXY, *PID.split(), "nginx")
    renew = subprocess.run(["docker", "exec", PROXY, "sh", "-c", "env $(systemctl show -P Environment certbot.service) "
                            "certbot renew --force-renewal --no-random-sleep-on-renew"], capture_output=True, text=True)
    assert renew.returncode == 0, renew.stderr[-3000:]
    assert foxmol.wait_for(lambda: fingerprint(served_certificate()) not in ("", fingerprint(before)), 30)
    assert foxmol.host_exec(PROXY, *PID.split(), "nginx") == nginx
