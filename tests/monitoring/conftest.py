"""The monitoring layer's edge on loopback, started once: the loopback stack rendered with the
stub_status listener and the fallback feed (its access logs off: the feed must not depend on them),
Debian's mtail, nginx-exporter, blackbox_exporter and Prometheus as child processes on free ports with
the project's own files (monitoring/), and a headless Chromium for Prometheus's UI."""
import json
import re
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime
from pathlib import Path

import pytest
import yaml

import loopback
from settle import until
from stack.stacks import REPO, LoopbackStack, free_ports

MONITORING = REPO / "monitoring"
MTAIL_PROGS = MONITORING / "mtail"
BLACKBOX_CONFIG = MONITORING / "blackbox" / "blackbox.yml"
RULES = MONITORING / "prometheus" / "fox-avatar.rules.yml"
RULES_TESTS = MONITORING / "prometheus" / "fox-avatar.rules.test.yml"
CONFIG = MONITORING / "prometheus" / "prometheus.yml"
# Debian 12's names (Debian 13's are the same; nginx-exporter's flags there take two dashes).
MTAIL, NGINX_EXPORTER, BLACKBOX = "mtail", "prometheus-nginx-exporter", "prometheus-blackbox-exporter"
PROMTOOL, PROMETHEUS = "promtool", "prometheus"


class MonitoredStack(LoopbackStack):
    def __init__(self):
        self.status_port, self.feed_port = free_ports(2)
        super().__init__(access_log_mode="off", extra_variables={
            "avatar_status_listen": [f"127.0.0.1:{self.status_port}"],
            "avatar_fallback_syslog": f"127.0.0.1:{self.feed_port}"})

    def certificate_not_after(self):
        from cryptography import x509
        cert = x509.load_pem_x509_certificate((self.tmp / "fullchain.pem").read_bytes())
        return int(cert.not_valid_after_utc.timestamp())


class Process:
    """A child process listening on 127.0.0.1:port; its output in log_dir/NAME.log."""

    def __init__(self, name, args, port, log_dir):
        self.name, self.port, self.log = name, port, Path(log_dir) / f"{name}.log"
        self.proc = subprocess.Popen(args, stdout=open(self.log, "wb"), stderr=subprocess.STDOUT)
        loopback.wait_for_port(port, self.proc, name, self.log)

    def get(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=15) as r:
            return r.read().decode()

    def metrics(self, path="/metrics"):
        return parse_metrics(self.get(path))

    def close(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start(name, args, log_dir):
    """args: a function of the free port it gets."""
    port, = free_ports(1)
    return Process(name, args(port), port, log_dir)


def start_mtail(feed_port, log_dir):
    return start("mtail", lambda port: [MTAIL, "-progs", str(MTAIL_PROGS), "-logs", f"udp://127.0.0.1:{feed_port}",
                                        "-address", "127.0.0.1", "-port", str(port), "-emit_prog_label=false",
                                        "-logtostderr"], log_dir)


def start_nginx_exporter(status_port, log_dir):
    return start("nginx-exporter", lambda port: [NGINX_EXPORTER, f"-web.listen-address=127.0.0.1:{port}",
                                                 f"-nginx.scrape-uri=http://127.0.0.1:{status_port}/stub_status"],
                 log_dir)


def start_blackbox(config, log_dir):
    return start("blackbox", lambda port: [BLACKBOX, f"--config.file={config}",
                                           f"--web.listen-address=127.0.0.1:{port}"], log_dir)


_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_metrics(text):
    """Prometheus text format -> {(name, frozenset of (label, value)): float}."""
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            m = _SAMPLE.match(line)
            assert m, f"not a sample line: {line!r}"
            samples[(m.group(1), frozenset(_LABEL.findall(m.group(2) or "")))] = float(m.group(3))
    return samples


def value(samples, name, **labels):
    """The sample of name with exactly these labels, 0 when absent (a counter not yet incremented)."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def tool_missing(*names):
    return [n for n in names if not shutil.which(n)]


def render_config(edge, blackbox, mtail, nginx_exporter):
    """prometheus.yml with its default addresses moved to the loopback ports, every interval 1 s and
    the rules file by its absolute path."""
    text = CONFIG.read_text()
    for old, new in {"127.0.0.1:8081": f"127.0.0.1:{edge.metrics_port}",
                     "127.0.0.1:9113": f"127.0.0.1:{nginx_exporter.port}",
                     "127.0.0.1:3903": f"127.0.0.1:{mtail.port}", "127.0.0.1:9115": f"127.0.0.1:{blackbox.port}",
                     "https://avatar.example.org/": f"https://127.0.0.1:{edge.https_port}/"}.items():
        assert old in text, f"{CONFIG.name} names no {old} any more: update {__name__}"
        text = text.replace(old, new)
    config = yaml.safe_load(text)
    config["global"].update(scrape_interval="1s", evaluation_interval="1s")
    config["rule_files"] = [str(CONFIG.parent / name) for name in config["rule_files"]]
    return yaml.safe_dump(config, sort_keys=False)


def seconds(stamp):
    """Prometheus's lastScrape/lastEvaluation (2026-11-25T13:23:24.123456789Z) in Unix seconds."""
    head, _, frac = stamp.rstrip("Z").partition(".")
    return datetime.fromisoformat(head + "+00:00").timestamp() + float(f"0.{frac or 0}")


class Prometheus(Process):
    """Its own TSDB in tmp, its UI and API on a free port; ready (storage open) when constructed."""

    def __init__(self, config, tmp, log_dir):
        port, = free_ports(1)
        super().__init__("prometheus", [PROMETHEUS, f"--config.file={config}", f"--web.listen-address=127.0.0.1:{port}",
                                        f"--storage.tsdb.path={tmp / 'prometheus-data'}"], port, log_dir)
        self.url = f"http://127.0.0.1:{port}"
        until(self.ready, f"prometheus ready (its log: {self.log})", 30)

    def ready(self):
        try:
            return self.get("/-/ready") is not None
        except urllib.error.URLError:
            return False

    def api(self, path, **params):
        body = json.loads(self.get(f"/api/v1/{path}?{urllib.parse.urlencode(params)}"))
        assert body["status"] == "success", body
        return body["data"]

    def query(self, expr):
        """An instant query: {frozenset of its labels: value}."""
        return {frozenset(r["metric"].items()): float(r["value"][1]) for r in self.api("query", query=expr)["result"]}

    def wait_for_targets(self, timeout=30):
        """Until every target has been scraped, healthy, since now."""
        start = time.time()

        def scraped():
            targets = self.api("targets", state="active")["activeTargets"]
            return targets and all(t["health"] == "up" and seconds(t["lastScrape"]) > start for t in targets)
        until(scraped, "every target up", timeout)


def need(*tools):
    missing = tool_missing(*tools)
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (tests/monitoring/run.sh installs them)")


@pytest.fixture(scope="session")
def promtool():
    need(PROMTOOL)
    return PROMTOOL


@pytest.fixture(scope="session")
def edge():
    need(MTAIL, NGINX_EXPORTER)
    stack = MonitoredStack()
    stack.mtail = stack.nginx_exporter = None
    try:
        stack.mtail = start_mtail(stack.feed_port, stack.logs)
        stack.nginx_exporter = start_nginx_exporter(stack.status_port, stack.logs)
        yield stack
    finally:
        for process in (stack.mtail, stack.nginx_exporter):   # a test may have replaced mtail
            if process:
                process.close()
        stack.close()


@pytest.fixture(scope="session")
def blackbox(edge):
    """The shipped modules, each trusting the stack's throwaway CA (a real deployment's certificate
    chains to a CA the exporter trusts already)."""
    need(BLACKBOX)
    config = yaml.safe_load(BLACKBOX_CONFIG.read_text())
    for module in config["modules"].values():
        module["http"]["tls_config"] = {"ca_file": edge.ca_file}
    path = edge.tmp / "blackbox.yml"
    path.write_text(yaml.safe_dump(config))
    process = start_blackbox(path, edge.logs)
    yield process
    process.close()


@pytest.fixture(scope="session")
def prometheus(edge, blackbox):
    """Every target scraped up before the first test that asks for it. It scrapes the exporters
    running then: the fallback tests replace mtail, so this starts after them (file order)."""
    need(PROMETHEUS)
    config = edge.tmp / "prometheus.yml"
    config.write_text(render_config(edge, blackbox, edge.mtail, edge.nginx_exporter))
    r = subprocess.run([PROMTOOL, "check", "config", str(config)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    server = Prometheus(config, edge.tmp, edge.logs)
    try:
        server.wait_for_targets()
        yield server
    finally:
        server.close()
