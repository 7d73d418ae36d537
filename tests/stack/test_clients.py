"""Independent client libraries make the URLs (stack/avatar_clients.py): pylibravatar and Gitea's Go
library with federation through real SRV lookups on a loopback DNS server (and the Go library's fallback
host), npm gravatar with its cdn option. Each URL gets the checks of stack/gravatar.py from the stack."""
import json
import subprocess
from urllib.parse import urlsplit

import dns.resolver
import libravatar
import pytest

from stack.avatar_clients import LoopbackDns, go_libravatar, npm_gravatar
from stack.client import get
from stack.gravatar import check_avatar_url, md5
from stack.images import ACCEPT, manifest  # noqa: F401 (fixture)

FEDERATED = "federated.example"      # has the two SRV records of docs/integrations.md
UNFEDERATED = "elsewhere.example"    # has none: NXDOMAIN
EMAILS = [f"fox@{FEDERATED}", f" Renard.Roux@{FEDERATED.upper()} "]
CHROMIUM = ACCEPT["chromium"][0]


@pytest.fixture(scope="module")
def srv(stack):
    """_avatars-sec._tcp and _avatars._tcp of FEDERATED name the stack (its HTTPS and HTTP ports)."""
    server = LoopbackDns({
        f"_avatars-sec._tcp.{FEDERATED}": (stack.https_port, stack.host),
        f"_avatars._tcp.{FEDERATED}": (stack.http_port, stack.host),
    })
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def pylibravatar_dns(srv, monkeypatch):
    resolver = dns.resolver.Resolver(configure=False)
    resolver.nameservers = ["127.0.0.1"]
    resolver.port = srv.port
    monkeypatch.setattr(dns.resolver, "default_resolver", resolver)
    return srv



@pytest.mark.parametrize("size", [None, 1, 48, 80, 290, 512])
def test_pylibravatar_finds_the_stack_through_srv_over_https(stack, manifest, pylibravatar_dns, size):
    for email in EMAILS:
        url = libravatar.libravatar_url(email=email, https=True, size=size, default="404")
        parts = urlsplit(url)
        assert (parts.scheme, parts.hostname, parts.port or 443) == ("https", stack.host, stack.https_port), url
        check_avatar_url(stack, manifest, url, CHROMIUM, md5(email))
    assert (f"_avatars-sec._tcp.{FEDERATED}", "SRV") in pylibravatar_dns.zone.asked


def test_pylibravatar_over_plain_http_follows_the_308_to_https(stack, manifest, pylibravatar_dns):
    email = EMAILS[0]
    url = libravatar.libravatar_url(email=email, https=False, size=96)
    parts = urlsplit(url)
    assert (parts.scheme, parts.hostname, parts.port or 80) == ("http", stack.host, stack.http_port), url
    r = get(stack, f"{parts.path}?{parts.query}", https=False)
    assert r.status == 308, r.status
    port = "" if stack.redirect_port == 443 else f":{stack.redirect_port}"
    assert r.header("Location") == f"https://{stack.host}{port}{parts.path}?{parts.query}"
    check_avatar_url(stack, manifest, r.header("Location"), CHROMIUM, md5(email))


@pytest.fixture(scope="module")
def go_client(tmp_path_factory):
    return go_libravatar(tmp_path_factory.mktemp("go-libravatar"))


def go_url(go_client, srv, email, *flags):
    out = subprocess.run([str(go_client), "-dns", f"127.0.0.1:{srv.port}", *flags, email],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.parametrize("size", [0, 28, 56, 290, 512])
def test_gitea_libravatar_library_finds_the_stack_through_srv(stack, manifest, srv, go_client, size):
    for email in EMAILS:
        url = go_url(go_client, srv, email, "-size", str(size))
        parts = urlsplit(url)
        # With one SRV record the library keeps its target and drops its port (assumes 443): through
        # a 443 deployment that is the stack; elsewhere the path is checked against the stack.
        assert (parts.scheme, parts.hostname, parts.port) == ("https", stack.host, None), url
        check_avatar_url(stack, manifest, url, CHROMIUM, md5(email))


def test_gitea_libravatar_library_uses_the_fallback_host_without_srv(stack, manifest, srv, go_client):
    email = f"fox@{UNFEDERATED}"
    fallback = f"{stack.host}:{stack.https_port}"
    url = go_url(go_client, srv, email, "-fallback", fallback, "-size", "80")
    assert url.startswith(f"https://{fallback}/avatar/{md5(email)}"), url
    check_avatar_url(stack, manifest, url, CHROMIUM, md5(email))
    assert (f"_avatars-sec._tcp.{UNFEDERATED}", "SRV") in srv.zone.asked


@pytest.fixture(scope="module")
def npm_client():
    return npm_gravatar()


@pytest.mark.parametrize("options", [{}, {"s": "200", "d": "retro", "r": "pg"}, {"size": "48", "default": "404"},
                                     {"s": "580", "d": "identicon", "forcedefault": "y"}])
def test_npm_gravatar_with_its_cdn_option(stack, manifest, npm_client, options):
    cdn = stack.https_origin()
    for email in ["fox@example.org", " Renard.Roux@Example.COM "]:
        out = subprocess.run([*npm_client, cdn, email, json.dumps(options)], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        url = out.stdout.strip()
        assert url.startswith(f"{cdn}/avatar/{md5(email)}"), url
        for accept in (CHROMIUM, "*/*"):
            check_avatar_url(stack, manifest, url, accept, md5(email))
