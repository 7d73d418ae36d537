"""The real client libraries that make Gravatar/Libravatar URLs, pinned, and a DNS server on loopback for
their federation lookups (no test depends on a public resolver):
- pylibravatar (PyPI, tools/requirements.txt), its dnspython resolver pointed at the loopback server;
- strk.kbt.io/projects/go/libravatar, the version Gitea pins (tests/clients/go/go.mod, Go module proxy),
  built once per session; Go's resolver is pointed at the loopback server by the program itself;
- npm gravatar (tests/clients/node/package-lock.json), installed with `npm ci` once.
A missing go, node or npm skips (under CI=true: fails, tests/conftest.py)."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from dnslib import QTYPE, RR, SRV
from dnslib.server import BaseResolver, DNSLogger, DNSServer

CLIENTS = Path(__file__).resolve().parents[1] / "clients"


class SrvZone(BaseResolver):
    """Answers SRV questions from a dict {name (lower-case, no trailing dot): (port, target)}; every
    other question gets NXDOMAIN. Names compare lower-cased: clients keep the e-mail domain's case."""

    def __init__(self, records):
        self.records = {k.lower(): v for k, v in records.items()}
        self.asked = []

    def resolve(self, request, handler):
        reply = request.reply()
        name = str(request.q.qname).rstrip(".").lower()
        self.asked.append((name, QTYPE[request.q.qtype]))
        record = self.records.get(name)
        if record and request.q.qtype == QTYPE.SRV:
            port, target = record
            reply.add_answer(RR(request.q.qname, QTYPE.SRV, ttl=60, rdata=SRV(0, 0, port, target + ".")))
        elif not record:
            reply.header.rcode = 3   # NXDOMAIN
        return reply


class LoopbackDns:
    def __init__(self, records):
        self.zone = SrvZone(records)
        self.server = DNSServer(self.zone, port=0, address="127.0.0.1", logger=DNSLogger(logf=lambda _: None))
        self.server.start_thread()
        self.port = self.server.server.server_address[1]

    def close(self):
        self.server.stop()


def _need(tool):
    path = shutil.which(tool)
    if not path:
        pytest.skip(f"{tool} is not installed: the client-library tests need it")
    return path


def go_libravatar(tmp_dir):
    """Builds tests/clients/go (the pinned library) into tmp_dir; returns the program's path."""
    go = _need("go")
    out = Path(tmp_dir) / "libravatar-url"
    env = {**os.environ, "GOFLAGS": "-mod=mod"}
    subprocess.run([go, "build", "-o", str(out), "."], cwd=CLIENTS / "go", env=env, check=True, timeout=600)
    return out


def npm_gravatar():
    """Installs tests/clients/node's locked packages when absent; returns the script's argv prefix."""
    node, npm = _need("node"), _need("npm")
    if not (CLIENTS / "node" / "node_modules" / "gravatar").is_dir():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=CLIENTS / "node", check=True, timeout=600)
    return [node, str(CLIENTS / "node" / "gravatar-url.js")]
