"""The Gravatar/Libravatar URL as real client libraries make it (docs/integrations.md), against the
loopback stack: pylibravatar and Gitea's Go library (the version Gitea pins, tests/clients/go) finding
the stack through SRV records on a loopback DNS server, the Go library's fallback host, and npm
gravatar (tests/clients/node) with its cdn option. Every URL must get a 302 to an image Nginx serves,
in a format its Accept names (PNG aside), the asked size snapped up (up to the picture's largest),
and the fox of /?u=<hash>. A missing go, node or npm skips (under CI=true: fails)."""
import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import dns.resolver
import libravatar
import pytest
from dnslib import QTYPE, RR, SRV
from dnslib.server import BaseResolver, DNSLogger, DNSServer

from stack.client import get
from stack.images import ACCEPT, assert_served_image, manifest, redirect_entry  # noqa: F401 (fixture)

CLIENTS = Path(__file__).resolve().parents[1] / "clients"
FEDERATED = "federated.example"      # has the two SRV records of docs/integrations.md
UNFEDERATED = "elsewhere.example"    # has none: NXDOMAIN
EMAILS = [f"fox@{FEDERATED}", f" Renard.Roux@{FEDERATED.upper()} "]
CHROMIUM = ACCEPT["chromium"][0]


def md5(email):
    return hashlib.md5(email.strip().lower().encode()).hexdigest()


def sha256(email):
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


def accepts(accept, fmt, manifest):
    """Does this Accept name the format (PNG is every client's fallback)?"""
    media = {f.ext: f.media_type for f in manifest.formats}[fmt]
    return fmt == "png" or bool(re.search(rf"(^|,)\s*{re.escape(media)}\s*(,|;(?!\s*q=0(\.0*)?\s*(,|$))|$)",
                                          accept or ""))


def asked_size(query):
    """Gravatar's rule: s, else size; 1..2048; else 80."""
    args = dict((k.lower(), v) for k, v in reversed(parse_qsl(query, keep_blank_values=True)))
    value = args.get("s") or args.get("size") or ""
    return int(value) if value.isdigit() and 1 <= int(value) <= 2048 else 80


def check_avatar_url(stack, manifest, url, accept, hash_):
    parts = urlsplit(url)
    assert parts.path.startswith("/avatar/"), url
    headers = {"Accept": accept} if accept else {}
    r = get(stack, parts.path + ("?" + parts.query if parts.query else ""), headers=headers)
    assert r.status == 302 and r.header("Vary") == "Accept", (url, r.status)
    assert r.header("Cache-Control") == f"public, max-age={manifest.keyed_max_age}", url
    e = redirect_entry(stack, manifest, r)
    assert_served_image(stack, manifest, e.path, get(stack, "/" + e.path))
    assert accepts(accept, e.fmt, manifest), (url, accept, e.fmt)
    want = min(asked_size(parts.query), manifest.largest(e.fox))
    assert e.size == min(s for s in manifest.sizes if s >= want), (url, e.size, want)
    assert e.fox == redirect_entry(stack, manifest, get(stack, f"/?u={hash_}", headers=headers)).fox, url


class SrvZone(BaseResolver):
    """SRV answers from {name: (port, target)} (names compared lower-cased: clients keep the
    e-mail domain's case); NXDOMAIN for every other name."""

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
            reply.header.rcode = 3
        return reply


@pytest.fixture(scope="module")
def srv(stack):
    """_avatars-sec._tcp and _avatars._tcp of FEDERATED name the stack (its HTTPS and HTTP ports)."""
    zone = SrvZone({f"_avatars-sec._tcp.{FEDERATED}": (stack.https_port, stack.host),
                    f"_avatars._tcp.{FEDERATED}": (stack.http_port, stack.host)})
    server = DNSServer(zone, port=0, address="127.0.0.1", logger=DNSLogger(logf=lambda _: None))
    server.start_thread()
    server.zone, server.port = zone, server.server.server_address[1]
    yield server
    server.stop()


@pytest.fixture
def pylibravatar_dns(srv, monkeypatch):
    resolver = dns.resolver.Resolver(configure=False)
    resolver.nameservers, resolver.port = ["127.0.0.1"], srv.port
    monkeypatch.setattr(dns.resolver, "default_resolver", resolver)
    return srv


def need(tool):
    path = shutil.which(tool)
    if not path:
        pytest.skip(f"{tool} is not installed: the client-library tests need it")
    return path


@pytest.mark.parametrize("size", [None, 1, 80, 290])
def test_pylibravatar_finds_the_stack_through_srv_over_https(stack, manifest, pylibravatar_dns, size):
    for email in EMAILS:
        url = libravatar.libravatar_url(email=email, https=True, size=size, default="404")
        parts = urlsplit(url)
        assert (parts.scheme, parts.hostname, parts.port or 443) == ("https", stack.host, stack.https_port), url
        check_avatar_url(stack, manifest, url, CHROMIUM, md5(email))
    assert (f"_avatars-sec._tcp.{FEDERATED}", "SRV") in pylibravatar_dns.zone.asked


def test_pylibravatar_over_plain_http_follows_the_308_to_https(stack, manifest, pylibravatar_dns):
    url = libravatar.libravatar_url(email=EMAILS[0], https=False, size=96)
    parts = urlsplit(url)
    assert (parts.scheme, parts.hostname, parts.port or 80) == ("http", stack.host, stack.http_port), url
    r = get(stack, f"{parts.path}?{parts.query}", https=False)
    assert r.status == 308, r.status
    check_avatar_url(stack, manifest, r.header("Location"), CHROMIUM, md5(EMAILS[0]))


def test_an_md5_and_a_sha256_of_one_address_are_two_keys_each_the_fox_of_its_u(stack, manifest):
    for h in (md5(EMAILS[0]), sha256(EMAILS[0])):
        check_avatar_url(stack, manifest, f"/avatar/{h}?s=64", CHROMIUM, h)


@pytest.fixture(scope="module")
def go_client(tmp_path_factory):
    """tests/clients/go (the pinned library) built once."""
    out = tmp_path_factory.mktemp("go-libravatar") / "libravatar-url"
    subprocess.run([need("go"), "build", "-o", str(out), "."], cwd=CLIENTS / "go",
                   env={**os.environ, "GOFLAGS": "-mod=mod"}, check=True, timeout=600)
    return out


def go_url(go_client, srv, email, *flags):
    out = subprocess.run([str(go_client), "-dns", f"127.0.0.1:{srv.port}", *flags, email],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.parametrize("size", [0, 28, 512])
def test_gitea_libravatar_library_finds_the_stack_through_srv(stack, manifest, srv, go_client, size):
    for email in EMAILS:
        url = go_url(go_client, srv, email, "-size", str(size))
        # With one SRV record the library keeps its target and drops its port (assumes 443): the
        # path is checked against the stack.
        assert urlsplit(url)[:2] == ("https", stack.host) and urlsplit(url).port is None, url
        check_avatar_url(stack, manifest, url, CHROMIUM, md5(email))


def test_gitea_libravatar_library_uses_the_fallback_host_without_srv(stack, manifest, srv, go_client):
    email, fallback = f"fox@{UNFEDERATED}", f"{stack.host}:{stack.https_port}"
    url = go_url(go_client, srv, email, "-fallback", fallback, "-size", "80")
    assert url.startswith(f"https://{fallback}/avatar/{md5(email)}"), url
    check_avatar_url(stack, manifest, url, CHROMIUM, md5(email))
    assert (f"_avatars-sec._tcp.{UNFEDERATED}", "SRV") in srv.zone.asked


@pytest.fixture(scope="module")
def npm_client():
    node, npm = need("node"), need("npm")
    if not (CLIENTS / "node" / "node_modules" / "gravatar").is_dir():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=CLIENTS / "node", check=True, timeout=600)
    return [node, str(CLIENTS / "node" / "gravatar-url.js")]


@pytest.mark.parametrize("options", [{}, {"size": "48", "default": "404"},
                                     {"s": "580", "d": "identicon", "forcedefault": "y"}])
def test_npm_gravatar_with_its_cdn_option(stack, manifest, npm_client, options):
    cdn = stack.https_origin()
    for email in ["fox@example.org", " Renard.Roux@Example.COM "]:
        out = subprocess.run([*npm_client, cdn, email, json.dumps(options)], capture_output=True, text=True,
                             timeout=60)
        assert out.returncode == 0, out.stderr
        url = out.stdout.strip()
        assert url.startswith(f"{cdn}/avatar/{md5(email)}"), url
        for accept in (CHROMIUM, "*/*", None):
            check_avatar_url(stack, manifest, url, accept, md5(email))
