"""Behind the owner's proxy (docs/behind-a-proxy.md), on a real Nginx. avatar_tls false: plain HTTP
on avatar_http_port with the same 302s, images, caching, cross-origin headers and fallback, and no
HSTS, no Alt-Svc, nothing on a TLS port. avatar_real_ip_from: only those peers name the client, so
the (default, anonymous) log keeps the visitor's network; anyone else's X-Forwarded-For changes nothing."""
import re
import socket

import pytest

from stack.client import get, parse_response, wait_for_fallback, wait_for_sidecar
from stack.headers import assert_header_set
from stack.stacks import LoopbackStack

PROXY = "127.0.0.1"          # the trusted proxy (avatar_real_ip_from)
STRANGER = "127.0.5.23"      # another client, on another /24: its forwarded header is not believed
VISITOR = "198.51.100.77"    # the visitor the proxy names
FORGED = "203.0.113.77"      # what the stranger claims to be


@pytest.fixture(scope="module")
def proxied():
    s = LoopbackStack(access_log_mode=None, extra_variables={
        "avatar_tls": False, "avatar_real_ip_from": [f"{PROXY}/32"]})
    try:
        yield s
    finally:
        s.close()


def from_stranger(stack, path, forwarded):
    """A plain-HTTP request from STRANGER's own source address."""
    with socket.socket() as sock:
        sock.bind((STRANGER, 0))
        sock.settimeout(10)
        sock.connect((stack.addr, stack.http_port))
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {stack.host}\r\nX-Forwarded-For: {forwarded}\r\n"
                     "Connection: close\r\n\r\n".encode())
        return parse_response(b"".join(iter(lambda: sock.recv(65536), b"")))


def via_proxy(stack, path, forwarded=VISITOR):
    """A request from the proxy (127.0.0.1), naming the visitor as proxies do."""
    headers = {"X-Forwarded-For": forwarded, "X-Forwarded-Proto": "https"} if forwarded else {}
    return get(stack, path, https=False, headers=headers)


def test_the_avatar_url_and_its_image_answer_over_plain_http_without_hsts_or_alt_svc(proxied):
    r = via_proxy(proxied, "/?s=64&u=someone")
    assert r.status == 302 and b"<html>" not in r.body, (r.status, r.body[:200])
    location = r.header("Location")
    assert re.fullmatch(r"/i/[0-9a-f]+/Renard-\d+-v\d+-64\.png", location), location
    assert (r.header("Cache-Control"), r.header("Vary")) == ("public, max-age=3600", "Accept")
    assert_header_set(proxied, r, https=False, what="the sidecar's 302")
    image = via_proxy(proxied, location)
    assert image.status == 200 and image.header("Cache-Control") == "public, max-age=31536000, immutable"
    assert image.body == (proxied.images_dir / location.lstrip("/")).read_bytes()   # the identity's PNG
    assert_header_set(proxied, image, https=False, what="the image")
    assert_header_set(proxied, via_proxy(proxied, "/nothing-here"), https=False, what="a 404")
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((proxied.addr, proxied.https_port), 2).close()


def test_the_fallback_answers_over_plain_http_with_the_same_headers(proxied):
    proxied.stop_app()
    try:
        wait_for_fallback(proxied, https=False)
        r = via_proxy(proxied, "/?s=64")
        assert r.status == 302 and b"<html>" in r.body and r.header("Cache-Control") == "no-store"
        assert_header_set(proxied, r, https=False, what="the fallback's 302")
        r = via_proxy(proxied, "/?s=64&u=someone")
        assert (r.status, r.header("Retry-After")) == (503, "10")
        assert_header_set(proxied, r, https=False, what="the fallback's 503")
    finally:
        proxied.start_app()
    wait_for_sidecar(proxied, https=False)


def clients_logged(stack, call):
    before = stack.access_log()
    call()
    return [line.split(" ")[0] for line in stack.access_log()[len(before):].splitlines()]


def test_only_the_trusted_proxy_names_the_client_in_the_log(proxied):
    assert clients_logged(proxied, lambda: via_proxy(proxied, "/?s=64")) == ["198.51.100.0"]
    # A chain: the client is the last address the trusted proxy did not add itself.
    assert clients_logged(proxied, lambda: via_proxy(proxied, "/?s=64", f"{FORGED}, {VISITOR}")) == ["198.51.100.0"]
    # Anyone else: its header is ignored, its own network is logged.
    assert clients_logged(proxied, lambda: from_stranger(proxied, "/?s=64", FORGED)) == ["127.0.5.0"]
    # The proxy's own requests without the header are the proxy's.
    assert clients_logged(proxied, lambda: via_proxy(proxied, "/?s=64", None)) == ["127.0.0.0"]
    text = proxied.access_log()
    assert "203.0.113" not in text and VISITOR not in text, "never the forged network, never a full address"
