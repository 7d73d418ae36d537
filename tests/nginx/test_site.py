"""What the site does around the sidecar, on the loopback stack: every answer's headers, revalidation,
the identities' files, Nginx's 404 outside the set (never Java's, never a file outside the root), an
earlier set's and an earlier drawing's names, ACME, the hop to the sidecar and its keep-alive pool,
the buffered access log, testssl's audit."""
import gzip
import re
import socket
import threading
from pathlib import Path

from settle import until
from stack.client import get, raw, request, tls_socket
from stack.headers import assert_header_set
from stack.images import ACCEPT, manifest, redirect_entry  # noqa: F401 (fixture)
from stack.tls_audit import assert_no_weak_tls, run_testssl

HASH = "0bc83cb571cd1c50ba6f3e8a78ef1346"


def access_lines(stack, marker):
    return [line for line in stack.access_log().splitlines() if marker in line]


def test_every_kind_of_answer_carries_the_header_set_once(loopback, manifest):
    name = manifest.paths()[0]
    first = get(loopback, f"/{name}")
    etag, last_modified = first.header("ETag"), first.header("Last-Modified")
    answers = {
        "the sidecar's 302": (get(loopback, "/"), 302),
        "an image": (get(loopback, f"/{name}"), 200),
        "a revalidation": (get(loopback, f"/{name}", headers={"If-None-Match": etag}), 304),
        "a revalidation by date": (get(loopback, f"/{name}", headers={"If-Modified-Since": last_modified}), 304),
        "an unknown path": (get(loopback, "/missing.png"), 404),
        "the sidecar's 405": (request(loopback, "POST", "/", body=b""), 405),
        "a bad escape": (raw(loopback, b"GET /avatar/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 400),
        "an earlier set's name": (get(loopback, "/a/Renard-1-64.0000000000.png"), 302),
    }
    for what, (r, status) in answers.items():
        assert r.status == status, (what, r.status)
        assert_header_set(loopback, r, what=what)
        assert r.header("Server") in (None, "nginx") and not re.search(rb"nginx/\d", r.body), what
    # an earlier set's name: sent on, never cached, to this set's file of that picture, size and format
    retired = answers["an earlier set's name"][0]
    assert retired.header("Cache-Control") == "no-store"
    assert "/" + redirect_entry(loopback, manifest, retired).path == manifest.answer(1, 64, "png")


def test_an_identity_is_served_gzipped_or_not_and_an_earlier_drawings_name_or_a_retired_one_is_sent_on(loopback, manifest):
    d = manifest.variants.directory
    stored = (loopback.images_dir / d / "Renard-1-v0.svg.gz").read_bytes()
    zipped, plain = get(loopback, f"/{d}/Renard-1-v0.svg", headers={"Accept-Encoding": "gzip"}), get(loopback, f"/{d}/Renard-1-v0.svg")
    assert (zipped.body, zipped.header("Content-Encoding")) == (stored, "gzip")
    assert (plain.body, plain.header("Content-Encoding")) == (gzip.decompress(stored), None)
    png = get(loopback, f"/{d}/Renard-1-v0-64.png", headers={"Accept-Encoding": "gzip"})
    assert (png.body, png.header("Vary")) == ((loopback.images_dir / d / "Renard-1-v0-64.png").read_bytes(), None)
    for r in (zipped, plain):
        assert (r.header("Content-Type"), r.header("Vary")) == ("image/svg+xml", "Accept-Encoding")
    for r in (zipped, plain, png):
        assert r.status == 200 and r.header("Cache-Control") == "public, max-age=31536000, immutable"
        assert r.header("Content-Security-Policy") == "default-src 'none'"    # an SVG opened on its own
        assert_header_set(loopback, r, what="an identity")
    earlier = get(loopback, "/i/0123456789/Renard-1-v0-64.png")
    assert (earlier.status, earlier.header("Location"), earlier.header("Cache-Control")) == (302, f"/{d}/Renard-1-v0-64.png", "no-store")
    assert_header_set(loopback, earlier, what="an earlier drawing's name")
    # an identity this drawing does not have (a picture or a size the set no longer has): a picture of the set
    for path, accept, fox, size, fmt in [(f"/{d}/Renard-99-v0.svg", ACCEPT["chromium"][0], None, manifest.default_size, "png"),
                                         (f"/{d}/Renard-2-v{manifest.variants.count}-64.png", "*/*", 2, 64, "png"),
                                         ("/i/0123456789/Renard-1-v0-96.png", "*/*", 1, 96, "png")]:
        r = get(loopback, path, headers={"Accept": accept})
        assert (r.status, r.header("Cache-Control")) == (302, "no-store"), (path, r.status)
        assert_header_set(loopback, r, what="an identity the drawing does not have")
        e = redirect_entry(loopback, manifest, r)
        assert "/" + e.path == manifest.answer(fox or e.fox, size, fmt), (path, e)
    for path in ["/i/", f"/{d}/", f"/{d}/Renard-1-v0.svg.gz", f"/{d}/manifest.tsv", "/i/0123456789/",
                 f"/{d}/Renard-1-v0.png", f"/{d}/Renard-1.svg"]:
        assert get(loopback, path).status == 404, path


UNKNOWN = ["/Renard-999.png", "/Renard-1.PNG", "/Renard-1.png.bak", "/.Renard-1.png", "/images/Renard-1.png",
           "/Renard-1.png/", "/healthz", "/metrics", "/stub_status", "/draw.py", "/index.html", "/images/",
           "/.well-known/acme-challenge/x", "/manifest.tsv", "/a/", "/a", "/a/Renard-1-64.png",
           "/a/Renard-1-64.0000000000.gif", "/drawing/fox.py"]


def test_only_the_avatar_url_reaches_the_sidecar_and_anything_outside_the_set_is_nginxs_404(loopback):
    for path in UNKNOWN:
        r = get(loopback, f"{path}?x=outside")
        assert r.status == 404 and b"<center>nginx</center>" in r.body, (path, r.status, r.body[:100])
        assert r.header("Cache-Control") is None, f"{path}: a 404 must not be cached"
    for path in ["/Renard-1.png", "/", f"/avatar/{HASH}.png", "/avatar/junk"]:
        assert get(loopback, f"{path}?x=inside").status in (200, 302)
    outside = until(lambda: len(lines := access_lines(loopback, "x=outside")) == len(UNKNOWN) and lines, "logged")
    assert all('ua="-"' in line for line in outside), outside
    inside = until(lambda: len(lines := access_lines(loopback, "x=inside")) == 4 and lines, "logged")
    assert ['ua="-"' in line for line in inside] == [True, False, False, False], inside
    assert all(f'ua="127.0.0.1:{loopback.app_port}" us="302"' in line for line in inside[1:]), inside


TRAVERSALS = [b"/../../../../etc/passwd", b"/..%2f..%2f..%2fetc%2fpasswd", b"/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
              b"/%252e%252e/%252e%252e/etc/passwd", b"/Renard-1.png/..", b"/Renard-1.png/../../etc/passwd",
              b"/Renard-1.png%2f..%2f..%2fetc%2fpasswd", b"/..\\..\\..\\etc\\passwd", b"/%5c..%5c..%5cetc%5cpasswd",
              b"/Renard-1.png%00.txt", b"/Renard-1.png\x00", b"/Renard-1.png%0a", b"//etc/passwd",
              b"/./../etc/passwd.png", b"/../nginx/fox-avatar/tls.conf", b"/..%2fapp%2fjvm.options",
              b"/a/../manifest.tsv", b"/a/..%2fmanifest.tsv", b"/a/%2e%2e/Renard-1.png",
              b"http://evil/../../etc/passwd", b"https://evil/../Renard-1.png", b"*"]


def test_no_request_reads_a_file_outside_the_set(loopback, manifest):
    served = {(loopback.images_dir / p).read_bytes() for p in manifest.paths()}
    for target in TRAVERSALS:
        r = raw(loopback, b"GET " + target + b" HTTP/1.1\r\nHost: " + loopback.host.encode()
                + b"\r\nConnection: close\r\n\r\n")
        assert r.status in (200, 302, 400, 404), (target, r.status)
        assert b"root:" not in r.body and b"ssl_" not in r.body and b"-Xmx" not in r.body, target
        assert r.status != 200 or r.body in served, target


def test_port_80_serves_the_acme_webroots_files(loopback):
    directory = loopback.acme_webroot / ".well-known" / "acme-challenge"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "tok-en_123").write_text("tok-en_123.thumbprint")
    r = get(loopback, "/.well-known/acme-challenge/tok-en_123", https=False)
    assert (r.status, r.body, r.header("Content-Type")) == (200, b"tok-en_123.thumbprint", "text/plain")


def requests_the_sidecar_gets(stack, paths, headers):
    """The request heads arriving on the sidecar's port for GETs through Nginx: the sidecar stopped,
    a listener of the test's in its place recording each head and answering 302."""
    heads = []
    stack.stop_app()
    try:
        with socket.create_server(("127.0.0.1", stack.app_port)) as server:
            server.settimeout(5)

            def answer():
                conn, _ = server.accept()
                with conn:
                    data = b""
                    while b"\r\n\r\n" not in data:
                        data += conn.recv(4096)
                    heads.append(data.split(b"\r\n\r\n")[0].decode("latin-1"))
                    conn.sendall(b"HTTP/1.1 302 Found\r\nLocation: /a/x.png\r\nContent-Length: 0\r\n"
                                 b"Connection: close\r\n\r\n")
            for path in paths:
                t = threading.Thread(target=answer)
                t.start()
                assert get(stack, path, headers=headers).status == 302
                t.join(10)
    finally:
        stack.start_app()
    return heads


def test_the_sidecar_gets_the_method_path_query_and_accept_and_nothing_else(loopback):
    browser = {"Accept": "image/avif,image/webp,*/*", "Referer": "https://blog.example/post",
               "User-Agent": "Mozilla/5.0 hop-check", "Cookie": "session=1", "Accept-Language": "fr",
               "X-Forwarded-For": "198.51.100.7", "Cache-Control": "no-cache"}
    heads = requests_the_sidecar_gets(loopback, ["/?s=64&u=k", f"/avatar/{HASH}.png?s=80"], browser)
    assert [head.splitlines()[0] for head in heads] == ["GET /?s=64&u=k HTTP/1.1", f"GET /avatar/{HASH}?s=80 HTTP/1.1"]
    for head in heads:
        assert sorted(head.splitlines()[1:]) == [f"Accept: {browser['Accept']}", "Host: avatar_app"], head
    (head,) = requests_the_sidecar_gets(loopback, ["/"], {"User-Agent": "hop-check"})
    assert head.splitlines()[1:] == ["Host: avatar_app"], head


def test_connections_to_the_sidecar_are_kept_alive(loopback):
    for _ in range(20):
        assert get(loopback, "/").status == 302
    port = f"{loopback.app_port:04X}"
    established = [line for line in Path("/proc/net/tcp").read_text().splitlines()[1:]
                   if line.split()[2].endswith(":" + port) and line.split()[3] == "01"]
    assert 1 <= len(established) <= 16, established     # one per request without keep-alive


def test_the_access_log_is_buffered_and_written_out_within_a_second_or_two(loopback):
    """Two requests on one connection: Nginx logs the first before it reads the second, so an
    unbuffered log would hold its line once the second is answered; a buffered one holds it only
    after the flush timer."""
    loopback.flush_logs()
    path = loopback.logs / "access.log"
    with tls_socket(loopback) as sock:
        for query in ("x=buffer-check", "x=buffer-check-2"):
            sock.sendall(f"GET /?{query} HTTP/1.1\r\nHost: {loopback.host}\r\n\r\n".encode())
            data = b""
            while not data.endswith(b"\r\n\r\n"):   # the sidecar's 302 has no body
                data += sock.recv(1)
            assert data.startswith(b"HTTP/1.1 302 "), data
        assert "x=buffer-check " not in path.read_text(), "written at once: not buffered"
    until(lambda: "x=buffer-check " in path.read_text(), "the buffered line written out")


def test_testssl_finds_no_weak_protocol_cipher_dhe_or_group(loopback, tmp_path):
    assert_no_weak_tls(run_testssl(loopback.host, loopback.addr, loopback.https_port, tmp_path / "testssl.json"))
