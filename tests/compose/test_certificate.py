"""The self-signed certificate under compose follows the one policy of every deployment
(nginx/README.md, "The self-signed certificate"; the playbook's side:
ansible/molecule/default/tests/changes/bookworm/test_1_selfsigned_policy.py):
ECDSA P-256, valid 365 days, made again at the next start when fewer than 30 days remain.

Runs against the project tests/compose/run.sh started, like test_compose.py (whose helpers it
uses); it puts the generated certificate back, so the tests after it trust it as before.
"""
import subprocess
import time

from test_compose import NEEDED, ROOT, compose, pytestmark, same_cert, served_certificate, volume_certificate  # noqa: F401


def certificate_days(pem):
    """Key type and lifetime in days of a PEM certificate, from openssl."""
    text = subprocess.run(["openssl", "x509", "-noout", "-text"], input=pem, capture_output=True,
                          text=True, check=True).stdout
    dates = subprocess.run(["openssl", "x509", "-noout", "-startdate", "-enddate"], input=pem,
                           capture_output=True, text=True, check=True).stdout
    start, end = (time.mktime(time.strptime(line.split("=", 1)[1].strip(), "%b %d %H:%M:%S %Y %Z"))
                  for line in dates.splitlines())
    return text, round((end - start) / 86400)


def test_generated_certificate_follows_the_self_signed_policy():
    """nginx/README.md, "The self-signed certificate": ECDSA P-256, valid 365 days (the playbook's
    too: ansible/molecule/default/tests/changes/bookworm/test_1_selfsigned_policy.py)."""
    text, days = certificate_days(volume_certificate())
    assert "id-ecPublicKey" in text and "prime256v1" in text, text
    assert days == 365


def tls_file(name, content=None):
    """Read (or, with content, write) a file of the nginx container's /etc/nginx/tls."""
    path = f"/etc/nginx/tls/{name}"
    if content is None:
        return compose("exec", "-T", "nginx", "cat", path).stdout
    done = subprocess.run(["docker", "compose", "exec", "-T", "nginx", "sh", "-c", f"cat >{path}"],
                          cwd=ROOT, input=content, text=True, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return content


def test_generated_certificate_with_fewer_than_30_days_left_is_made_again_at_start():
    original = {name: tls_file(name) for name in ("fullchain.pem", "privkey.pem")}
    try:
        # The same names and key as the generated one, valid for 20 more days.
        compose("exec", "-T", "nginx", "sh", "-c",
                "cd /etc/nginx/tls && CN=$(head -n1 self-signed.names | cut -d' ' -f1) && "
                "openssl req -x509 -key privkey.pem -days 20 -subj \"/CN=$CN\" -out short.pem 2>/dev/null "
                "&& mv short.pem fullchain.pem")
        short = volume_certificate()
        assert certificate_days(short)[1] == 20

        compose("up", "-d", "--wait", "--no-deps", "--force-recreate", "nginx")

        renewed = volume_certificate()
        assert not same_cert(renewed, short), "a certificate with 20 days left was kept"
        assert certificate_days(renewed)[1] == 365
        assert same_cert(served_certificate(), renewed)
    finally:
        # The later tests trust the certificate run.sh exported (AVATAR_CA): put it back.
        for name, content in original.items():
            tls_file(name, content)
        compose("up", "-d", "--wait", "--no-deps", "--force-recreate", "nginx")
    assert same_cert(served_certificate(), original["fullchain.pem"])
