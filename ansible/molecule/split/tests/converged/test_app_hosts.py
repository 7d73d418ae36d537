"""Each converged app host (testinfra, once per host of avatar_apps): the service only."""
import foxmol

testinfra_hosts = ["ansible://avatar_apps"]

PORT = 8080


def test_fox_avatar_is_active(host):
    assert host.service("fox-avatar").is_running


def test_fox_avatar_is_enabled(host):
    assert host.service("fox-avatar").is_enabled


def test_runs_no_nginx(host):
    assert not host.package("nginx").is_installed
    assert not host.exists("nginx")


def test_the_address_it_is_given_is_its_own_on_the_network(host, network):
    name = host.ansible.get_variables()["inventory_hostname"]
    assert host.ansible.get_variables()["fox_avatar_app_address"] == foxmol.host_ip(name, network)


def test_service_listens_on_its_private_address_only(host):
    address = host.ansible.get_variables()["fox_avatar_app_address"]
    on_port = sorted(s for s in host.socket.get_listening_sockets() if s.endswith(f":{PORT}"))
    assert on_port == [f"tcp://{address}:{PORT}"]
