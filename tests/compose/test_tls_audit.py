"""testssl against the compose stack (Debian 13's Nginx 1.26, OpenSSL 3.5): tests/stack/tls_audit.py.
Runs against the project tests/compose/run.sh started (its published HTTPS port)."""
import os

import pytest

from stack.tls_audit import assert_no_weak_tls, run_testssl

pytestmark = pytest.mark.skipif(
    not os.environ.get("COMPOSE_PROJECT_NAME") or not os.environ.get("AVATAR_HTTPS_PORT"),
    reason="needs a running compose project: run tests/compose/run.sh (make test-compose)")


def test_testssl_finds_no_weak_protocol_cipher_dhe_or_group(tmp_path):
    findings = run_testssl("localhost", "127.0.0.1", os.environ["AVATAR_HTTPS_PORT"],
                                tmp_path / "testssl.json")
    assert_no_weak_tls(findings)
