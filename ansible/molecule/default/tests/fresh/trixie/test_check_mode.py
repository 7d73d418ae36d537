"""Check mode on the fresh Debian 13 host, as the README's commands run it from the repository:
`--check --diff` runs through, shows the Nginx release it would make live, and installs and writes
nothing. (One suite runs it: a check-mode run costs as much as a converge, and its paths are the
same on both releases; the Debian 12 suite checks its host is fresh, tests/fresh/bookworm.)"""
import foxmol
import pytest
from probes import OUR_PACKAGES as PACKAGES, OUR_PATHS as PATHS


@pytest.fixture(scope="module")
def check_run():
    return foxmol.playbook("check-mode", "--check", "--diff")


def test_check_mode_on_the_fresh_host_runs_through(check_run):
    assert check_run.clean, check_run.excerpt()


def test_check_mode_shows_the_nginx_release_it_would_make_live(check_run):
    assert "fox-avatar-releases/" in check_run.text, check_run.excerpt()


@pytest.mark.parametrize("package", PACKAGES)
def test_check_mode_installs_no_package(check_run, host, package):
    assert not host.package(package).is_installed


@pytest.mark.parametrize("path", PATHS)
def test_check_mode_writes_no_file(check_run, host, path):
    assert not host.file(path).exists


def test_check_mode_creates_no_user(check_run, host):
    assert not host.user("fox-avatar").exists
