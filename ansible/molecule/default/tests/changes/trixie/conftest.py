"""The changes on the converged Debian 13 host: five playbook runs, each changing what several
tests look at (issue 37's time budget: a run here costs about a minute, the settings are
independent, so they share runs instead of one run per setting and mode):

  proxy-1   fox_avatar_nginx_http3=false, fox_avatar_nginx_access_log=full   (the proxy play only)
  proxy-2   HTTP/3 back to its default, the access log off                   (the proxy play only)
  port-taken   fox_avatar_app_metrics_port on a port another unit holds: the run fails
  back      every setting back to its default: the service up, the access log anonymous again
  again     the same once more: nothing changes

proxy-1 and proxy-2 change Nginx's settings alone: proxy_only runs (../conftest.py). Each fixture is the run and what was seen right after it,
before the next run changes the host: the HTTP/3 state, one round of requests carrying known
values (logprobe), the logs. The tests by topic: test_1 HTTP/3, test_2 the access log, test_3 the
taken port, test_4 the last run."""
from types import SimpleNamespace

import foxmol
import logprobe
import probes
import pytest
import testinfra

TAKEN = 9181   # the /metrics port another unit holds (port-taken)


def http3_seen(host_name, addr, network, ca):
    """What HTTP/3 looks like on the host now."""
    host = testinfra.get_host(f"docker://{host_name}")
    state = SimpleNamespace(h3=probes.h3_get(network, ca, addr), alt=probes.alt_svc(addr, ca),
                            udp=probes.udp_443(host), code=probes.https_code(addr, ca, "/"))
    print(state)
    return state


@pytest.fixture(scope="session")
def nginx_pid_before(host_name):
    return foxmol.nginx_pid(host_name)


@pytest.fixture(scope="session")
def proxy_1(host_name, addr, network, server_ca_session, nginx_pid_before, proxy_only):
    run = foxmol.playbook("proxy-1-http3-off-log-full", env=proxy_only, extra_vars={
        "fox_avatar_nginx_http3": False, "fox_avatar_nginx_access_log": "full"})
    http3 = http3_seen(host_name, addr, network, server_ca_session)
    visit = logprobe.Visit("full-8d41b0")
    answers = logprobe.visit(host_name, visit)
    return SimpleNamespace(run=run, http3=http3, visit=visit, answers=answers, logs=logprobe.logs(host_name))


@pytest.fixture(scope="session")
def proxy_2(host_name, addr, network, server_ca_session, proxy_1, proxy_only):
    run = foxmol.playbook("proxy-2-http3-on-log-off", env=proxy_only,
                          extra_vars={"fox_avatar_nginx_access_log": "off"})
    http3 = http3_seen(host_name, addr, network, server_ca_session)
    visit = logprobe.Visit("off-c7e2f9")
    before = {name: logprobe.lines(host_name, name) for name in ("access.log", "fallback.log")}
    answers = logprobe.visit(host_name, visit)
    after = {name: logprobe.lines(host_name, name) for name in ("access.log", "fallback.log")}
    return SimpleNamespace(run=run, http3=http3, pid=foxmol.nginx_pid(host_name), visit=visit,
                           answers=answers, before=before, after=after, logs=logprobe.logs(host_name))


@pytest.fixture(scope="session")
def port_taken(host_name, addr, server_ca_session, proxy_2):
    # another service holding the port, as a unit of its own (stopped below)
    foxmol.host_exec(host_name, "systemd-run", "--unit", "fox-test-port-holder", "--quiet",
                     "python3", "-m", "http.server", str(TAKEN), "--bind", "127.0.0.1")
    foxmol.host_exec(host_name, "sh", "-c", f"for i in $(seq 50); do ss -ltn | grep -q ':{TAKEN} ' && exit 0;"
                     " sleep 0.2; done; exit 1")
    try:
        run = foxmol.playbook("port-taken", extra_vars={"fox_avatar_app_metrics_port": TAKEN,
                                                        "fox_avatar_app_health_timeout": 5,
                                                        "fox_avatar_nginx_access_log": "off"})
        front = probes.https_code(addr, server_ca_session, "/")
    finally:
        foxmol.host_exec(host_name, "systemctl", "stop", "fox-test-port-holder", check=False)
    return SimpleNamespace(run=run, front=front, port=TAKEN)


@pytest.fixture(scope="session")
def back(host_name, port_taken):
    run = foxmol.playbook("back")
    health = foxmol.host_exec(host_name, "python3", "-c", "import urllib.request; print(urllib.request"
                              ".urlopen('http://127.0.0.1:8080/healthz', timeout=5).read().decode())", check=False)
    visit = logprobe.Visit("back-3e95aa")
    answers = logprobe.visit(host_name, visit)
    return SimpleNamespace(run=run, health=health, visit=visit, answers=answers, logs=logprobe.logs(host_name))


@pytest.fixture(scope="session")
def again(back, whole):
    """The suite's last run: whole, the monitoring role included."""
    return foxmol.playbook("again", env=whole)
