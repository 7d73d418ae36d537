"""Check mode on the fresh host: `--check --diff` runs through,
shows the Nginx release it would make live, and installs and writes nothing."""
import foxmol
import pytest

# What a real run leaves on the host: none of it may exist after check mode.
PACKAGES = ["nginx", "default-jre-headless", "prometheus", "prometheus-nginx-exporter", "mtail",
            "prometheus-blackbox-exporter"]
PATHS = ["/etc/systemd/system/fox-avatar.service", "/etc/ssl/fox-avatar", "/etc/nginx/fox-avatar",
         "/etc/nginx/fox-avatar-releases", "/opt/fox-avatar", "/etc/logrotate.d/fox-avatar",
         "/var/log/nginx/fox-avatar", "/etc/default/prometheus-nginx-exporter", "/etc/mtail",
         "/etc/prometheus"]


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
