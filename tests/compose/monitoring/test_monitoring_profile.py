"""The monitoring profile: `docker compose --profile monitoring up` adds Prometheus, nginx-exporter,
mtail and blackbox_exporter (Debian 13's packages, monitoring/compose/) to the running project, and
without the profile nothing changes.

Runs against the project tests/compose/run.sh started, after tests/compose (it exports
COMPOSE_PROJECT_NAME, COMPOSE_FILE, AVATAR_HTTPS_PORT, AVATAR_HTTP_PORT, AVATAR_PROMETHEUS_PORT and
AVATAR_CA). The first test looks at the stack without the profile; the `prometheus` fixture then
brings the profile up with the test's own settings: test-only copies of monitoring/compose/prometheus.yml
(scrapes, evaluations and DNS discovery every 2 s) and of monitoring/prometheus/fox-avatar.rules.yml
(every `for:` 4 s), made here from the shipped files, which stay as they are. In file order: the
crash and scaling tests change the stack, so they come last.
"""
import os
import re
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest
import requests
import yaml
from cryptography import x509

from compose_helpers import (IMAGE_LOCATIONS, SITE_CONF, compose, get_avatar, https_url, inspect,
                          served_certificate, wait_for)

ROOT = Path(__file__).resolve().parents[3]
PROMETHEUS_YML = ROOT / "monitoring" / "compose" / "prometheus.yml"
RULES = ROOT / "monitoring" / "prometheus" / "fox-avatar.rules.yml"
NEEDED = ("COMPOSE_PROJECT_NAME", "COMPOSE_FILE", "AVATAR_HTTPS_PORT", "AVATAR_HTTP_PORT",
          "AVATAR_PROMETHEUS_PORT", "AVATAR_CA")
PROFILE = ["blackbox", "mtail", "nginx-exporter", "prometheus"]
JOBS = ["fox-avatar-app", "fox-avatar-mtail", "fox-avatar-nginx", "fox-avatar-probe"]
APP_METRICS_PORT = 8081   # app/Dockerfile: AVATAR_METRICS_PORT

pytestmark = pytest.mark.skipif(
    any(not os.environ.get(v) for v in NEEDED),
    reason="needs a running compose project: run tests/compose/run.sh (make test-compose)")

# Every compose call once the profile is up: the profile on, and the test's own Prometheus files.
ENV = {}
# When the profile came up (Unix seconds): fresh() ignores samples older than that (a volume kept
# from an earlier run keeps its series visible for 5 minutes).
UP = {}


def mon(*args, **kwargs):
    return compose(*args, env=ENV, **kwargs)


def ids(service, all_states=False):
    return mon("ps", "-q", *(["-a"] if all_states else []), service).stdout.split()


def api(path, **params):
    r = requests.get(f"http://127.0.0.1:{os.environ['AVATAR_PROMETHEUS_PORT']}/api/v1/{path}",
                     params=params, timeout=10)
    r.raise_for_status()
    return r.json()["data"]


def query(expr):
    """{frozenset of the labels but __name__: value} of an instant query."""
    return {frozenset((k, v) for k, v in s["metric"].items() if k != "__name__"): float(s["value"][1])
            for s in api("query", query=expr)["result"]}


def fresh(expr):
    """query(expr), only the samples scraped since the profile came up."""
    return query(f"({expr}) and (timestamp({expr}) > {UP['since']})")


def targets(job=None):
    return [t for t in api("targets", state="active")["activeTargets"]
            if job is None or t["labels"]["job"] == job]


def test_without_the_profile_the_stack_is_exactly_the_two_containers():
    compose("up", "-d", "--wait", "--no-build")          # back to one app replica after tests/compose
    assert sorted(compose("config", "--services").stdout.split()) == ["app", "nginx"]   # in no set order
    running = compose("ps", "-a", "--format", "{{.Service}}").stdout.split()
    assert sorted(running) == ["app", "nginx"]
    project = os.environ["COMPOSE_PROJECT_NAME"]
    everything = subprocess.run(["docker", "ps", "-a", "-q", "--filter",
                                 f"label=com.docker.compose.project={project}"],
                                capture_output=True, text=True, check=True).stdout.split()
    assert len(everything) == 2


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory):
    """The profile up on the same project, with the test's own copies of the Prometheus files."""
    tmp = tmp_path_factory.mktemp("monitoring")
    tmp.chmod(0o755)
    config = yaml.safe_load(PROMETHEUS_YML.read_text())
    config["global"].update(scrape_interval="2s", evaluation_interval="2s")
    for job in config["scrape_configs"]:
        for sd in job.get("dns_sd_configs", []):
            sd["refresh_interval"] = "2s"
    rules = yaml.safe_load(RULES.read_text())
    for group in rules["groups"]:
        for rule in group["rules"]:
            rule["for"] = "4s"
    (tmp / "rules").mkdir(mode=0o755)
    (tmp / "prometheus.yml").write_text(yaml.safe_dump(config))
    (tmp / "rules" / RULES.name).write_text(yaml.safe_dump(rules))
    for f in (tmp / "prometheus.yml", tmp / "rules" / RULES.name):
        f.chmod(0o644)
    # Compose merges the volumes by their target: these two replace the shipped files' mounts.
    override = {"services": {"prometheus": {"volumes": [
        {"type": "bind", "source": str(tmp / "prometheus.yml"), "target": "/etc/prometheus/prometheus.yml",
         "read_only": True},
        {"type": "bind", "source": str(tmp / "rules"), "target": "/etc/prometheus/rules", "read_only": True},
    ]}}}
    (tmp / "override.yml").write_text(yaml.safe_dump(override))
    ENV.update(os.environ, COMPOSE_PROFILES="monitoring",
               COMPOSE_FILE=os.environ["COMPOSE_FILE"] + os.pathsep + str(tmp / "override.yml"))
    started = time.monotonic()
    UP["since"] = time.time()
    mon("up", "-d", "--wait", "--build", "--wait-timeout", "300", timeout=600)
    print(f"\nprofile up (build included): {time.monotonic() - started:.0f} s")
    yield
    ENV.clear()


def all_up():
    found = targets()
    return (sorted({t["labels"]["job"] for t in found}) == JOBS
            and all(t["health"] == "up" for t in found)) and found


def test_every_prometheus_target_is_up(prometheus):
    found = wait_for("every target up", all_up, timeout=90)
    by_job = {}
    for t in found:
        by_job.setdefault(t["labels"]["job"], []).append(t)
    # one app replica, both exporters on Nginx's address, the two probe modules
    assert len(by_job["fox-avatar-app"]) == 1
    assert [t["labels"]["instance"] for t in by_job["fox-avatar-nginx"]] == ["nginx:9113"]
    assert [t["labels"]["instance"] for t in by_job["fox-avatar-mtail"]] == ["nginx:3903"]
    assert sorted(t["labels"]["module"] for t in by_job["fox-avatar-probe"]) == \
        ["fox_avatar_image", "fox_avatar_redirect"]
    # and what they say: Nginx's stub_status read, the front door and the image behind it pass
    wait_for("nginx_up and both probes", lambda: (
        set(fresh('nginx_up{job="fox-avatar-nginx"}').values()) == {1.0}
        and sorted(fresh('probe_success{job="fox-avatar-probe"}').values()) == [1.0, 1.0]), timeout=30)
    assert fresh('fox_avatar_build_info{job="fox-avatar-app"}'), "the sidecar's own metrics are scraped"
    # the shipped rules are loaded (here: the test's copy, the same alerts)
    names = {r["name"] for g in api("rules")["groups"] for r in g["rules"]}
    assert names == {r["alert"] for g in yaml.safe_load(RULES.read_text())["groups"] for r in g["rules"]}


@pytest.mark.parametrize("service", PROFILE)
def test_monitoring_containers_are_hardened(prometheus, service):
    (container,) = ids(service)
    info = inspect(container)
    host = info["HostConfig"]
    assert host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"] and not host["CapAdd"]
    assert "no-new-privileges:true" in host["SecurityOpt"]
    assert host["Memory"] > 0
    assert host["RestartPolicy"]["Name"] == "unless-stopped"
    assert host["LogConfig"]["Type"] == "local" and host["LogConfig"]["Config"].get("max-size")
    assert info["State"]["Health"]["Status"] == "healthy"
    status = mon("exec", "-T", service, "cat", "/proc/1/status").stdout
    uids = re.search(r"^Uid:\s+(.*)$", status, re.M).group(1).split()
    assert all(u != "0" for u in uids), f"{service} runs with uids {uids}"
    assert int(re.search(r"^CapEff:\s+(\w+)$", status, re.M).group(1), 16) == 0
    write = mon("exec", "-T", service, "bash", "-c", "echo x > /probe", check=False)
    assert write.returncode != 0 and "Read-only file system" in write.stderr


def test_blackbox_reads_the_served_certificate_but_not_its_key(prometheus):
    cert = mon("exec", "-T", "blackbox", "cat", "/etc/nginx/tls/fullchain.pem").stdout
    assert cert == compose("exec", "-T", "nginx", "cat", "/etc/nginx/tls/fullchain.pem").stdout
    key = mon("exec", "-T", "blackbox", "cat", "/etc/nginx/tls/privkey.pem", check=False)
    assert key.returncode != 0 and "Permission denied" in key.stderr


def test_exporters_read_the_addresses_nginx_was_rendered_with(prometheus):
    """One fact, two readers: the site file's status listener and fallback feed (nginx/compose/
    entrypoint.d/30-site.sh) are what nginx-exporter scrapes and mtail listens on: their running
    processes' arguments (both images read the ports from ports.env, as 30-site.sh does)."""
    site = compose("exec", "-T", "nginx", "cat", SITE_CONF).stdout
    status_server = site[site.index("# Nginx's counters (stub_status)"):]
    (listen,) = re.findall(r"^\s*listen (\S+);", status_server, re.M)
    (feed,) = re.findall(r"syslog:server=([^,]+),", site)
    assert listen.startswith("127.0.0.1:") and feed.startswith("127.0.0.1:"), "loopback only"
    exporter_args = mon("exec", "-T", "nginx-exporter", "cat", "/proc/1/cmdline").stdout.split("\0")
    mtail_args = mon("exec", "-T", "mtail", "cat", "/proc/1/cmdline").stdout.split("\0")
    assert exporter_args[0] == "/usr/bin/prometheus-nginx-exporter" and mtail_args[0] == "/usr/bin/mtail", \
        "the exporters are PID 1 (bash execs them)"
    assert f"--nginx.scrape-uri=http://{listen}/stub_status" in exporter_args
    assert mtail_args[mtail_args.index("-logs") + 1] == f"udp://{feed}"


def test_metrics_and_stub_status_are_neither_public_nor_published(prometheus):
    for path in ("/metrics", "/stub_status"):
        r = requests.get(https_url(path), verify=os.environ["AVATAR_CA"], allow_redirects=False, timeout=5)
        assert r.status_code == 404, (path, r.status_code)
        r = requests.get(f"http://localhost:{os.environ['AVATAR_HTTP_PORT']}{path}", allow_redirects=False,
                         timeout=5)
        assert r.status_code == 308 and r.headers["Location"] == https_url(path), (path, r.status_code)
    # What the project publishes, every container: Nginx's two ports and Prometheus' UI, on 127.0.0.1.
    published = set()
    for service in ["app", "nginx", *PROFILE]:
        for container in ids(service):
            for port, bindings in (inspect(container)["NetworkSettings"]["Ports"] or {}).items():
                for b in bindings or []:
                    published.add((service, port, b["HostIp"], b["HostPort"]))
    https, http, ui = (os.environ[v] for v in ("AVATAR_HTTPS_PORT", "AVATAR_HTTP_PORT", "AVATAR_PROMETHEUS_PORT"))
    assert published == {("nginx", "8443/tcp", "127.0.0.1", https), ("nginx", "8443/udp", "127.0.0.1", https),
                         ("nginx", "8080/tcp", "127.0.0.1", http), ("prometheus", "9090/tcp", "127.0.0.1", ui)}
    # and compose agrees: no host port for the sidecar's metrics or an exporter's
    for service, port in (("app", APP_METRICS_PORT), ("blackbox", 9115), ("prometheus", 9090)):
        done = mon("port", service, str(port), check=False)
        assert (done.stdout.strip() == f"127.0.0.1:{ui}") == (service == "prometheus"), (service, done.stdout)


def test_probe_reports_the_served_certificates_expiry(prometheus):
    not_after = int(x509.load_pem_x509_certificate(served_certificate().encode())
                    .not_valid_after_utc.timestamp())
    expiry = wait_for("probe_ssl_earliest_cert_expiry of both modules", lambda: (
        len(found := fresh('probe_ssl_earliest_cert_expiry{job="fox-avatar-probe"}')) == 2 and found), timeout=30)
    assert set(expiry.values()) == {float(not_after)}


def sidecar_down(instance):
    """The states of FoxAvatarSidecarDown for this app target, or for no target at all (absent())."""
    return {a["state"] for a in api("alerts")["alerts"]
            if a["labels"]["alertname"] == "FoxAvatarSidecarDown"
            and a["labels"].get("instance", instance) == instance}


def test_stopping_the_app_fires_sidecar_down_and_mtail_counts_the_fallback(prometheus):
    (app,) = wait_for("the app target up", lambda: [
        t["labels"]["instance"] for t in targets("fox-avatar-app") if t["health"] == "up"], timeout=60)
    # (at start, before the first scrape of the app, absent() may have made it pending)
    wait_for("FoxAvatarSidecarDown quiet", lambda: sidecar_down(app) == set(), timeout=60)
    before = sum(query('fox_avatar_fallback_answers_total{job="fox-avatar-mtail",route="/",status="302"}')
                 .values())
    mon("stop", "app")
    try:
        answers = [get_avatar(uuid.uuid4().hex) for _ in range(5)]
        assert all(r.status_code == 302 and r.headers["Location"] in IMAGE_LOCATIONS for r in answers)
        wait_for("FoxAvatarSidecarDown firing", lambda: "firing" in sidecar_down(app), timeout=60)
        wait_for("the fallback's 5 answers counted", lambda: sum(query(
            'fox_avatar_fallback_answers_total{job="fox-avatar-mtail",route="/",status="302"}').values())
            >= before + 5, timeout=30)
    finally:
        mon("up", "-d", "--wait", "--no-recreate", "app")
    wait_for("the sidecar scraped again", lambda: [t["health"] for t in targets("fox-avatar-app")] == ["up"],
             timeout=60)


def test_exporters_follow_nginx_when_it_crashes_and_restarts(prometheus):
    """A restarted Nginx has a new network namespace; the exporters' health check notices and
    stops them, and their restart policy starts them in the new one."""
    (nginx,) = ids("nginx")
    restarts = {s: inspect(ids(s)[0])["RestartCount"] for s in ("nginx-exporter", "mtail")}
    killed = time.time()
    os.kill(inspect(nginx)["State"]["Pid"], signal.SIGKILL)   # a crash: the engine restarts it
    wait_for("both exporters restarted", lambda: all(
        inspect(ids(s, all_states=True)[0])["RestartCount"] > n for s, n in restarts.items()), timeout=90)

    def scraped_since_restart():
        started = fresh('process_start_time_seconds{job=~"fox-avatar-(nginx|mtail)"}')
        return (len(started) == 2 and min(started.values()) > killed
                and set(fresh('up{job=~"fox-avatar-(nginx|mtail)"}').values()) == {1.0}
                and set(fresh('nginx_up{job="fox-avatar-nginx"}').values()) == {1.0})
    wait_for("nginx and mtail targets scraped from the restarted exporters", scraped_since_restart, timeout=60)


def test_prometheus_discovers_every_app_replica_by_dns(prometheus):
    mon("up", "-d", "--wait", "--no-recreate", "--scale", "app=2")
    replicas = ids("app")
    assert len(replicas) == 2
    want = {f"{next(iter(inspect(c)['NetworkSettings']['Networks'].values()))['IPAddress']}:{APP_METRICS_PORT}"
            for c in replicas}
    wait_for(f"targets {sorted(want)} up", lambda: (
        {t["labels"]["instance"] for t in targets("fox-avatar-app") if t["health"] == "up"} == want
        and len(targets("fox-avatar-app")) == 2), timeout=60)
