"""The Debian 12 host before its first converge: a server in use (prepare.yml: Debian's Nginx and
default site, the owner's blog.test), with none of what a run leaves (our other packages, our files
and user), so the converge that follows is a first install beside the owner's sites. What the
owner's sites answer is kept here for the later stages (owner.py). (Check mode on a fresh host is
the Debian 13 suite's, tests/fresh/trixie: a check-mode run costs as much as a converge.)"""
import owner
import pytest
from probes import OUR_PACKAGES, OUR_PATHS


@pytest.mark.parametrize("package", [p for p in OUR_PACKAGES if p != "nginx"])
def test_the_fresh_host_has_none_of_our_packages(host, package):
    assert not host.package(package).is_installed


@pytest.mark.parametrize("path", OUR_PATHS)
def test_the_fresh_host_has_none_of_our_files(host, path):
    assert not host.file(path).exists


def test_the_fresh_host_has_no_service_user(host):
    assert not host.user("fox-avatar").exists


def test_the_owners_nginx_runs_debians_default_site_and_the_blog(host):
    assert host.package("nginx").is_installed and host.service("nginx").is_running
    assert host.file("/etc/nginx/sites-enabled/default").is_symlink
    assert host.file("/etc/nginx/sites-enabled/blog.test").is_symlink


def test_the_owners_sites_answer_and_are_kept_for_later(addr):
    snap = owner.snapshot(addr)
    blog, unknown_80, unknown_443 = snap["blog.test :443"], snap["unknown-name.test :80"], snap["unknown-name.test :443"]
    # the blog for its name, with its certificate; Debian's page for other names on 80; on 443 the
    # first site read (the blog) for them, with the blog's certificate
    assert blog["status"] == 200 and "blog" in " ".join(blog["words"]) and blog["subject"] == "CN=blog.test", snap
    assert snap["blog.test :80"]["body"] == blog["body"], snap
    assert unknown_80["status"] == 200 and "nginx!" in " ".join(unknown_80["words"]), snap
    assert unknown_443["certificate"] == blog["certificate"] and unknown_443["status"] == 200, snap
    owner.save(snap)
