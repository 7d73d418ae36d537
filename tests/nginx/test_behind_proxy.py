"""Behind the owner's proxy (docs/compose.md and docs/ansible.md, "Behind your own proxy"), and beside
the owner's other sites, on the template and a real Nginx.

avatar_tls false: a proxy in front terminates TLS, so the avatar server answers plain HTTP on
avatar_http_port: the same 302s, images, caching and cross-origin headers and fallback, and no
redirect to HTTPS, no HSTS, no Alt-Svc, no HTTP/3 (the proxy's). avatar_real_ip_from: only those
peers name the client (X-Forwarded-For), so the private log keeps the visitor's network; a header
forged by anyone else changes nothing. The real IP rules sit in the avatar server, never at http
level, where they would change the host's other sites. avatar_http3_reuseport and avatar_map_hash
leave to the host what Nginx takes once per socket or per http block.

The loopback stack runs here with the template's default log (anonymous: the client's /24 and the
route), requests come from 127.0.0.1 (the "proxy") or from 127.0.5.23 (anyone else)."""
import re
import socket
import time

import pytest

from stack.client import get, wait_for_sidecar
from stack.headers import CORS
from stack.stacks import LoopbackStack, load_renderer
from test_config import BUILD, REQUIRED, listens

PROXY = "127.0.0.1"          # the trusted proxy (avatar_real_ip_from)
STRANGER = "127.0.5.23"      # another client, on another /24: its forwarded header is not believed
VISITOR = "198.51.100.77"    # the visitor the proxy names
FORGED = "203.0.113.77"      # what the stranger claims to be


def http_level(text):
    """The per-deployment file before its first server block: what the host's every site shares."""
    return text.split("\nserver {", 1)[0]


def server_blocks(text):
    return re.findall(r"^server \{\n.*?^\}", text, re.S | re.M)


# --- the template ------------------------------------------------------------------

def test_tls_off_renders_one_plain_http_server_without_tls_hsts_alt_svc_or_quic():
    text = load_renderer()({**REQUIRED, "avatar_nginx_build": BUILD["debian-13"], "avatar_tls": False,
                            "avatar_http_port": 8080})
    assert listens(text) == ["*:8080", "[::]:8080"]
    assert len(server_blocks(text)) == 1
    assert not re.search(r"^\s*ssl_|quic|http2|location \^~ /\.well-known", text, re.M)
    assert 'map "" $avatar_hsts { default ""; }' in text
    assert re.search(r'^map "" \$avatar_alt_svc \{ default ""; \}', text, re.M)
    assert "absolute_redirect off;" in text


def test_tls_is_the_default_with_hsts_and_the_redirect_server():
    text = load_renderer()({**REQUIRED, "avatar_nginx_build": BUILD["debian-13"]})
    assert 'map "" $avatar_hsts { default "max-age=63072000"; }' in text
    assert len(server_blocks(text)) == 2
    assert "ssl_protocols TLSv1.2 TLSv1.3;" in text and "acme-challenge" in text


def test_real_ip_from_is_set_in_the_avatar_server_only():
    text = load_renderer()({**REQUIRED, "avatar_tls": False,
                            "avatar_real_ip_from": ["172.18.0.1", "2001:db8::/32"],
                            "avatar_status_listen": ["127.0.0.1:8082"]})
    avatar, status = server_blocks(text)
    assert re.findall(r"^\s*set_real_ip_from (\S+);$", avatar, re.M) == ["172.18.0.1", "2001:db8::/32"]
    assert re.search(r"^\s*real_ip_header X-Forwarded-For;$", avatar, re.M)
    assert re.search(r"^\s*real_ip_recursive on;$", avatar, re.M)
    assert "real_ip" not in http_level(text) and "real_ip" not in status
    without = load_renderer()({**REQUIRED, "avatar_tls": False})
    assert "real_ip" not in without


def test_http3_reuseport_false_keeps_quic_without_reuseport():
    text = load_renderer()({**REQUIRED, "avatar_nginx_build": BUILD["debian-13"],
                            "avatar_http3_reuseport": False, "avatar_listen_addresses": ["*"]})
    assert listens(text) == ["*:80", "*:443 ssl", "*:443 quic"]


def test_the_site_leaves_the_map_hash_sizes_to_nginx_conf():
    assert "map_hash" not in load_renderer()(REQUIRED)


# --- a real Nginx in proxy mode -------------------------------------------------------

@pytest.fixture(scope="module")
def proxied():
    s = LoopbackStack(access_log_mode=None, extra_variables={
        "avatar_tls": False, "avatar_real_ip_from": [f"{PROXY}/32"]})
    try:
        yield s
    finally:
        s.close()


def send(stack, source, path, forwarded=None):
    """One plain-HTTP request from the loopback address SOURCE; (status, headers, body)."""
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(10)
    sock.connect((stack.addr, stack.http_port))
    extra = f"X-Forwarded-For: {forwarded}\r\nX-Forwarded-Proto: https\r\n" if forwarded else ""
    with sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {stack.host}\r\n{extra}Connection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers.setdefault(k.strip().lower(), []).append(v.strip())
    return int(lines[0].split(" ")[1]), headers, body


def assert_plain_header_set(headers, what):
    for name, want in CORS.items():
        assert headers.get(name) == want, (what, name, headers)
    assert headers.get("x-content-type-options") == ["nosniff"], (what, headers)
    assert "strict-transport-security" not in headers, (what, "HSTS is the proxy's", headers)
    assert "alt-svc" not in headers, (what, "HTTP/3 is the proxy's", headers)


def test_behind_a_proxy_the_avatar_url_and_its_image_answer_over_plain_http(proxied):
    status, headers, body = send(proxied, PROXY, "/?s=64&u=someone", VISITOR)
    assert status == 302 and b"<html>" not in body, (status, body[:200])
    location = headers["location"][0]
    assert re.fullmatch(r"/a/\S+-64\.[0-9a-f]+\.(avif|webp|png)", location), location
    assert headers["cache-control"] == ["public, max-age=3600"] and headers["vary"] == ["Accept"]
    assert_plain_header_set(headers, "the sidecar's 302")
    status, headers, body = send(proxied, PROXY, location, VISITOR)
    assert status == 200 and headers["cache-control"] == ["public, max-age=31536000, immutable"]
    assert body == (proxied.images_dir / location.lstrip("/")).read_bytes()
    assert_plain_header_set(headers, "the image")
    status, headers, _ = send(proxied, PROXY, "/nothing-here", VISITOR)
    assert status == 404
    assert_plain_header_set(headers, "a 404")


def test_behind_a_proxy_nothing_listens_for_tls_and_port_80_does_not_redirect(proxied):
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((proxied.addr, proxied.https_port), 2).close()
    status, _, _ = send(proxied, PROXY, "/?s=64", VISITOR)
    assert status == 302


def test_behind_a_proxy_the_fallback_answers_with_the_same_headers(proxied):
    proxied.stop_app()
    try:
        status, headers, body = send(proxied, PROXY, "/?s=64&u=someone", VISITOR)
        assert status == 302 and b"<html>" in body, "the fallback's 302"
        assert headers["cache-control"] == ["public, max-age=3600"]
        assert_plain_header_set(headers, "the fallback's 302")
    finally:
        proxied.start_app()
    wait_for_plain_sidecar(proxied)


def wait_for_plain_sidecar(stack, seconds=30):
    deadline = time.monotonic() + seconds
    while b"<html>" in send(stack, PROXY, "/?while=started")[2]:
        assert time.monotonic() < deadline, f"the sidecar did not take over again within {seconds} s"
        time.sleep(0.2)


def new_log_lines(stack, call):
    before = stack.access_log()
    call()
    return stack.access_log()[len(before):].splitlines()


def test_only_the_trusted_proxy_names_the_client_in_the_log(proxied):
    lines = new_log_lines(proxied, lambda: send(proxied, PROXY, "/?s=64", VISITOR))
    assert [line.split(" ")[0] for line in lines] == ["198.51.100.0"], lines
    # A chain: the client is the last address the trusted proxy did not add itself.
    lines = new_log_lines(proxied, lambda: send(proxied, PROXY, "/?s=64", f"{FORGED}, {VISITOR}"))
    assert [line.split(" ")[0] for line in lines] == ["198.51.100.0"], lines
    # Anyone else: its header is ignored, its own network is logged.
    lines = new_log_lines(proxied, lambda: send(proxied, STRANGER, "/?s=64", FORGED))
    assert [line.split(" ")[0] for line in lines] == ["127.0.5.0"], lines
    # The proxy's own requests without the header are the proxy's.
    lines = new_log_lines(proxied, lambda: send(proxied, PROXY, "/?s=64"))
    assert [line.split(" ")[0] for line in lines] == ["127.0.0.0"], lines
    text = proxied.access_log()
    assert "203.0.113" not in text and VISITOR not in text, "never the forged network, never a full address"
