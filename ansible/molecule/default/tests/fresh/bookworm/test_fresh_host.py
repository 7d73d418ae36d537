"""The fresh Debian 12 host before its first converge: none of what a run leaves (our packages,
files and user), so the converge that follows is a first install. (Check mode on a fresh host is
the Debian 13 suite's, tests/fresh/trixie: a check-mode run costs as much as a converge.)"""
import pytest
from probes import OUR_PACKAGES, OUR_PATHS


@pytest.mark.parametrize("package", OUR_PACKAGES)
def test_the_fresh_host_has_none_of_our_packages(host, package):
    assert not host.package(package).is_installed


@pytest.mark.parametrize("path", OUR_PATHS)
def test_the_fresh_host_has_none_of_our_files(host, path):
    assert not host.file(path).exists


def test_the_fresh_host_has_no_service_user(host):
    assert not host.user("fox-avatar").exists
