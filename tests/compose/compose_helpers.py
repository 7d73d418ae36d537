"""The compose layer's helpers. tests/compose/run.sh starts the README's stack and exports
FOX_CHECKOUT (its clone, the project directory), COMPOSE_PROJECT_NAME and AVATAR_CA (the certificate
it serves); the tests drive that project with `docker compose`, as its user would."""
import json
import os
import re
import socket
import ssl
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
import requests

from imageset import read_manifest
from settle import until

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "lib"))
import docblocks  # noqa: E402,F401  (the pages' blocks, run as written)
NEEDED = ("FOX_CHECKOUT", "COMPOSE_PROJECT_NAME", "AVATAR_CA")
pytestmark = pytest.mark.skipif(any(not os.environ.get(v) for v in NEEDED),
                                reason="needs the README's stack: run tests/compose/run.sh (make test-compose)")
FOXES = read_manifest(ROOT / "images")
FOX_LOCATIONS = {f"/{e.path}" for e in FOXES.images}
HTTPS = "https://localhost:8443"


def compose(*args, check=True, env=None, cwd=None, timeout=300):
    """`docker compose ARGS` in the project's directory."""
    done = subprocess.run(["docker", "compose", *args], cwd=cwd or os.environ.get("FOX_CHECKOUT"),
                          env=env, capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"docker compose {' '.join(args)}: exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done


def logs(service, *args, **kw):
    """`docker compose logs` of a service, without terminal control sequences."""
    done = compose("logs", "--no-color", "--no-log-prefix", *args, service, **kw)
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", done.stdout + done.stderr)


def containers(service, **kw):
    return compose("ps", "-q", service, **kw).stdout.split()


def inspect(container):
    return json.loads(subprocess.run(["docker", "inspect", container], capture_output=True, text=True,
                                     check=True).stdout)[0]


def address(container):
    return next(iter(inspect(container)["NetworkSettings"]["Networks"].values()))["IPAddress"]


def wait_for(what, predicate, timeout=60, interval=0.5):
    """tools/settle.py's until, with the deadlines containers need."""
    return until(predicate, what, timeout, interval)


def avatar(url=HTTPS, ca=None):
    """GET / on a new connection: (status, Location, answered by Nginx's fallback)."""
    r = requests.get(f"{url}/?s=64", verify=ca or os.environ["AVATAR_CA"], allow_redirects=False, timeout=5)
    return r.status_code, r.headers.get("Location"), b"<html>" in r.content


def tls_get(port, path, name, ca=None, source="127.0.0.1"):
    """GET https://NAME:PORT/path on a new connection to 127.0.0.1 from the source address: (status,
    Location as a path, Content-Type). ca: a CA file the certificate must chain to for name; None
    takes any certificate."""
    ctx = ssl.create_default_context(cafile=ca)
    if not ca:
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port), 10, source_address=(source, 0)) as raw, \
            ctx.wrap_socket(raw, server_hostname=name) as tls:
        tls.sendall(f"GET {path} HTTP/1.1\r\nHost: {name}:{port}\r\nAccept: */*\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := tls.recv(65536):
            data += chunk
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:])}
    location = fields.get("location", "")
    if location.startswith("https://"):
        location = "/" + location.split("/", 3)[3]
    return int(head[0].split()[1]), location, fields.get("content-type", "")


def served_certificate(port=8443, host="localhost", addr="127.0.0.1"):
    """The PEM certificate Nginx presents."""
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    with socket.create_connection((addr, port), 5) as raw, ctx.wrap_socket(raw, server_hostname=host) as tls:
        return ssl.DER_cert_to_PEM_cert(tls.getpeercert(binary_form=True))


def same_cert(a, b):
    return ssl.PEM_cert_to_DER_cert(a) == ssl.PEM_cert_to_DER_cert(b)


def prometheus(path, **params):
    """The data of a Prometheus API answer from the monitoring profile's published port."""
    port = os.environ.get("AVATAR_PROMETHEUS_PORT", "9090")
    r = requests.get(f"http://127.0.0.1:{port}/api/v1/{path}", params=params, timeout=10)
    r.raise_for_status()
    return r.json()["data"]


class Visitors(threading.Thread):
    """visit() one after another while the `with` block lasts: how often it returned each outcome,
    and the failed connections."""

    def __init__(self, visit):
        super().__init__(daemon=True)
        self.visit, self.outcomes, self.bad, self.done = visit, Counter(), [], threading.Event()

    def run(self):
        while not self.done.is_set():
            try:
                self.outcomes[self.visit()] += 1
            except OSError as e:     # requests' and ssl's errors too
                self.bad.append(repr(e))

    def __enter__(self):
        self.start()
        wait_for("a first answer", lambda: self.outcomes or self.bad, timeout=10, interval=0.05)
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.join(10)
