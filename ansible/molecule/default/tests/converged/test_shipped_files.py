"""The files the roles carry as links into the repository (files/jvm.options to app/, files/fox-avatar/
to nginx/fox-avatar/; the monitoring files: test_monitoring.py) are on the host as regular files equal
to the repository's: shipped from the installed tarball's copies, or (FOX_FROM=repo) through the links
themselves, which the copy and the ship follow."""
import hashlib

import foxmol

REPO = foxmol.REPO
SHARED = REPO / "nginx" / "fox-avatar"


def test_jvm_flags_are_the_repositorys_as_a_file(host):
    installed = host.file("/etc/fox-avatar/jvm.options")
    assert installed.is_file and not installed.is_symlink
    assert installed.content_string == (REPO / "app" / "jvm.options").read_text()


def test_live_release_holds_every_shared_nginx_file_as_the_repositorys(host):
    """Each file of nginx/fox-avatar/ in the live release (/etc/nginx/fox-avatar, a link to it), a
    regular file with the repository's content, and nothing else but the rendered site.conf."""
    out = host.run("cd /etc/nginx/fox-avatar/ && find . -mindepth 1 -maxdepth 1 -type f -exec sha1sum {} + "
                   "&& find . -mindepth 1 -maxdepth 1 ! -type f")
    assert out.rc == 0, out.stderr
    held, other = {}, []
    for line in out.stdout.splitlines():
        checksum, _, path = line.partition("  ./")
        if path:
            held[path] = checksum
        else:
            other.append(line)
    want = {p.name: hashlib.sha1(p.read_bytes()).hexdigest() for p in SHARED.iterdir()}
    assert other == [], f"not regular files in the live release: {other}"
    assert held.pop("site.conf", None), "no site.conf in the live release"
    assert held == want
