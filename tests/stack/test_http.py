"""The shared HTTP assertions: run against any stack (tests/stack/stacks.py):
the loopback one started here, or compose/Ansible ones (AVATAR_STACK=external).
Every request names the stack's host; nothing is followed automatically."""
import re
import shutil
import ssl
import subprocess

import pytest

from stack.client import get, raw, request, tls_context, tls_socket, wait_for_sidecar, while_stopped
from stack.headers import assert_cors_headers
from stack.images import assert_served_image, manifest, redirect_entry  # noqa: F401 (fixture)


def by_fallback(response):
    """The sidecar's 302 has an empty body; Nginx's own (the fallback) carries
    its small HTML page."""
    return b"<html>" in response.body


def assert_security_headers(r, https=True):
    hsts = r.headers.get("strict-transport-security", [])
    if https:
        assert len(hsts) == 1, f"{r.status}: Strict-Transport-Security {hsts}"
        m = re.fullmatch(r"max-age=(\d+)(;.*)?", hsts[0])
        assert m and int(m.group(1)) >= 365 * 24 * 3600, hsts
    else:
        assert not hsts, "HSTS must not be sent over plain HTTP (RFC 6797 7.2)"
    assert r.headers.get("x-content-type-options") == ["nosniff"], f"{r.status}: {r.headers}"
    # Cross-origin use, on every answer (the full set per URL form: test_headers_and_methods.py).
    assert_cors_headers(r)


# --- the avatar URL -----------------------------------------------------------

def test_avatar_url_redirects_to_a_random_fox_at_the_default_size_as_png(stack, manifest):
    seen = []
    for _ in range(40):
        r = get(stack, "/")
        assert r.status == 302, r
        assert r.header("Cache-Control") == "no-store"
        assert r.header("Vary") == "Accept"
        assert not by_fallback(r), "the sidecar should be answering"
        e = redirect_entry(stack, manifest, r)
        assert (e.size, e.fmt) == (manifest.default_size, "png"), e
        seen.append(e.fox)
        assert_security_headers(r)
    assert len(set(seen)) > 5, f"40 redirects, only foxes {sorted(set(seen))}"


def test_each_redirect_lands_on_an_image_served_with_caching_headers(stack, manifest):
    targets = {redirect_entry(stack, manifest, get(stack, "/")).path for _ in range(30)}
    for path in sorted(targets):
        assert_served_image(stack, manifest, path, get(stack, f"/{path}"))


def test_every_file_of_the_manifest_is_served_with_its_type_size_and_caching(stack, manifest):
    for path in manifest.paths():
        assert_served_image(stack, manifest, path, get(stack, f"/{path}"))


@pytest.mark.parametrize("path", ["/?size=64", "/?a=1&b=%2e%2e%2f&c", "/?", "/?u=", "/?s=&size="])
def test_query_string_on_avatar_url_is_fine(stack, manifest, path):
    r = get(stack, path)
    assert r.status == 302 and r.header("Cache-Control") == "no-store"
    redirect_entry(stack, manifest, r)


def test_head_on_avatar_url_redirects_without_body(stack, manifest):
    r = request(stack, "HEAD", "/")
    assert r.status == 302 and r.body == b""
    redirect_entry(stack, manifest, r)


def test_other_methods_get_the_sidecars_405(stack):
    for method in ("POST", "PUT", "DELETE"):
        r = request(stack, method, "/", body=b"x" if method != "DELETE" else None)
        assert r.status == 405, (method, r.status)
        assert r.header("Allow") == "GET, HEAD"
        assert_security_headers(r)


# --- images -----------------------------------------------------------------------

def test_image_revalidation_with_etag_costs_a_304(stack, manifest):
    name = manifest.paths()[0]
    first = get(stack, f"/{name}")
    r = get(stack, f"/{name}", headers={"If-None-Match": first.header("ETag")})
    assert r.status == 304 and r.body == b""
    assert r.header("ETag") == first.header("ETag")
    assert r.header("Cache-Control") == first.header("Cache-Control")
    assert_security_headers(r)


def test_image_revalidation_with_last_modified_costs_a_304(stack, manifest):
    name = manifest.paths()[-1]
    first = get(stack, f"/{name}")
    r = get(stack, f"/{name}", headers={"If-Modified-Since": first.header("Last-Modified")})
    assert r.status == 304 and r.body == b""
    assert_security_headers(r)


def test_changed_etag_gets_the_full_image(stack, manifest):
    name = manifest.paths()[0]
    r = get(stack, f"/{name}", headers={"If-None-Match": '"not-the-etag"'})
    assert_served_image(stack, manifest, name, r)


@pytest.mark.parametrize("path", [
    "/Renard-999.png", "/nope.png", "/Renard-1.PNG", "/Renard-1.png.bak", "/Renard-1",
    "/.Renard-1.png", "/-x.png", "/images/Renard-1.png", "/Renard-1.png/", "/healthz",
    "/draw.py", "/draw.sh", "/contact-sheet.py", "/index.html", "/images/", "/.well-known/acme-challenge/x",
    "/manifest.tsv", "/a/", "/a", "/a/Renard-1-64.png", "/a/Renard-1-64.0000000000.gif", "/drawing/fox.py",
])
def test_unknown_paths_are_nginx_404_never_java(stack, path):
    r = get(stack, path)
    assert r.status == 404, (path, r.status)
    # Nginx's own error page (the sidecar's 404 has an empty body).
    assert b"<center>nginx</center>" in r.body, r.body
    assert r.header("Cache-Control") is None, "a 404 must not be cached as an image"
    assert_security_headers(r)


def test_a_content_addressed_name_the_set_does_not_serve_is_sent_on_into_the_set(stack, manifest):
    """An earlier set's file name (a cached keyed redirect may still name one; nginx/README.md,
    "After a set change"): Nginx's 302, never cached, to this set's file of that picture, size and format."""
    r = get(stack, "/a/Renard-1-64.0000000000.png")
    assert r.status == 302 and b"<center>nginx</center>" in r.body, (r.status, r.body)
    assert r.header("Cache-Control") == "no-store"
    assert "/" + redirect_entry(stack, manifest, r).path == manifest.answer(1, 64, "png")
    assert_security_headers(r)


# --- HTTP -> HTTPS -----------------------------------------------------------------

@pytest.mark.parametrize("path", ["/", "/Renard-1.png", "/some/path?q=1&r=%2F", "/?"])
def test_http_redirects_permanently_to_https_same_host_path_and_port(stack, path):
    r = get(stack, path, https=False)
    assert r.status == 308, r.status
    port = "" if stack.redirect_port == 443 else f":{stack.redirect_port}"
    assert r.header("Location") == f"https://{stack.host}{port}{path}"
    assert_security_headers(r, https=False)


def test_acme_challenge_path_is_served_not_redirected(stack):
    r = get(stack, "/.well-known/acme-challenge/no-such-token", https=False)
    assert r.status == 404, r.status


# --- TLS ----------------------------------------------------------------------------

def test_tls_1_1_is_refused(stack):
    # The client is willing (lowest security level, TLS 1.0-1.1 only); Nginx must say no.
    ctx = tls_context(stack, minimum=ssl.TLSVersion.TLSv1, maximum=ssl.TLSVersion.TLSv1_1,
                      ciphers="DEFAULT:@SECLEVEL=0")
    with pytest.raises(ssl.SSLError):
        tls_socket(stack, ctx).close()


@pytest.mark.parametrize("version", [ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3])
def test_tls_1_2_and_1_3_are_accepted(stack, version):
    with tls_socket(stack, tls_context(stack, minimum=version, maximum=version)) as s:
        assert s.version() == version.name.replace("v1_", "v1.")


def test_tls_1_2_uses_ecdhe_aead_ciphers_only(stack):
    ctx = tls_context(stack, maximum=ssl.TLSVersion.TLSv1_2)
    with tls_socket(stack, ctx) as s:
        name = s.cipher()[0]
    assert re.match(r"ECDHE-(ECDSA|RSA)-(AES\d+-GCM|CHACHA20-POLY1305)", name), name
    weak = tls_context(stack, maximum=ssl.TLSVersion.TLSv1_2,
                       ciphers="ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA:AES128-SHA:AES128-GCM-SHA256")
    with pytest.raises(ssl.SSLError):
        tls_socket(stack, weak).close()


def test_http2_is_negotiated_via_alpn(stack):
    with tls_socket(stack, tls_context(stack, alpn=["h2", "http/1.1"])) as s:
        assert s.selected_alpn_protocol() == "h2"


def test_http2_request_gets_the_redirect(stack):
    curl = shutil.which("curl")
    if not curl:
        pytest.skip("curl is not installed")
    out = subprocess.run(
        [curl, "-sS", "--http2", "--cacert", stack.ca_file, "-o", "/dev/null",
         "--resolve", f"{stack.host}:{stack.https_port}:{stack.addr}",
         "-w", "%{http_version} %{http_code} %{redirect_url}", f"{stack.https_origin()}/?via=h2"],
        capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    version, code, _ = out.stdout.split(" ", 2)
    assert (version, code) == ("2", "302"), out.stdout


# --- headers on everything ------------------------------------------------------

def test_hsts_nosniff_and_cors_on_every_https_response(stack, manifest):
    name = manifest.paths()[0]
    etag = get(stack, f"/{name}").header("ETag")
    responses = {
        302: get(stack, "/"),
        200: get(stack, f"/{name}"),
        304: get(stack, f"/{name}", headers={"If-None-Match": etag}),
        404: get(stack, "/missing.png"),
        405: request(stack, "POST", "/", body=b""),
        400: raw(stack, b"GET /%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
    }
    for status, r in responses.items():
        assert r.status == status, (status, r.status)
        assert_security_headers(r)


def test_server_version_is_not_disclosed(stack):
    for r in (get(stack, "/"), get(stack, "/missing.png"), get(stack, "/", https=False)):
        assert r.header("Server") in (None, "nginx"), r.header("Server")
        assert not re.search(rb"nginx/\d", r.body)


# --- traversal ------------------------------------------------------------------------

TRAVERSALS = [
    b"/../../../../etc/passwd",
    b"/..%2f..%2f..%2fetc%2fpasswd",
    b"/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    b"/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    b"/%252e%252e/%252e%252e/etc/passwd",
    b"/Renard-1.png/..",
    b"/Renard-1.png/../../etc/passwd",
    b"/Renard-1.png%2f..%2f..%2fetc%2fpasswd",
    b"/..\\..\\..\\etc\\passwd",
    b"/%5c..%5c..%5cetc%5cpasswd",
    b"/Renard-1.png%00.txt",
    b"/Renard-1.png%00",
    b"/Renard-1.png\x00",
    b"/Renard-1.png%0a",
    b"//etc/passwd",
    b"/./../etc/passwd.png",
    b"/..png",
    b"/../nginx/fox-avatar/tls.conf",
    b"/..%2fapp%2fjvm.options",
    b"/..%2fREADME.md",
    b"/a/../manifest.tsv",
    b"/a/..%2fmanifest.tsv",
    b"/a/%2e%2e/Renard-1.png",
    b"http://evil/../../etc/passwd",
    b"http://evil/%2e%2e/%2e%2e/etc/passwd",
    b"https://evil/../Renard-1.png",
    b"*",
]


@pytest.mark.parametrize("https", [True, False], ids=["https", "http"])
@pytest.mark.parametrize("target", TRAVERSALS, ids=lambda t: t.decode("latin-1").encode("unicode_escape").decode())
def test_traversal_attempts_never_escape_the_images_root(stack, manifest, target, https):
    r = raw(stack, b"GET " + target + b" HTTP/1.1\r\nHost: " + stack.host.encode()
            + b"\r\nConnection: close\r\n\r\n", https=https)
    assert r.status != 0, "no HTTP response"
    assert r.status < 500, r.status
    assert b"root:" not in r.body and b"ssl_" not in r.body and b"-Xmx" not in r.body
    if r.status == 200:   # only ever a real image, byte for byte
        assert any(r.body == (stack.images_dir / n).read_bytes() for n in manifest.paths()), r.body[:200]
    if https:
        assert r.status in (200, 302, 400, 404, 405), r.status
        assert_security_headers(r)
    else:
        assert r.status in (308, 400, 404), r.status


# --- the fallback (keep last: it stops the Java service) ---------------------------

def test_fallback_answers_while_the_sidecar_is_stopped_and_it_takes_over_again(stack, manifest):
    log_before = stack.fallback_log()
    stack.stop_app()
    try:
        picks = []
        (answers,) = while_stopped([lambda: get(stack, "/?while=stopped")] * 30)
        for r in answers:
            assert r.status == 302, r.status
            assert by_fallback(r), "a 302 while the sidecar is stopped must be Nginx's"
            assert r.header("Cache-Control") == "no-store"
            assert_security_headers(r)
            picks.append(redirect_entry(stack, manifest, r))
        assert len({e.fox for e in picks}) > 5, f"fallback not random: {sorted({e.fox for e in picks})}"
        for e in set(picks):
            assert get(stack, f"/{e.path}").status == 200
        log_during = stack.fallback_log()
        if log_before is not None:
            new = log_during[len(log_before):]
            # Counted by "fallback=1", which every access log format has (the default one keeps
            # no query).
            assert new.count("fallback=1") == 30, new
    finally:
        stack.start_app()
    wait_for_sidecar(stack)
    log_taken_over = stack.fallback_log()
    for _ in range(10):
        r = get(stack, "/?after=restart")
        assert r.status == 302 and not by_fallback(r)
        redirect_entry(stack, manifest, r)
    if log_before is not None:
        assert stack.fallback_log() == log_taken_over, "the sidecar answered: no new fallback line"
