"""The Gravatar/Libravatar clients docs/integrations.md names, against any stack: Discourse's server-side
download (d=404, Ruby's Accept), Gitea's d=identicon in a browser, and Libravatar's federation, where
pylibravatar finds the stack through SRV records on a DNS server of the test's own. With Gravatar's
defaults off (every deployment's default), each gets the key's identity, a file it can store."""
import hashlib
from urllib.parse import urlsplit

import dns.resolver
import libravatar
import pytest
from dnslib import QTYPE, RR, SRV
from dnslib.server import BaseResolver, DNSLogger, DNSServer

from imageset.buckets import murmur2, variant_of
from stack.client import get
from stack.images import ACCEPT, assert_served_identity, manifest  # noqa: F401 (fixture)

EMAIL = " Renard.Roux@Federated.Example "      # as typed: clients trim and lower-case it
FEDERATED = "federated.example"


def md5(email):
    return hashlib.md5(email.strip().lower().encode()).hexdigest()


def identity(manifest, key, size, svg):
    if not manifest.variants:
        pytest.skip("the stack serves a set without identities (own pictures)")
    key = key.encode()
    return manifest.identity(manifest.keyed_fox(murmur2(key)), variant_of(key, manifest.variants.count), size, svg)


def fetch(stack, url, accept):
    """The 302 a client gets for its URL (on the stack, whatever host the URL names), and the file it names."""
    parts = urlsplit(url)
    r = get(stack, f"{parts.path}?{parts.query}", headers={"Accept": accept})
    assert r.status == 302, (url, r.status)
    return r.header("Location")


def test_discourses_download_with_d_404_gets_a_png_it_can_store_at_least_the_size_it_asked(stack, manifest):
    """Discourse stores what it downloads at 360 px: a smaller picture would stay blurred for good."""
    location = fetch(stack, f"/avatar/{md5(EMAIL)}.png?s=360&d=404&reset_cache=Vx2kQ_8", "*/*")
    assert location == identity(manifest, md5(EMAIL), 360, False)
    assert_served_identity(stack, location, 512)


def test_giteas_d_identicon_gets_the_identity_in_a_browser(stack, manifest):
    for size in (28, 290):
        location = fetch(stack, f"/avatar/{md5(EMAIL)}?d=identicon&s={size}", ACCEPT["chromium"][0])
        assert location == identity(manifest, md5(EMAIL), size, True)
    assert_served_identity(stack, location)


class SrvZone(BaseResolver):
    """FEDERATED's _avatars-sec._tcp record names the stack's HTTPS port; every other name is NXDOMAIN.
    Names compare lower-cased: clients keep the e-mail domain's case."""

    def __init__(self, stack):
        self.record, self.asked = (f"_avatars-sec._tcp.{FEDERATED}", stack.https_port, stack.host), []

    def resolve(self, request, handler):
        reply, name = request.reply(), str(request.q.qname).rstrip(".").lower()
        self.asked.append(name)
        if name == self.record[0] and request.q.qtype == QTYPE.SRV:
            reply.add_answer(RR(request.q.qname, QTYPE.SRV, ttl=60, rdata=SRV(0, 0, self.record[1], self.record[2] + ".")))
        elif name != self.record[0]:
            reply.header.rcode = 3
        return reply


@pytest.fixture
def srv(stack, monkeypatch):
    zone = SrvZone(stack)
    server = DNSServer(zone, port=0, address="127.0.0.1", logger=DNSLogger(logf=lambda _: None))
    server.start_thread()
    resolver = dns.resolver.Resolver(configure=False)
    resolver.nameservers, resolver.port = ["127.0.0.1"], server.server.server_address[1]
    monkeypatch.setattr(dns.resolver, "default_resolver", resolver)
    try:
        yield zone
    finally:
        server.stop()


def test_libravatars_srv_lookup_finds_the_stack_and_gets_the_identity(stack, manifest, srv):
    url = libravatar.libravatar_url(email=EMAIL, https=True, size=80, default="404")
    parts = urlsplit(url)
    assert (parts.scheme, parts.hostname, parts.port or 443) == ("https", stack.host, stack.https_port), url
    assert f"_avatars-sec._tcp.{FEDERATED}" in srv.asked
    location = fetch(stack, url, ACCEPT["firefox"][0])
    assert location == identity(manifest, md5(EMAIL), 80, True)
    assert_served_identity(stack, location)
