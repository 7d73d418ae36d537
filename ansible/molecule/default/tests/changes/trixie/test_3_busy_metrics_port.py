"""A /metrics port another process holds, on the converged Debian 13 host (issue 35): the run that
moves fox_avatar_app_metrics_port onto it fails with one line naming that variable and the
service's own reason (the address and --metrics-port, not the free avatar port), the front door
still answers (the fallback), and the next run with the port back converges and the service
answers again."""
from types import SimpleNamespace

import foxmol
import probes
import pytest

TAKEN = 9181


@pytest.fixture(scope="module")
def busy(host_name, addr, server_ca_module):
    # another service holding the port, as a unit of its own (stopped below)
    foxmol.host_exec(host_name, "systemd-run", "--unit", "fox-test-port-holder", "--quiet",
                     "python3", "-m", "http.server", str(TAKEN), "--bind", "127.0.0.1")
    foxmol.host_exec(host_name, "sh", "-c", f"for i in $(seq 50); do ss -ltn | grep -q ':{TAKEN} ' && exit 0;"
                     " sleep 0.2; done; exit 1")
    try:
        run = foxmol.playbook("metrics-port-taken", extra_vars={"fox_avatar_app_metrics_port": TAKEN,
                                                                "fox_avatar_app_health_timeout": 5})
        front = probes.https_code(addr, server_ca_module, "/")
    finally:
        foxmol.host_exec(host_name, "systemctl", "stop", "fox-test-port-holder", check=False)
    return SimpleNamespace(run=run, front=front)


def foxmol_host(run):
    """The scenario's one host, as the run's recap names it."""
    return next(iter(run.recap))


def test_a_taken_metrics_port_fails_the_run(busy):
    assert busy.run.rc != 0 and not busy.run.clean, busy.run.excerpt()


def test_the_failure_names_the_variable_and_the_taken_address(busy):
    text = " ".join(busy.run.text.split())   # the message as one line, however the callback wrapped it
    assert f"fox_avatar_app_metrics_port ({foxmol_host(busy.run)}): the service does not answer" in text, \
        busy.run.excerpt()
    assert f"avatar: cannot listen on 127.0.0.1:{TAKEN} (--metrics-port): Address already in use" in text, \
        busy.run.excerpt()


def test_the_front_door_still_answers_while_the_service_is_down(busy):
    assert busy.front == "302"


@pytest.fixture(scope="module")
def back(busy, host_name):
    run = foxmol.playbook("metrics-port-back")
    health = foxmol.host_exec(host_name, "python3", "-c", "import urllib.request; print(urllib.request"
                              ".urlopen('http://127.0.0.1:8080/healthz', timeout=5).read().decode())", check=False)
    return SimpleNamespace(run=run, health=health)


def test_the_port_back_converges_and_the_service_answers(back):
    assert back.run.clean, back.run.excerpt()
    assert back.health.strip() == "ok"
