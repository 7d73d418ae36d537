"""The converged proxy (testinfra, the host of avatar_proxies): Nginx in front of the app hosts."""
from conftest import pool

testinfra_hosts = ["ansible://avatar_proxies"]


def test_runs_no_java(host):
    assert not host.package("default-jre-headless").is_installed
    assert not host.exists("java")


def test_nginx_is_active_and_enabled(host):
    assert host.service("nginx").is_running
    assert host.service("nginx").is_enabled


def test_upstream_pool_lists_each_app_host_address_and_nothing_else(host, apps, app_address):
    assert pool(host.ansible.get_variables()["inventory_hostname"]) == {
        f"{app}.conf": f"server {app_address[app]}:8080;" for app in apps}


def test_is_debian_12(host):
    """The premise of test_http_through_the_proxy.py's HTTP/3 and TLS group checks."""
    assert (host.system_info.distribution, host.system_info.release.split(".")[0]) == ("debian", "12")


def test_no_udp_listener_on_443(host):
    """Debian 12's Nginx has no QUIC: nothing on UDP 443."""
    assert [s for s in host.socket.get_listening_sockets() if s.startswith("udp://") and s.endswith(":443")] == []
