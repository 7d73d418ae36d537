"""HTTP/3 (QUIC on the HTTPS port's UDP twin), Alt-Svc and the key exchange groups, on any stack:
AVATAR_HTTP3 / AVATAR_PQ say what it must do (the loopback stack: what its Nginx was rendered with).
HTTP/3 and ML-KEM through Debian 13's clients (trixie_client.py); the classic client is this
machine's openssl (Debian 12: OpenSSL 3.0)."""
import re
import shutil
import subprocess

import pytest

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


def test_http3_serves_the_redirect_and_the_image_when_on_and_nothing_when_off(stack, trixie, manifest):
    redirect, status = trixie.curl("/?via=h3", "--http3-only")
    if expected(stack, "http3"):
        assert redirect.returncode == 0, redirect.stderr
        assert status == "3 302", status
        image, status = trixie.curl(f"/{manifest.paths()[0]}", "--http3-only")
        assert image.returncode == 0 and status == "3 200", (status, image.stderr)
    else:
        assert redirect.returncode != 0, f"HTTP/3 answered ({status}) on a stack that must not serve it"


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

