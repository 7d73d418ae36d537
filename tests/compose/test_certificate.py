"""The self-signed certificate under compose follows the one policy of every deployment
(nginx/README.md, "The self-signed certificate"; the playbook's side:
ansible/molecule/default/tests/changes/bookworm/test_1_selfsigned_policy.py):
ECDSA P-256, valid 365 days, made again at the next start when fewer than 30 days remain.

Runs against the project tests/compose/run.sh started, like test_compose.py (its helpers:
compose_helpers.py); it puts the generated certificate back, so the tests after it trust it as before.
"""
import subprocess
import time

from compose_helpers import NEEDED, ROOT, compose, pytestmark, same_cert, served_certificate, volume_certificate  # noqa: F401


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


def test_generated_certificate_is_renewed_while_nginx_runs_with_no_connection_refused(tmp_path):
    """A year without a restart: the loop beside Nginx (entrypoint.d/50-certificate-renewal.sh, every
    NGINX_TLS_CHECK_SECONDS; here 2 s, through a compose file of the test's own) makes the generated
    certificate again once it has fewer than 30 days left and reloads Nginx, while a client opening
    one connection after another is never refused."""
    import json
    import os
    import socket
    import ssl
    import threading

    override = tmp_path / "check-often.yml"
    override.write_text(json.dumps({"services": {"nginx": {"environment": {"NGINX_TLS_CHECK_SECONDS": "2"}}}}))
    files = f"{os.environ['COMPOSE_FILE']}:{override}"
    env = dict(os.environ, COMPOSE_FILE=files)
    original = {name: tls_file(name) for name in ("fullchain.pem", "privkey.pem")}
    compose("up", "-d", "--wait", "--no-deps", "--force-recreate", "nginx", env=env)
    counts = {"ok": 0, "failed": 0}
    stop = threading.Event()

    def loop():
        ctx = ssl.create_default_context()
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE   # the certificate changes under it
        while not stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", int(os.environ["AVATAR_HTTPS_PORT"])), 5) as raw:
                    with ctx.wrap_socket(raw, server_hostname="localhost") as tls:
                        tls.sendall(b"GET /?s=64 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                        counts["ok" if tls.recv(12) == b"HTTP/1.1 302" else "failed"] += 1
            except OSError:
                counts["failed"] += 1
            time.sleep(0.02)

    client = threading.Thread(target=loop)
    client.start()
    try:
        # A year later: the generated certificate (same names and key) has 20 days left. (Its text is
        # printed as it is written: the loop may renew it before the volume could be read again.)
        short = compose("exec", "-T", "nginx", "sh", "-c",
                        "cd /etc/nginx/tls && CN=$(head -n1 self-signed.names | cut -d' ' -f1) && "
                        "openssl req -x509 -key privkey.pem -days 20 -subj \"/CN=$CN\" -out short.pem 2>/dev/null "
                        "&& cat short.pem && mv short.pem fullchain.pem", env=env).stdout
        assert certificate_days(short)[1] == 20
        deadline = time.monotonic() + 60
        while True:
            served = served_certificate()
            if not same_cert(served, original["fullchain.pem"]) and not same_cert(served, short):
                break
            assert time.monotonic() < deadline, "no renewed certificate served within 60 s"
            time.sleep(0.5)
        renewed = volume_certificate()
        assert same_cert(served_certificate(), renewed) and certificate_days(renewed)[1] == 365
        time.sleep(1)   # a few more connections on the renewed certificate
    finally:
        stop.set()
        client.join(30)
        for name, content in original.items():
            tls_file(name, content)
        compose("up", "-d", "--wait", "--no-deps", "--force-recreate", "nginx")
    print(f"connections while renewed: {counts}")
    assert counts["failed"] == 0 and counts["ok"] > 50, counts
    assert same_cert(served_certificate(), original["fullchain.pem"])
