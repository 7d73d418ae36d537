"""HTTP/3 (QUIC on the HTTPS port, UDP), Alt-Svc and the TLS groups, on any stack: what the stack
must do is given by AVATAR_HTTP3 / AVATAR_PQ (tests/stack/stacks.py; the loopback stack derives
them from its Nginx). HTTP/3 and ML-KEM need Debian 13's clients (tests/stack/trixie_client.py);
the classic client is this machine's own openssl (Debian 12: OpenSSL 3.0, no ML-KEM)."""
import re
import shutil
import ssl
import subprocess

import pytest

from stack.client import get, tls_context, tls_socket
from stack.images import manifest  # noqa: F401 (fixture)
from stack.trixie_client import TrixieClient, client_image

NEGOTIATED_GROUP = re.compile(r"^(?:Negotiated TLS1\.3 group|(?:Server|Peer) Temp Key): (\w+)", re.M)


def expected(stack, what):
    value = getattr(stack, what)
    if value is None:
        name = {"http3": "AVATAR_HTTP3", "pq": "AVATAR_PQ"}[what]
        pytest.fail(f"{name} is not set: say whether the stack must serve it (1) or not (0)", pytrace=False)
    return value


@pytest.fixture(scope="module")
def trixie(stack):
    return TrixieClient(stack, client_image())


# --- HTTP/3 and Alt-Svc ---------------------------------------------------------------

def test_http3_serves_the_redirect_and_the_image_when_on_and_nothing_when_off(stack, trixie, manifest):
    redirect, status = trixie.curl("/?via=h3", "--http3-only")
    if expected(stack, "http3"):
        assert redirect.returncode == 0, redirect.stderr
        assert status == "3 302", status
        image, status = trixie.curl(f"/{manifest.paths()[0]}", "--http3-only")
        assert image.returncode == 0 and status == "3 200", (status, image.stderr)
    else:
        assert redirect.returncode != 0, f"HTTP/3 answered ({status}) on a stack that must not serve it"


def test_https_answers_name_http3_on_the_browsers_port_in_alt_svc_only_when_on(stack, manifest):
    want = f'h3=":{stack.redirect_port}"; ma=86400' if expected(stack, "http3") else None
    for path in ("/", f"/{manifest.paths()[0]}", "/missing.png"):
        r = get(stack, path)
        assert r.header("Alt-Svc") == want, (path, r.status, r.headers.get("alt-svc"))
    assert get(stack, "/", https=False).header("Alt-Svc") is None


# --- key exchange groups -----------------------------------------------------------------

def test_client_offering_ml_kem_gets_it_where_the_stack_has_it_else_x25519(stack, trixie):
    groups = "X25519MLKEM768" if expected(stack, "pq") else "X25519MLKEM768:X25519"
    out, text = trixie.s_client("-groups", groups)
    assert out.returncode == 0, text
    assert NEGOTIATED_GROUP.findall(text)[:1] == ["X25519MLKEM768" if stack.pq else "X25519"], text


def test_classic_openssl_3_0_client_connects_with_x25519(stack):
    openssl = shutil.which("openssl")
    if not openssl:
        pytest.skip("openssl is not installed")
    out = subprocess.run([openssl, "s_client", "-brief", "-connect", f"{stack.addr}:{stack.https_port}",
                          "-servername", stack.host, "-CAfile", stack.ca_file, "-verify_return_error"],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    text = out.stdout + out.stderr
    assert out.returncode == 0, text
    assert NEGOTIATED_GROUP.findall(text)[:1] == ["X25519"], text


def test_tls_1_2_with_dhe_ciphers_only_is_refused(stack):
    """Mozilla 6.0 intermediate has no DHE: a client that offers nothing else gets no handshake."""
    ctx = tls_context(stack, maximum=ssl.TLSVersion.TLSv1_2,
                      ciphers="DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305")
    with pytest.raises(ssl.SSLError):
        tls_socket(stack, ctx).close()
