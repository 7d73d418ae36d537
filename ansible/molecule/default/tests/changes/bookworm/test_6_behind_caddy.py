"""Last of the changes: the Debian 12 host behind its own proxy (issue 44, docs/ansible.md "Behind
your own proxy"). fox_avatar_tls_mode proxy, fox_avatar_nginx_real_ip_from the one address the
proxy reaches the host from; Caddy (Debian's package) on this machine terminates TLS with its own
certificate (tls internal) and forwards to the host's port 80. Through Caddy a client gets the 302
and the image; Nginx's private log keeps the client's network, not Caddy's; a forged
X-Forwarded-For sent straight to Nginx from another address changes nothing in the log; the
owner's sites still answer as before the first converge (owner.py). The owner's nginx.conf sets
the map hash sizes since test_5: fox_avatar_nginx_map_hash false."""
import os
import shutil
import socket
import subprocess
import time
from types import SimpleNamespace

import foxmol
import owner
import pytest
from probes import SITE

LOG = "/var/log/nginx/fox-avatar/access.log"
FORGED = "203.0.113.77"
KEEP = {"fox_avatar_nginx_images_max_age": 3600}   # test_3's, kept: the mode alone changes


def gateway(network: str) -> str:
    """The address this machine (and Caddy on it) reaches the scenario's network from."""
    return foxmol.docker("network", "inspect", "-f", "{{(index .IPAM.Config 0).Gateway}}", network)


@pytest.fixture(scope="module")
def proxy_converge(host_name, network, proxy_only):
    run = foxmol.playbook("behind-caddy", env=proxy_only, extra_vars={
        **KEEP, "fox_avatar_tls_mode": "proxy", "fox_avatar_nginx_real_ip_from": [gateway(network)],
        "fox_avatar_nginx_map_hash": False})
    return SimpleNamespace(run=run)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def caddy(proxy_converge, addr):
    """Caddy in front: https://avatar.test:PORT on 127.0.0.1, reverse_proxy to the host's port 80."""
    binary = shutil.which("caddy")
    assert binary, "no caddy (Debian's package): tests/ansible/molecule.sh installs it"
    work = foxmol.workdir("caddy")
    port = free_port()
    (work / "Caddyfile").write_text(f"""{{
\tadmin off
\tskip_install_trust
\tauto_https disable_redirects
\thttp_port {free_port()}
\thttps_port {port}
\tstorage file_system {work}/data
}}
https://{SITE}:{port} {{
\tbind 127.0.0.1
\ttls internal
\treverse_proxy {addr}:80
}}
""")
    env = dict(os.environ, XDG_DATA_HOME=str(work / "xdg-data"), XDG_CONFIG_HOME=str(work / "xdg-config"))
    log = (work / "caddy.log").open("w")
    proc = subprocess.Popen([binary, "run", "--adapter", "caddyfile", "--config", str(work / "Caddyfile")],
                            env=env, stdout=log, stderr=subprocess.STDOUT)
    root = work / "data/pki/authorities/local/root.crt"
    me = SimpleNamespace(port=port, ca=root, log=work / "caddy.log")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if root.is_file() and through(me, "/")[0] != "000":
            break
        time.sleep(0.5)
    try:
        assert proc.poll() is None and root.is_file(), f"Caddy did not start: {me.log.read_text()[-2000:]}"
        yield me
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


def through(caddy, path: str) -> tuple[str, str]:
    """(status, headers) of GET https://avatar.test:PORT/PATH through Caddy, verified against its CA."""
    res = subprocess.run(["curl", "-s", "-o", "/dev/null", "-D", "-", "-w", "%{http_code}", "--max-time", "10",
                          "--cacert", str(caddy.ca), "--resolve", f"{SITE}:{caddy.port}:127.0.0.1",
                          f"https://{SITE}:{caddy.port}{path}"], capture_output=True, text=True, check=False)
    head, _, code = res.stdout.replace("\r\n", "\n").rpartition("\n\n")
    return code.strip() or "000", head


def header(head: str, name: str) -> str | None:
    found = [line.split(":", 1)[1].strip() for line in head.splitlines() if line.lower().startswith(name.lower() + ":")]
    return found[0] if found else None


def new_log_lines(host_name: str, since: int, route: str) -> list[str]:
    """The access log's lines for ROUTE after its first SINCE lines, once there is one (Nginx flushes
    its buffer within a second: lines of earlier requests may still come after SINCE), or [] after 10 s."""
    deadline, lines = time.monotonic() + 10, []
    while time.monotonic() < deadline:
        lines = [line for line in foxmol.host_exec(host_name, "cat", LOG).splitlines()[since:]
                 if f'"GET {route} ' in line]
        if lines:
            break
        time.sleep(0.2)
    return lines


def log_length(host_name: str) -> int:
    return len(foxmol.host_exec(host_name, "cat", LOG).splitlines())


def test_proxy_mode_converge_succeeds(proxy_converge):
    assert proxy_converge.run.clean, proxy_converge.run.excerpt()


def test_nginx_answers_plain_http_on_80_without_redirect_hsts_or_alt_svc(proxy_converge, addr):
    got = owner.answer(addr, SITE, 80)
    assert got["status"] == 302, got
    res = subprocess.run(["curl", "-s", "-o", "/dev/null", "-D", "-", "-H", f"Host: {SITE}", f"http://{addr}/"],
                         capture_output=True, text=True, check=False).stdout
    assert header(res, "Strict-Transport-Security") is None and header(res, "Alt-Svc") is None, res


def test_no_certificate_of_ours_is_read(proxy_converge, host_name):
    site = foxmol.host_exec(host_name, "cat", "/etc/nginx/fox-avatar/site.conf")
    assert "ssl_certificate" not in site and "listen" in site


def test_through_caddy_a_client_gets_the_302_and_the_image(caddy):
    code, head = through(caddy, "/?u=fox-behind-caddy")
    location = header(head, "Location")
    assert code == "302" and location, head
    path = location if location.startswith("/") else "/" + location.split("/", 3)[3]
    code, head = through(caddy, path)
    assert code == "200" and header(head, "Content-Type").startswith("image/"), head


def test_the_log_keeps_the_clients_network_not_caddys(caddy, host_name, network):
    since = log_length(host_name)
    assert through(caddy, "/Renard-13.png")[0] == "200"   # a route no other test here asks for
    lines = new_log_lines(host_name, since, "/Renard-13.png")
    caddys = gateway(network).rsplit(".", 1)[0] + ".0"
    assert caddys != "127.0.0.0"
    assert lines and all(line.split()[0] == "127.0.0.0" for line in lines), (f"Caddy's network: {caddys}", lines)


def test_a_forged_forwarded_for_straight_to_nginx_changes_nothing_in_the_log(proxy_converge, host_name, network, addr,
                                                                              files_mode):
    since = log_length(host_name)
    client = foxmol.trixie_client(network, files_mode["ca"], "sh", "-c",
                                  'awk "END { print \\$1 }" /etc/hosts; curl -s -o /dev/null -w "%{http_code}" -H "Host: $1" '
                                  '-H "X-Forwarded-For: $2" "http://$3/Renard-12.png"', "sh", SITE, FORGED, addr)
    own_ip, code = client.stdout.split()[0], client.stdout.split()[-1]
    assert code == "200", client
    lines = new_log_lines(host_name, since, "/Renard-12.png")
    assert lines and lines[0].split()[0] == own_ip.rsplit(".", 1)[0] + ".0", (own_ip, lines)
    assert FORGED.rsplit(".", 1)[0] not in foxmol.host_exec(host_name, "cat", LOG)


def test_the_owners_sites_still_answer_as_before(proxy_converge, addr):
    before, now = owner.load(), owner.snapshot(addr)
    assert not owner.differences(before, now), owner.differences(before, now)
