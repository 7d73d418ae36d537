"""testssl against the loopback stack (Debian 12's Nginx 1.22, OpenSSL 3.0): tests/stack/tls_audit.py."""
from stack.tls_audit import assert_no_weak_tls, run_testssl


def test_testssl_finds_no_weak_protocol_cipher_dhe_or_group(stack, tmp_path):
    assert_no_weak_tls(run_testssl(stack.host, stack.addr, stack.https_port, tmp_path / "testssl.json"))
