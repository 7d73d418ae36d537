"""The rendered site itself: Nginx takes it without a word; what the template decides from the real
`nginx -V` texts (stderr, unchanged) in nginx-V/: Debian 12's nginx 1.22.1 (package 1.22.1-9+deb12u*,
OpenSSL 3.0, no HTTP/3 module) and Debian 13's 1.26.3 (debian:trixie-slim, OpenSSL 3.5,
--with-http_v3_module); a bad variable or image set is a one-line error."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from imageset import read_manifest
from imageset.nginx import template_data
from stack.stacks import NGINX_DIR, REPO, load_renderer

BUILD = {p.stem: p.read_text() for p in (Path(__file__).parent / "nginx-V").glob("*.txt")}
REQUIRED = {
    "avatar_server_name": "avatar.example.org",
    "avatar_tls_certificate": "/etc/ssl/fullchain.pem",
    "avatar_tls_certificate_key": "/etc/ssl/privkey.pem",
    "avatar_images_root": "/srv/fox-avatar/images",
    "avatar_image_set": template_data(read_manifest(REPO / "images")),
    "avatar_nginx_build": BUILD["debian-12"],
}
WARNING = re.compile(r"\[(warn|emerg|alert|crit|error)\]")


def listens(text):
    return re.findall(r"^\s*listen (.*);$", text, re.M)


def test_nginx_takes_the_site_and_runs_it_without_a_warning(loopback):
    out = subprocess.run(loopback.nginx_args("-t"), capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and not WARNING.search(out.stderr), out.stderr
    logged = "".join(p.read_text() for p in loopback.logs.glob("*error*.log")) + (loopback.logs / "nginx.stderr").read_text()
    assert not re.search(r"\[(warn|emerg|alert|crit)\]", logged), logged   # [error]: a stopped sidecar


# (nginx -V, extra variables) -> listens, ssl_ecdh_curve, session tickets off, HTTP/3 in Alt-Svc
DECISIONS = [
    ("debian-12", {}, ["*:80", "[::]:80", "*:443 ssl http2", "[::]:443 ssl http2"],
     "X25519:prime256v1:secp384r1", True, False),
    ("debian-13", {}, ["*:80", "[::]:80", "*:443 ssl", "*:443 quic reuseport", "[::]:443 ssl", "[::]:443 quic reuseport"],
     "X25519MLKEM768:X25519:prime256v1:secp384r1", False, True),
    ("debian-13", {"avatar_http3": False, "avatar_listen_addresses": ["*"]}, ["*:80", "*:443 ssl"],
     "X25519MLKEM768:X25519:prime256v1:secp384r1", False, False),
    ("debian-13", {"avatar_http3_reuseport": False, "avatar_listen_addresses": ["*"]}, ["*:80", "*:443 ssl", "*:443 quic"],
     "X25519MLKEM768:X25519:prime256v1:secp384r1", False, True),
]


@pytest.mark.parametrize("build,extra,want_listens,groups,tickets_off,http3", DECISIONS)
def test_what_the_template_decides_from_nginx_v(build, extra, want_listens, groups, tickets_off, http3):
    text = load_renderer()({**REQUIRED, "avatar_nginx_build": BUILD[build], **extra})
    assert listens(text) == want_listens
    assert bool(re.search(r"^\s*http2 on;$", text, re.M)) == (build == "debian-13")
    assert re.findall(r"^\s*ssl_ecdh_curve (\S+);$", text, re.M) == [groups]
    assert ("ssl_session_tickets off;" in text) == tickets_off
    assert ("h3=" in text) == http3


def render_cli(*args, images=REPO / "images", **variables):
    values = {**{k: v for k, v in REQUIRED.items() if k != "avatar_image_set"}, **variables}
    return subprocess.run([sys.executable, str(NGINX_DIR / "render.py"), "--images", str(images), *args,
                           *(f"{k}={v}" for k, v in values.items() if v is not None)], capture_output=True, text=True)


def test_a_bad_variable_or_image_set_is_a_one_line_error_naming_it(tmp_path):
    (tmp_path / "manifest.tsv").write_text((REPO / "images" / "manifest.tsv").read_text())
    for out, named in [(render_cli(avatar_images_root=None), "avatar_images_root"),
                       (render_cli(avatar_nginx_build="built with OpenSSL 3.5.7"), "avatar_nginx_build"),
                       (render_cli(avatar_access_log_mode="verbose"), "avatar_access_log_mode"),
                       (render_cli(images=tmp_path / "none"), "--images"), (render_cli(images=tmp_path), "missing")]:
        assert out.returncode == 2 and out.stderr.count("\n") == 1 and named in out.stderr, out.stderr


def test_a_yaml_off_is_the_off_log_mode():
    """A bare `off` in an Ansible inventory arrives as false."""
    render = load_renderer()
    assert render({**REQUIRED, "avatar_access_log_mode": False}) == render({**REQUIRED, "avatar_access_log_mode": "off"})
