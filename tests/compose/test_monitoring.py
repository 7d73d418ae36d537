"""The monitoring profile as docs/monitoring.md starts it, on the README's stack: every Prometheus
target up (what catches a port that drifted), its containers hardened, the probe trusting the
served certificate without reading its key, nothing published but Prometheus' UI."""
import re

import pytest

from compose_helpers import compose, containers, inspect, prometheus, pytestmark, wait_for  # noqa: F401

PROFILE = ["blackbox", "mtail", "nginx-exporter", "prometheus"]
JOBS = {"fox-avatar-app": 1, "fox-avatar-mtail": 1, "fox-avatar-nginx": 1, "fox-avatar-probe": 2}


def test_every_prometheus_target_is_up_and_every_probe_passes():
    def up():
        targets = prometheus("targets")["activeTargets"]
        by_job = {job: [t for t in targets if t["labels"]["job"] == job] for job in JOBS}
        return all(len(by_job[j]) == n and all(t["health"] == "up" for t in by_job[j]) for j, n in JOBS.items())
    try:
        wait_for("every target up", up, timeout=90, interval=2)
    finally:
        print({t["scrapeUrl"]: (t["health"], t["lastError"]) for t in prometheus("targets")["activeTargets"]})
    wait_for("both probes passing", lambda: [s["value"][1] for s in prometheus(
        "query", query='probe_success{job="fox-avatar-probe"}')["result"]] == ["1", "1"], timeout=60, interval=2)
    assert {r["name"] for g in prometheus("rules")["groups"] for r in g["rules"]}, "the alerts are loaded"


@pytest.mark.parametrize("service", PROFILE)
def test_monitoring_containers_are_hardened(service):
    (container,) = containers(service)
    info = inspect(container)
    host = info["HostConfig"]
    assert host["ReadonlyRootfs"] and host["CapDrop"] == ["ALL"] and "no-new-privileges:true" in host["SecurityOpt"]
    assert host["Memory"] > 0 and info["State"]["Health"]["Status"] == "healthy"
    status = compose("exec", "-T", service, "cat", "/proc/1/status").stdout
    assert "0" not in re.search(r"^Uid:\s+(.*)$", status, re.M).group(1).split()


def test_the_probe_reads_the_served_certificate_but_not_its_key():
    assert compose("exec", "-T", "blackbox", "cat", "/etc/nginx/tls/fullchain.pem").stdout.startswith("-----BEGIN")
    key = compose("exec", "-T", "blackbox", "cat", "/etc/nginx/tls/privkey.pem", check=False)
    assert key.returncode != 0 and "Permission denied" in key.stderr


def test_only_nginx_and_prometheus_publish_a_port_on_loopback():
    published = {(service, port, b["HostIp"]) for service in ["app", "nginx", *PROFILE]
                 for c in containers(service)
                 for port, bindings in (inspect(c)["NetworkSettings"]["Ports"] or {}).items() for b in bindings or []}
    assert published == {("nginx", "8443/tcp", "127.0.0.1"), ("nginx", "8443/udp", "127.0.0.1"),
                         ("nginx", "8080/tcp", "127.0.0.1"), ("prometheus", "9090/tcp", "127.0.0.1")}
