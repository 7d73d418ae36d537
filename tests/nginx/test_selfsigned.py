"""nginx/selfsigned.sh, the one self-signed certificate policy (compose's Nginx start, the Ansible
role and its renewal timer run it): makes a pair, keeps it, keeps a pair it did not make, makes it
again when the names change or its end is near, and refuses a directory it cannot write."""
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from cryptography import x509

SCRIPT = Path(__file__).resolve().parents[2] / "nginx" / "selfsigned.sh"


def run(directory, *names, env=None, user=None):
    prefix = ["setpriv", "--reuid", str(user), "--regid", str(user), "--clear-groups"] if user else []
    return subprocess.run([*prefix, str(SCRIPT), str(directory), *names], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=60)


def certificate(directory):
    return x509.load_pem_x509_certificate((directory / "fullchain.pem").read_bytes())


def test_makes_a_p256_pair_for_the_names_then_keeps_it(tmp_path):
    made = run(tmp_path / "tls", "avatar.example.org", "127.0.0.1", "::1")
    assert made.returncode == 0 and made.stderr == "", made.stderr
    assert made.stdout.startswith("selfsigned: made ") and made.stdout.count("\n") == 1, made.stdout
    tls = tmp_path / "tls"
    cert = certificate(tls)
    assert cert.subject.rfc4514_string() == "CN=avatar.example.org"
    sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert [str(n.value) for n in sans] == ["avatar.example.org", "127.0.0.1", "::1"]
    assert cert.public_key().curve.name == "secp256r1"
    assert 364 <= (cert.not_valid_after_utc - cert.not_valid_before_utc).days <= 365
    assert (tls / "privkey.pem").stat().st_mode & 0o777 == 0o600
    assert (tls / "fullchain.pem").stat().st_mode & 0o777 == 0o644
    before = (tls / "fullchain.pem").read_bytes()
    kept = run(tls, "avatar.example.org", "127.0.0.1", "::1")
    assert (kept.returncode, kept.stdout, kept.stderr) == (0, "", "")
    assert (tls / "fullchain.pem").read_bytes() == before


def test_makes_it_again_when_the_names_change_or_its_end_is_near(tmp_path):
    run(tmp_path, "a.example")
    first = (tmp_path / "fullchain.pem").read_bytes()
    renamed = run(tmp_path, "b.example")
    assert renamed.stdout.startswith("selfsigned: made ")
    assert certificate(tmp_path).subject.rfc4514_string() == "CN=b.example"
    second = (tmp_path / "fullchain.pem").read_bytes()
    assert second != first
    # 365 days left is within 400 days of the end: due.
    due = run(tmp_path, "b.example", env={"SELFSIGNED_RENEW_DAYS": "400"})
    assert due.stdout.startswith("selfsigned: made ") and (tmp_path / "fullchain.pem").read_bytes() != second
    short = run(tmp_path, "b.example", env={"SELFSIGNED_DAYS": "10", "SELFSIGNED_RENEW_DAYS": "400"})
    assert short.returncode == 0
    assert (certificate(tmp_path).not_valid_after_utc - certificate(tmp_path).not_valid_before_utc).days == 10


def test_keeps_a_pair_it_did_not_make(tmp_path):
    own = tmp_path / "own"
    run(own, "mine.example")
    (own / "self-signed.names").unlink()        # now it is "your own certificate"
    before = {p.name: p.read_bytes() for p in own.iterdir()}
    for env in ({}, {"SELFSIGNED_RENEW_DAYS": "400"}):
        kept = run(own, "other.example", env=env)
        assert (kept.returncode, kept.stdout, kept.stderr) == (0, "", "")
    assert {p.name: p.read_bytes() for p in own.iterdir()} == before
    (own / "privkey.pem").unlink()
    half = run(own, "other.example")
    assert half.returncode != 0 and half.stdout == "" and half.stderr.count("\n") == 1, half.stderr


def test_refuses_a_directory_it_cannot_write_in_one_line():
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        pytest.skip("setpriv is not installed")
    root = Path(tempfile.mkdtemp(prefix="fox-avatar-selfsigned-", dir="/var/tmp"))
    try:
        root.chmod(0o755)
        (root / "tls").mkdir(mode=0o555)
        out = run(root / "tls", "a.example", user=65534 if os.geteuid() == 0 else None)
        assert out.returncode != 0 and out.stdout == "", out
        assert out.stderr.count("\n") == 1 and f"{root / 'tls'}: not a writable directory" in out.stderr, out.stderr
        assert not list((root / "tls").iterdir())
        bad = run(root / "x", "not a name")
        assert bad.returncode != 0 and bad.stderr.count("\n") == 1 and "'not a name'" in bad.stderr
    finally:
        shutil.rmtree(root, ignore_errors=True)
