"""The end-to-end path every deployment runs (tests/stack/stacks.py: the loopback stack, or compose's,
Swarm's and Ansible's with AVATAR_STACK=external): the avatar URL's 302 to an image Nginx serves
with its caching (a keyed one's: its identity, SVG or PNG), every file of the set, port 80's 308,
HTTP/2, HTTP/3 and the key exchange groups (AVATAR_HTTP3, AVATAR_PQ: through Debian 13's clients,
trixie_client.py; the classic client is this machine's OpenSSL 3.0), and the fallback while the
sidecar is stopped. What the site does beyond that is tested once, on the loopback stack (tests/nginx)."""
import re
import shutil
import subprocess

import pytest

from stack.client import get, tls_context, tls_socket, wait_for_sidecar, while_stopped
from stack.headers import assert_header_set
from imageset.buckets import murmur2, variant_of
from stack.images import ACCEPT, assert_served_identity, assert_served_image, manifest, redirect_entry  # noqa: F401
from stack.trixie_client import TrixieClient, client_image

NEGOTIATED_GROUP = re.compile(r"^(?:Negotiated TLS1\.3 group|(?:Server|Peer) Temp Key): (\w+)", re.M)


def by_fallback(response):
    """Nginx's own 302 carries its small HTML page; the sidecar's has an empty body."""
    return b"<html>" in response.body


def test_the_avatar_url_redirects_to_a_random_fox_served_with_its_caching(stack, manifest):
    answers = [get(stack, "/") for _ in range(40)]
    for r in answers:
        assert r.status == 302 and not by_fallback(r), (r.status, r.body[:100])
        assert (r.header("Cache-Control"), r.header("Vary")) == ("no-store", "Accept")
        assert_header_set(stack, r, what="the 302")
    entries = {redirect_entry(stack, manifest, r) for r in answers}
    assert {(e.size, e.fmt) for e in entries} == {(manifest.default_size, "png")}
    assert len({e.fox for e in entries}) > 5, f"40 redirects, only foxes {sorted(e.fox for e in entries)}"
    for e in sorted(entries, key=lambda e: e.path)[:5]:
        image = get(stack, f"/{e.path}")
        assert_served_image(stack, manifest, e.path, image)
        assert_header_set(stack, image, what=e.path)


def test_a_keyed_avatar_is_its_identity_served_with_its_caching(stack, manifest):
    if not manifest.variants:
        pytest.skip("the stack serves a set without identities (own pictures)")
    key = "0bc83cb571cd1c50ba6f3e8a78ef1346"
    fox, v = manifest.keyed_fox(murmur2(key.encode())), variant_of(key.encode(), manifest.variants.count)
    for accept, size in [(ACCEPT["chromium"][0], None), ("*/*", 256)]:
        r = get(stack, f"/avatar/{key}?s=200", headers={"Accept": accept})
        assert r.status == 302 and not by_fallback(r), (r.status, r.body[:100])
        assert (r.header("Cache-Control"), r.header("Vary")) == (f"public, max-age={manifest.keyed_max_age}", "Accept")
        assert r.header("Location") == manifest.identity(fox, v, 200, size is None)
        assert_header_set(stack, assert_served_identity(stack, r.header("Location"), size), what="an identity")


def test_every_file_of_the_set_is_served_with_its_type_size_and_caching(stack, manifest):
    for path in manifest.paths():
        assert_served_image(stack, manifest, path, get(stack, f"/{path}"))


@pytest.mark.parametrize("path", ["/", "/?s=64&u=a%40b.example", "/avatar/0bc83cb571cd1c50ba6f3e8a78ef1346?s=80",
                                  "/Renard-1.png", "/any/path?q=1&r=%2F"])
def test_plain_http_redirects_permanently_to_https_same_host_path_and_port(stack, path):
    r = get(stack, path, https=False)
    assert r.status == 308, r.status
    port = "" if stack.redirect_port == 443 else f":{stack.redirect_port}"
    assert r.header("Location") == f"https://{stack.host}{port}{path}"
    assert_header_set(stack, r, https=False, what="port 80's 308")


def test_http2_is_negotiated(stack):
    with tls_socket(stack, tls_context(stack, alpn=["h2", "http/1.1"])) as s:
        assert s.selected_alpn_protocol() == "h2"


def expected(stack, what):
    if getattr(stack, what) is None:
        pytest.fail(f"AVATAR_{what.upper()} is not set: say whether the stack must serve it (1) or not (0)",
                    pytrace=False)
    return getattr(stack, what)


@pytest.fixture(scope="module")
def trixie(stack):
    return TrixieClient(stack, client_image())


def test_http3_serves_the_redirect_and_the_image_when_on_and_nothing_when_off(stack, trixie, manifest):
    redirect, status = trixie.curl("/?via=h3", "--http3-only")
    if expected(stack, "http3"):
        assert redirect.returncode == 0 and status == "3 302", (status, redirect.stderr)
        image, status = trixie.curl(f"/{manifest.paths()[0]}", "--http3-only")
        assert image.returncode == 0 and status == "3 200", (status, image.stderr)
    else:
        assert redirect.returncode != 0, f"HTTP/3 answered ({status}) on a stack that must not serve it"


def test_a_client_offering_ml_kem_gets_it_where_the_stack_has_it_else_x25519(stack, trixie):
    out, text = trixie.s_client("-groups", "X25519MLKEM768" if expected(stack, "pq") else "X25519MLKEM768:X25519")
    assert out.returncode == 0, text
    assert NEGOTIATED_GROUP.findall(text)[:1] == ["X25519MLKEM768" if stack.pq else "X25519"], text


def test_a_classic_openssl_3_0_client_connects_with_x25519(stack):
    if not shutil.which("openssl"):
        pytest.skip("openssl is not installed")
    out = subprocess.run(["openssl", "s_client", "-brief", "-connect", f"{stack.addr}:{stack.https_port}",
                          "-servername", stack.host, "-CAfile", stack.ca_file, "-verify_return_error"],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and NEGOTIATED_GROUP.findall(out.stdout + out.stderr)[:1] == ["X25519"], out


def test_the_fallback_answers_while_the_sidecar_is_stopped_and_it_takes_over_again(stack, manifest):
    """Keep last: it stops the Java service."""
    log_before = stack.fallback_log()
    stack.stop_app()
    try:
        (answers,) = while_stopped([lambda: get(stack, "/?while=stopped")] * 30)
        picks = []
        for r in answers:
            assert r.status == 302 and by_fallback(r), "a 302 while the sidecar is stopped must be Nginx's"
            assert r.header("Cache-Control") == "no-store"
            assert_header_set(stack, r, what="the fallback's 302")
            picks.append(redirect_entry(stack, manifest, r))
        assert len({e.fox for e in picks}) > 5, f"fallback not random: {sorted({e.fox for e in picks})}"
        for e in set(picks):
            assert get(stack, f"/{e.path}").status == 200
        if log_before is not None:   # every access log format has "fallback="
            assert stack.fallback_log()[len(log_before):].count("fallback=1") == 30
    finally:
        stack.start_app()
    wait_for_sidecar(stack)
    log_taken_over = stack.fallback_log()
    for _ in range(10):
        r = get(stack, "/?after=restart")
        assert r.status == 302 and not by_fallback(r)
    if log_before is not None:
        assert stack.fallback_log() == log_taken_over, "the sidecar answered: no new fallback line"
