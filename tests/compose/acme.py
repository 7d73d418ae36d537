"""ACME on a compose stack, against Pebble (Let's Encrypt's test server) on this host: its directory
at https://DOCKER0:PORT/dir (docker0's address: every container reaches the host there) with a
certificate from a CA made here, its DNS (pebble-challtestsrv) answering every name with 127.0.0.1,
so its http-01 validation reaches the stack's published HTTP port, and certificates that live
VALIDITY seconds, so a renewal happens within the test. tests/compose/run.sh installs both
(tools/docker.sh) and exports PEBBLE_BIN and PEBBLE_CHALLTESTSRV_BIN. assert_acme_journey: what
docs/compose.md promises of the certificate, on the page's running stack."""
import calendar
import json
import os
import re
import socket
import ssl
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from compose_helpers import Visitors, compose, containers, inspect, prometheus, same_cert, served_certificate, wait_for

VALIDITY = 180   # seconds: renewed at two thirds, 120 s after the certificate starts
PROFILE = ["blackbox", "mtail", "nginx-exporter", "prometheus"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def docker0():
    out = subprocess.run(["ip", "-4", "-o", "addr", "show", "docker0"], capture_output=True, text=True).stdout
    found = re.search(r"inet (\d+\.\d+\.\d+\.\d+)/", out)
    return found.group(1) if found else pytest.fail("no docker0 address: is the Docker engine running?")


@dataclass
class Pebble:
    directory: str     # the ACME directory URL the stack's Nginx reaches
    ca_file: Path      # what AVATAR_ACME_CA_FILE gives: the directory's CA and Pebble's root
    root: Path         # Pebble's root: what the issued chains end at
    host: str          # docker0's address


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def start(tmp: Path, http_port: int, validity: int, procs: list) -> Pebble:
    """Starts pebble-challtestsrv and Pebble (their processes appended to procs: the caller stops them)."""
    bins = {v: os.environ.get(v) for v in ("PEBBLE_BIN", "PEBBLE_CHALLTESTSRV_BIN")}
    missing = [v for v, path in bins.items() if not path or not Path(path).is_file()]
    if missing:
        pytest.fail(f"{', '.join(missing)} not set: run tests/compose/run.sh (tools/docker.sh installs Pebble)")
    host = docker0()
    # the directory's certificate, for docker0's address and loopback, from a CA of our own
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/CN=fox-avatar test ACME API CA", "-keyout", str(tmp / "api-ca.key"), "-out", str(tmp / "api-ca.pem"))
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=pebble",
            "-keyout", str(tmp / "api.key"), "-out", str(tmp / "api.csr"))
    (tmp / "api.ext").write_text(f"subjectAltName=IP:{host},IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", str(tmp / "api.csr"), "-CA", str(tmp / "api-ca.pem"), "-CAkey", str(tmp / "api-ca.key"),
            "-CAcreateserial", "-days", "2", "-extfile", str(tmp / "api.ext"), "-out", str(tmp / "api.pem"))
    dns, acme, management = free_port(), free_port(), free_port()
    (tmp / "pebble.json").write_text(json.dumps({"pebble": {
        "listenAddress": f"0.0.0.0:{acme}", "managementListenAddress": f"127.0.0.1:{management}",
        "certificate": str(tmp / "api.pem"), "privateKey": str(tmp / "api.key"),
        "httpPort": http_port, "tlsPort": 443, "ocspResponderURL": "", "externalAccountBindingRequired": False,
        "retryAfter": {"authz": 1, "order": 1}, "keyAlgorithm": "ecdsa",
        "profiles": {"default": {"description": "short-lived: renewed within a test", "validityPeriod": validity}}}}))
    log = open(tmp / "pebble.log", "w")
    procs.append(subprocess.Popen(
        [bins["PEBBLE_CHALLTESTSRV_BIN"], "-dnsserver", f"127.0.0.1:{dns}", "-defaultIPv4", "127.0.0.1",
         "-defaultIPv6", "", "-management", f"127.0.0.1:{free_port()}", "-doh", "", "-http01", "", "-https01", "",
         "-tlsalpn01", ""], stdout=log, stderr=subprocess.STDOUT))
    procs.append(subprocess.Popen(
        [bins["PEBBLE_BIN"], "-config", str(tmp / "pebble.json"), "-dnsserver", f"127.0.0.1:{dns}"],
        env=dict(os.environ, PEBBLE_VA_NOSLEEP="1", PEBBLE_WFE_NONCEREJECT="0", PEBBLE_AUTHZREUSE="0"),
        stdout=log, stderr=subprocess.STDOUT))

    def root():
        if any(p.poll() is not None for p in procs):
            pytest.fail(f"Pebble stopped: {(tmp / 'pebble.log').read_text()[-2000:]}")
        try:
            r = requests.get(f"https://127.0.0.1:{management}/roots/0", verify=str(tmp / "api-ca.pem"), timeout=5)
        except requests.ConnectionError:
            return None
        return r.ok and "BEGIN CERTIFICATE" in r.text and r.text
    (tmp / "root.pem").write_text(wait_for("Pebble's root", root, timeout=30))
    (tmp / "acme-ca.pem").write_text((tmp / "api-ca.pem").read_text() + (tmp / "root.pem").read_text())
    return Pebble(f"https://{host}:{acme}/dir", tmp / "acme-ca.pem", tmp / "root.pem", host)


@pytest.fixture()
def pebble(tmp_path_factory):
    procs = []
    try:
        yield start(tmp_path_factory.mktemp("pebble"), http_port=80, validity=VALIDITY, procs=procs)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)


def not_after(pem):
    """The certificate's notAfter, seconds since the epoch."""
    out = subprocess.run(["openssl", "x509", "-noout", "-enddate"], input=pem, capture_output=True, text=True,
                         check=True).stdout
    return int(ssl.cert_time_to_seconds(out.strip().split("=", 1)[1]))


def acme_lines(env, cwd, kind):
    """Nginx's ACME log lines of a kind ("a certificate", "no certificate"), with their times."""
    text = compose("logs", "--no-color", "--no-log-prefix", "--timestamps", "nginx", env=env, cwd=cwd).stdout
    return [line for line in text.splitlines() if f"nginx-entrypoint: ACME: {kind} " in line]


def stamp(line):
    """A `docker compose logs --timestamps` line's time, seconds since the epoch."""
    day, clock, fraction = re.search(r"(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(\.\d+)?", line).groups()
    return calendar.timegm(time.strptime(f"{day} {clock}", "%Y-%m-%d %H:%M:%S")) + float(fraction or 0)


def assert_acme_journey(checkout, env, pebble, name, visit, port=443):
    """docs/compose.md's certificate, its block having run with Pebble's directory: issued for the
    name and chained to Pebble's root, probed by the monitoring profile for that name, renewed with
    a reload that a visitor never notices, kept through down and up; then, with a directory nobody
    answers, the self-signed placeholder and one log line saying why and when."""
    served = served_certificate(port, name)
    assert visit()[0] == 302   # verified against Pebble's root, for the name
    (nginx,) = containers("nginx", env=env, cwd=checkout)
    started = inspect(nginx)["State"]["StartedAt"]
    # (the line follows the reload that served the certificate)
    (first,) = wait_for("the line saying so", lambda: acme_lines(env, checkout, "a certificate"), timeout=10)
    print(f"ACME: first certificate {stamp(first) - stamp(started):.0f} s after Nginx started: {first}")

    # the monitoring profile probes the name, trusting Pebble's root through AVATAR_ACME_CA_FILE
    monitoring = dict(env, COMPOSE_PROFILES="monitoring")
    compose("up", "-d", "--wait", env=monitoring, cwd=checkout, timeout=900)

    def probed():
        success = prometheus("query", query='probe_success{job="fox-avatar-probe"}')["result"]
        expiry = prometheus("query", query='probe_ssl_earliest_cert_expiry{job="fox-avatar-probe"}')["result"]
        now = not_after(served_certificate(port, name))
        return ([s["value"][1] for s in success] == ["1", "1"]
                and [int(float(e["value"][1])) for e in expiry] == [now, now])
    wait_for("both probes passing, seeing the served certificate's end", probed, timeout=120, interval=2)
    firing = [a["labels"]["alertname"] for a in prometheus("alerts")["alerts"] if a["state"] == "firing"]
    assert not firing, firing
    compose("rm", "-s", "-f", *PROFILE, env=monitoring, cwd=checkout)

    # renewed at two thirds of its lifetime, while a visitor keeps asking: no error, no restart
    served = served_certificate(port, name)
    with Visitors(lambda: visit()[0]) as visitor:
        renewed = wait_for("the renewed certificate", lambda: (c := served_certificate(port, name))
                           and not same_cert(c, served) and c, timeout=2 * VALIDITY, interval=0.5)
        before = visitor.outcomes[302]
        wait_for("answers after the reload", lambda: visitor.outcomes[302] > before + 20, timeout=30, interval=0.1)
    assert set(visitor.outcomes) == {302} and not visitor.bad, (visitor.outcomes, visitor.bad[:5])
    assert inspect(nginx)["State"]["StartedAt"] == started, "Nginx was restarted, not reloaded"
    got = acme_lines(env, checkout, "a certificate")
    print(f"ACME: renewed {stamp(got[-1]) - stamp(got[-2]):.0f} s after the certificate before it; "
          f"{visitor.outcomes[302]} answers, no error, around the reload")

    # down and up (no -v): the same certificate and account, nothing asked of the CA
    accounts = compose("exec", "-T", "nginx", "find", "/etc/nginx/tls/acme/accounts", "-type", "f",
                       env=env, cwd=checkout).stdout
    assert "regr.json" in accounts
    compose("down", "--timeout", "5", env=env, cwd=checkout)
    compose("up", "-d", "--wait", env=env, cwd=checkout)
    assert same_cert(served_certificate(port, name), renewed)
    assert compose("exec", "-T", "nginx", "find", "/etc/nginx/tls/acme/accounts", "-type", "f",
                   env=env, cwd=checkout).stdout == accounts
    assert len(acme_lines(env, checkout, "a certificate")) == 0, "a certificate asked for after up"

    # a directory nobody answers: the placeholder, and one line saying why and when it tries again
    unreachable = dict(env, AVATAR_ACME_DIRECTORY=f"https://{pebble.host}:{free_port()}/dir")
    compose("down", "-v", "--timeout", "5", env=env, cwd=checkout)
    compose("up", "-d", "--wait", env=unreachable, cwd=checkout)
    (line,) = wait_for("the line saying why", lambda: acme_lines(unreachable, checkout, "no certificate"), timeout=120)
    print(f"ACME: unreachable: {line}")
    assert unreachable["AVATAR_ACME_DIRECTORY"] in line and "refused" in line.lower(), line
    assert "serving the self-signed placeholder; next try at " in line, line
    assert compose("exec", "-T", "nginx", "test", "-e", "/etc/nginx/tls/self-signed.names", env=unreachable,
                   cwd=checkout, check=False).returncode == 0
    assert same_cert(served_certificate(port, name), compose("exec", "-T", "nginx", "cat", "/etc/nginx/tls/fullchain.pem",
                                                            env=unreachable, cwd=checkout).stdout)
    assert requests.get(f"https://127.0.0.1:{port}/?s=64", verify=False, allow_redirects=False, timeout=5).status_code == 302
    compose("down", "-v", "--timeout", "5", env=unreachable, cwd=checkout)
