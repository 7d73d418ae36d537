"""The converged host's units, the service's user, its sandbox and its listener."""
import re

import pytest

UNITS = ["fox-avatar", "nginx"]


@pytest.mark.parametrize("unit", UNITS)
def test_unit_is_active(host, unit):
    assert host.service(unit).is_running


@pytest.mark.parametrize("unit", UNITS)
def test_unit_is_enabled(host, unit):
    assert host.service(unit).is_enabled


def test_service_runs_as_its_own_unprivileged_system_user(host):
    pid = host.check_output("systemctl show -p MainPID --value fox-avatar")
    user, uid = host.check_output("stat -c '%%U %%u' /proc/%s", pid).split()
    print(f"fox-avatar main PID {pid} runs as {user} (uid {uid})")
    assert user == "fox-avatar" and 0 < int(uid) < 1000


def test_sandbox_exposure_is_at_most_2_0(host):
    out = host.run("systemd-analyze security --no-pager fox-avatar.service")
    text = out.stdout + out.stderr
    print("\n".join(line for line in text.splitlines() if line.startswith("✗")))
    score = re.search(r"Overall exposure level for fox-avatar\.service: ([0-9.]+)", text)
    print(f"systemd-analyze security fox-avatar.service: exposure {score[1] if score else '?'} "
          "(target <= 2.0)")
    assert score and float(score[1]) <= 2.0, text


def test_service_listens_on_loopback_only(host):
    listeners = sorted({s for s in host.socket.get_listening_sockets()
                        if s.startswith("tcp://") and s.endswith(":8080")})
    assert listeners == ["tcp://127.0.0.1:8080"]
