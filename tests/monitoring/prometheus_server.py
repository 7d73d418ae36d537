"""Debian 12's Prometheus on loopback, scraping the monitored stack (edge.py) with the operator's file,
monitoring/prometheus/prometheus.yml, its default addresses moved to the stack's and the exporters'
free ports and its intervals to 1 s; and wrk putting a bounded load on the stack's front door.
No pytest fixtures here (conftest.py)."""
import json
import subprocess
import threading
import time
import urllib.error
import urllib.parse

import yaml

from monitoring.edge import MONITORING, Process
from stack.stacks import free_ports

PROMETHEUS = "prometheus"
WRK = "wrk"
CONFIG = MONITORING / "prometheus" / "prometheus.yml"
JOBS = ("fox-avatar-app", "fox-avatar-nginx", "fox-avatar-mtail", "fox-avatar-probe")
# What prometheus.yml names for each part, on one host with the defaults (docs/monitoring.md).
DEFAULT_APP, DEFAULT_NGINX_EXPORTER, DEFAULT_MTAIL, DEFAULT_BLACKBOX = (
    "127.0.0.1:8081", "127.0.0.1:9113", "127.0.0.1:3903", "127.0.0.1:9115")
PUBLIC_URL = "https://avatar.example.org/"
INTERVAL = "1s"


def render_config(edge, blackbox):
    """prometheus.yml with the loopback addresses: the sidecar's /metrics listener, nginx-exporter,
    mtail and blackbox_exporter on their free ports, the probes aimed at the stack's HTTPS port, every
    interval 1 s, and the rules file by its absolute path (the file names it relative to itself)."""
    text = CONFIG.read_text()
    for old, new in {DEFAULT_APP: f"127.0.0.1:{edge.metrics_port}",
                     DEFAULT_NGINX_EXPORTER: f"127.0.0.1:{edge.nginx_exporter.port}",
                     DEFAULT_MTAIL: f"127.0.0.1:{edge.mtail.port}",
                     DEFAULT_BLACKBOX: f"127.0.0.1:{blackbox.port}",
                     PUBLIC_URL: f"https://127.0.0.1:{edge.https_port}/"}.items():
        assert old in text, f"{CONFIG.name} names no {old} any more: update {__name__}"
        text = text.replace(old, new)
    config = yaml.safe_load(text)
    config["global"].update(scrape_interval=INTERVAL, evaluation_interval=INTERVAL)
    config["rule_files"] = [str(CONFIG.parent / name) for name in config["rule_files"]]
    return yaml.safe_dump(config, sort_keys=False)


class Prometheus(Process):
    """prometheus as a child process: its own TSDB in a temp dir, its web UI and API on a free port."""

    def __init__(self, config, tmp, log_dir):
        port, = free_ports(1)
        super().__init__("prometheus", [
            PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={tmp / 'prometheus-data'}",
            f"--web.listen-address=127.0.0.1:{port}"], port, log_dir)
        self.url = f"http://127.0.0.1:{port}"
        # It listens before its storage is open, answering 503 until then.
        deadline = time.monotonic() + 30
        while not self.ready():
            assert self.proc.poll() is None, f"prometheus exited: {self.log.read_text()[-2000:]}"
            assert time.monotonic() < deadline, f"prometheus not ready within 30 s: {self.log}"
            time.sleep(0.1)

    def ready(self):
        try:
            return self.get("/-/ready") is not None
        except urllib.error.URLError:
            return False

    def api(self, path, **params):
        """GET /api/v1/PATH?params: its "data" (asserting "status": "success")."""
        body = json.loads(self.get(f"/api/v1/{path}?{urllib.parse.urlencode(params)}"))
        assert body["status"] == "success", body
        return body["data"]

    def query(self, expr, **params):
        """An instant query: {frozenset of its labels: value}."""
        data = self.api("query", query=expr, **params)
        assert data["resultType"] == "vector", data
        return {frozenset(r["metric"].items()): float(r["value"][1]) for r in data["result"]}

    def wait_for_targets(self, seconds=30):
        """Wait until every target has been scraped, healthy, since now; returns the active targets."""
        start = time.time()

        def scraped():
            targets = self.api("targets", state="active")["activeTargets"]
            fresh = [t for t in targets if t["health"] == "up"
                     and rfc3339_seconds(t["lastScrape"]) > start]
            return targets if targets and len(fresh) == len(targets) else None
        deadline = time.monotonic() + seconds
        while not (targets := scraped()):
            assert time.monotonic() < deadline, (
                f"not every target up within {seconds} s: {self.api('targets', state='active')}")
            time.sleep(0.2)
        return targets


def rfc3339_seconds(stamp):
    """Prometheus's lastScrape/lastEvaluation (2026-11-25T13:23:24.123456789Z) in Unix seconds."""
    from datetime import datetime
    head, _, frac = stamp.rstrip("Z").partition(".")
    return datetime.fromisoformat(head + "+00:00").timestamp() + float(f"0.{frac or 0}")


# One wrk (keep-alive, Debian's package) per kind of avatar URL: (path, Accept, connections).
LOAD = {
    "random": ("/?s=64", "image/png", 2),
    "keyed": ("/?s=64&u=ada%40example.org", "image/avif,image/webp,image/png,*/*;q=0.8", 2),
    "gravatar": ("/avatar/0123456789abcdef0123456789abcdef?s=80", "image/webp,image/png,*/*;q=0.8", 1),
}


def run_load(edge, plan, log_dir):
    """plan: [(kind of LOAD, start s, seconds)]: each kind's wrk started at its second and run for its
    seconds, all against the stack's HTTPS port; returns when the last has ended. wrk does not follow
    the 302s: every request is one answer of the sidecar, counted under its route."""
    procs, threads = [], []

    def one(kind, start, seconds):
        path, accept, conns = LOAD[kind]
        time.sleep(start)
        log = open(log_dir / f"wrk-{kind}-{start}.log", "wb")
        proc = subprocess.Popen([WRK, "-t1", f"-c{conns}", f"-d{seconds}s", "--timeout", "5s",
                                 "-H", f"Accept: {accept}", f"https://127.0.0.1:{edge.https_port}{path}"],
                                stdout=log, stderr=subprocess.STDOUT)
        procs.append((kind, proc, log.name))
        proc.wait(seconds + 60)
    for kind, start, seconds in plan:
        threads.append(threading.Thread(target=one, args=(kind, start, seconds)))
        threads[-1].start()
    for t in threads:
        t.join()
    for kind, proc, log in procs:
        assert proc.returncode == 0, f"wrk ({kind}) exited {proc.returncode}: {open(log).read()[-500:]}"
