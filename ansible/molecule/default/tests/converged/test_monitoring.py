"""Monitoring on the converged host (fox_avatar_monitoring_enabled, the host also in the group
monitoring): Debian's exporters and Prometheus from the playbook, every target up in Prometheus's
own API, the sidecar's and the fallback's counters moving by exactly what was sent, every listener
on loopback only and none through the public port, the files from monitoring/ as they are, and what
promtool says of the configuration, the rules and the files exported for an own Prometheus."""
import json
import os
import subprocess
import time
import urllib.parse
from pathlib import Path

import foxmol
import logprobe
import probes
import pytest
from monitoring.edge import parse_metrics

REPO = Path(__file__).resolve().parents[5]
PROMETHEUS = "http://127.0.0.1:9090"
# port -> what listens there (all of them on fox_avatar_monitoring_address: loopback by default)
LISTENERS = {8081: "the sidecar's /metrics", 8082: "Nginx's stub_status", 9113: "nginx-exporter",
             3903: "mtail", 9115: "blackbox_exporter", 9090: "Prometheus"}
FEED = 5140   # Nginx's fallback feed, UDP, to mtail
JOBS = {"prometheus": 1, "fox-avatar-app": 1, "fox-avatar-nginx": 1, "fox-avatar-mtail": 1,
        "fox-avatar-probe": 2}   # the probe: one target per blackbox module
VISIT = logprobe.Visit("monitoring-3f7d")

# Runs on the host: GET one URL, wait (up to a deadline) until a Python expression over its JSON
# holds; prints the last JSON.
_GET = r"""
import json, sys, time, urllib.request
url, check, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
end = time.monotonic() + seconds
while True:
    try:
        body = urllib.request.urlopen(url, timeout=5).read().decode()
    except OSError as e:
        body = json.dumps({"error": str(e)})
    data = json.loads(body) if check else body
    if not check or eval(check, {"data": data}) or time.monotonic() > end:
        break
    time.sleep(1)
print(body)
"""


def get(host_name, url, until="", seconds=0):
    return foxmol.host_exec(host_name, "python3", "-c", _GET, url, until, str(seconds))


def metrics(host_name, port):
    return parse_metrics(get(host_name, f"http://127.0.0.1:{port}/metrics"))


def by(samples, name, *labels):
    """{(label values...): summed value} of one metric."""
    out = {}
    for (n, ls), v in samples.items():
        if n == name:
            key = tuple(dict(ls).get(label, "") for label in labels)
            out[key] = out.get(key, 0) + v
    return out


def delta(after, before):
    return {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}


def fallback_counts(host_name):
    return by(metrics(host_name, 3903), "fox_avatar_fallback_answers_total", "route", "status")


def fresh_mtail(host_name, seconds=30):
    """mtail restarted, once it answers: its counter from nothing. (Debian 12's mtail takes the feed's
    datagrams a few per second: after the shared suite's hundreds of fallback answers it lags behind
    for a minute, so a running one's counter cannot be read "before".)"""
    foxmol.host_exec(host_name, "systemctl", "restart", "mtail")
    deadline = time.monotonic() + seconds
    while True:
        try:
            return fallback_counts(host_name)
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def counted_fallback(host_name, at_least, seconds=30):
    """mtail's counter once it holds at least at_least answers (it counts a datagram a moment after
    it arrives), and a second later: what it counted, more included."""
    deadline = time.monotonic() + seconds
    while sum(fallback_counts(host_name).values()) < at_least and time.monotonic() < deadline:
        time.sleep(0.5)
    time.sleep(1)
    return fallback_counts(host_name)


@pytest.fixture(scope="module")
def since(host_name):
    """The host's clock (Unix seconds) when this module starts: a scrape before it says nothing of
    the state the tests below look at (Prometheus keeps a target's last result until the next)."""
    return int(foxmol.host_exec(host_name, "date", "+%s"))


@pytest.fixture(scope="module")
def counted(host_name, since):
    """One round of requests with the sidecar up (its counter, read just before and after), one
    while it is stopped (the scenario's stopped-sidecar step) counted by a freshly started mtail.
    Meanwhile the probe is stopped: its GET / every 15 s would be counted too."""
    foxmol.host_exec(host_name, "systemctl", "stop", "prometheus-blackbox-exporter")
    try:
        app_before = by(metrics(host_name, 8081), "fox_avatar_requests_total", "route", "status")
        up = logprobe.send(host_name, VISIT)
        app_after = by(metrics(host_name, 8081), "fox_avatar_requests_total", "route", "status")
        mtail_before = fresh_mtail(host_name)
        stopped = logprobe.send_stopped(host_name, VISIT)
        answered = sum(1 for line in stopped.splitlines() if line.startswith(("/ ", "/avatar/")))
        mtail_after = counted_fallback(host_name, answered)
    finally:
        foxmol.host_exec(host_name, "systemctl", "start", "prometheus-blackbox-exporter")
    return {"up": up, "stopped": stopped, "app": delta(app_after, app_before),
            "mtail_before": mtail_before, "fallback": delta(mtail_after, mtail_before)}


def test_sidecar_counter_moves_by_exactly_the_requests_it_answered(counted):
    statuses = [line.split()[2] for line in counted["up"].splitlines() if line.startswith("/")]
    assert statuses == ["302", "302", "302", "404"], counted["up"]
    # /?u=KEY: keyed; /avatar/MD5 and /avatar/SHA256: gravatar; the unknown path is Nginx's 404
    assert counted["app"] == {("keyed", "302"): 1, ("gravatar", "302"): 2}, counted


def test_fallback_counter_rises_by_exactly_the_answers_nginx_gave_itself(counted):
    statuses = [line.split()[2] for line in counted["stopped"].splitlines() if line.startswith("/")]
    assert statuses == ["302", "302", "302", "404"], counted["stopped"]
    assert counted["mtail_before"] == {}, counted
    assert counted["fallback"] == {("/", "302"): 1, ("/avatar/", "302"): 2}, counted


def test_every_prometheus_target_is_up(host_name, since):
    """Every target of the host's Prometheus, each scraped since this module started, is up."""
    fresh = "__import__('calendar').timegm(__import__('time').strptime(t['lastScrape'][:19], '%%Y-%%m-%%dT%%H:%%M:%%S')) > %d"
    until = ("'data' in data and len(data['data']['activeTargets']) == %d and "
             "all(t['health'] == 'up' and %s for t in data['data']['activeTargets'])"
             % (sum(JOBS.values()), fresh % since))
    targets = json.loads(get(host_name, f"{PROMETHEUS}/api/v1/targets", until, 90))["data"]["activeTargets"]
    seen = {}
    for t in targets:
        print(t["labels"]["job"], t["labels"]["instance"], t["health"], t.get("lastError", ""))
        seen[t["labels"]["job"]] = seen.get(t["labels"]["job"], 0) + 1
    assert seen == JOBS
    assert {t["health"] for t in targets} == {"up"}, targets


def test_the_probe_finds_the_front_door_working(host_name, since):
    """blackbox_exporter's modules (monitoring/blackbox/blackbox.yml) through Prometheus: both
    probe_success 1 in a probe since this module started, with the host's self-signed certificate
    as the probe's CA."""
    until = ("'data' in data and len(data['data']['result']) == 2 and "
             "all(r['value'][1] == '1' for r in data['data']['result'])")
    query = urllib.parse.quote(f"probe_success and timestamp(probe_success) > {since}")
    result = json.loads(get(host_name, f"{PROMETHEUS}/api/v1/query?query={query}", until, 60))
    got = {r["metric"]["module"]: r["value"][1] for r in result["data"]["result"]}
    assert got == {"fox_avatar_redirect": "1", "fox_avatar_image": "1"}, result


def test_nginx_exporter_reads_stub_status_with_this_releases_flag_spelling(host, host_name, suite):
    """Debian 12's nginx-exporter (0.11) takes -nginx.scrape-uri, Debian 13's (1.4) --nginx.scrape-uri."""
    args = host.file("/etc/default/prometheus-nginx-exporter").content_string
    dash = "-" if suite == "bookworm" else "--"
    assert f'ARGS="{dash}nginx.scrape-uri=http://127.0.0.1:8082/stub_status ' in args, args
    assert host.service("prometheus-nginx-exporter").is_running
    assert by(metrics(host_name, 9113), "nginx_up") == {(): 1.0}


@pytest.mark.parametrize("port", sorted(LISTENERS))
def test_monitoring_listener_is_on_loopback_only(host, port):
    found = sorted(s for s in host.socket.get_listening_sockets() if s.endswith(f":{port}"))
    assert found == [f"tcp://127.0.0.1:{port}"], f"{LISTENERS[port]}: {found}"


def test_fallback_feed_receiver_is_on_loopback_only(host):
    found = sorted(s for s in host.socket.get_listening_sockets() if s.endswith(f":{FEED}"))
    assert found == [f"udp://127.0.0.1:{FEED}"], found


@pytest.mark.parametrize("path", ["/metrics", "/stub_status"])
def test_metrics_and_status_paths_are_404_through_the_public_https_port(addr, server_ca, path):
    assert probes.https_code(addr, server_ca, path) == "404"


@pytest.mark.parametrize("installed, source", [
    ("/etc/prometheus/fox-avatar/fox-avatar.rules.yml", "monitoring/prometheus/fox-avatar.rules.yml"),
    ("/etc/mtail/fox-avatar.mtail", "monitoring/mtail/fox-avatar.mtail")])
def test_monitoring_files_are_those_of_the_repository(host, installed, source):
    assert host.file(installed).content_string == (REPO / source).read_text()


def test_promtool_accepts_the_configuration_with_the_targets_and_the_rules(host):
    out = host.run("promtool check config /etc/prometheus/prometheus.yml")
    print(out.stdout, out.stderr)
    assert out.rc == 0 and "1 rule files found" in out.stdout + out.stderr
    for job in JOBS:
        if job != "prometheus":
            assert host.file(f"/etc/prometheus/fox-avatar/targets/{job}.yml").exists


def test_promtool_accepts_the_installed_rules(host):
    out = host.run("promtool check rules /etc/prometheus/fox-avatar/fox-avatar.rules.yml")
    assert out.rc == 0, out.stdout + out.stderr


def test_files_exported_for_an_own_prometheus_pass_promtool(host, host_name):
    """fox_avatar_monitoring_export_dir (molecule.yml): copied to the same path on the host, its
    jobs under a minimal prometheus.yml with its rules, checked by the host's promtool."""
    export = Path(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "prometheus-export")
    names = sorted(str(p.relative_to(export)) for p in export.rglob("*") if p.is_file())
    assert names == ["fox-avatar.rules.yml", "scrape-configs.yml", *(f"targets/{j}.yml" for j in sorted(JOBS)
                                                                       if j != "prometheus")]
    assert (export / "fox-avatar.rules.yml").read_text() == \
        (REPO / "monitoring/prometheus/fox-avatar.rules.yml").read_text()
    # (tar through docker exec: the host's /tmp is a tmpfs, which docker cp cannot write into)
    foxmol.host_exec(host_name, "mkdir", "-p", str(export.parent))
    tar = subprocess.run(["tar", "-C", str(export.parent), "-c", export.name], capture_output=True, check=True)
    foxmol.docker("exec", "-i", host_name, "tar", "-C", str(export.parent), "-x", input=tar.stdout)
    jobs = (export / "scrape-configs.yml").read_text()
    config = (f"rule_files: [{export}/fox-avatar.rules.yml]\nscrape_configs:\n"
              + "".join(f"  {line}\n" for line in jobs.splitlines()))
    foxmol.docker("exec", "-i", host_name, "sh", "-c", f"cat > {export}/prometheus.yml", input=config)
    out = host.run(f"promtool check config {export}/prometheus.yml")
    print(out.stdout, out.stderr)
    assert out.rc == 0 and "1 rule files found" in out.stdout + out.stderr
