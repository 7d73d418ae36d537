"""HTTP/3 off and back on, on the converged Debian 13 host:
with fox_avatar_nginx_http3=false no QUIC listener, no Alt-Svc, no HTTP/3, and
HTTPS over TCP still answers; back to the default, HTTP/3 again after a reload (the same Nginx
master); the next converge changes nothing."""
from types import SimpleNamespace

import foxmol
import probes
import pytest

ALT_SVC = 'h3=":443"; ma=86400'


def seen(host, addr, network, ca):
    """What HTTP/3 looks like on the host now."""
    state = SimpleNamespace(h3=probes.h3_get(network, ca, addr), alt=probes.alt_svc(addr, ca),
                            udp=probes.udp_443(host), code=probes.https_code(addr, ca, "/"))
    print(state)
    return state


@pytest.fixture(scope="module")
def pid_before(host_name):
    return foxmol.nginx_pid(host_name)


@pytest.fixture(scope="module")
def off(host, addr, network, server_ca_module, pid_before):
    run = foxmol.playbook("http3-off", extra_vars={"fox_avatar_nginx_http3": False})
    return SimpleNamespace(run=run, seen=seen(host, addr, network, server_ca_module))


def test_http3_off_converge_succeeds(off):
    assert off.run.clean, off.run.excerpt()


def test_http3_off_leaves_no_quic_listener(off):
    assert off.seen.udp == []


def test_http3_off_sends_no_alt_svc(off):
    assert off.seen.alt is None


def test_http3_off_answers_nothing_over_http3(off):
    assert off.seen.h3 != "302 3"


def test_http3_off_https_over_tcp_still_answers_302(off):
    assert off.seen.code == "302"


@pytest.fixture(scope="module")
def on(host, host_name, addr, network, server_ca_module, off):
    run = foxmol.playbook("http3-on")
    return SimpleNamespace(run=run, seen=seen(host, addr, network, server_ca_module),
                           pid=foxmol.nginx_pid(host_name))


def test_http3_back_on_converge_succeeds(on):
    assert on.run.clean, on.run.excerpt()


def test_http3_back_on_listens_for_quic_again(on):
    assert on.seen.udp == probes.QUIC_LISTENERS


def test_http3_back_on_answers_302_over_http3_with_alt_svc(on):
    assert (on.seen.h3, on.seen.alt) == ("302 3", ALT_SVC)


def test_http3_off_and_on_reload_nginx_never_restart_it(on, pid_before):
    assert pid_before not in ("", "0") and on.pid == pid_before


def test_http3_back_on_next_converge_reports_changed_0(on):
    run = foxmol.playbook("http3-on-again")
    assert run.unchanged, run.excerpt()
