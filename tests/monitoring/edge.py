"""The edge's monitoring on loopback: the loopback stack (the real jar behind a real Nginx, tests/stack)
rendered with the stub_status listener and the fallback feed, and Debian's mtail, nginx-exporter and
blackbox_exporter as child processes, each on free loopback ports, with the project's own files
(monitoring/). No pytest fixtures here (conftest.py); the Prometheus server that scrapes them all:
prometheus_server.py."""
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import loopback
from stack.stacks import REPO, LoopbackStack, free_ports, load_renderer

MONITORING = REPO / "monitoring"
MTAIL_PROGS = MONITORING / "mtail"
BLACKBOX_CONFIG = MONITORING / "blackbox" / "blackbox.yml"
RULES = MONITORING / "prometheus" / "fox-avatar.rules.yml"
RULES_TESTS = MONITORING / "prometheus" / "fox-avatar.rules.test.yml"

# Debian 12's names for the tools (Debian 13's are the same, but nginx-exporter's flags have two dashes).
MTAIL = "mtail"
NGINX_EXPORTER = "prometheus-nginx-exporter"
BLACKBOX = "prometheus-blackbox-exporter"
PROMTOOL = "promtool"


class MonitoredStack(LoopbackStack):
    """The loopback stack with avatar_status_listen and avatar_fallback_syslog set (nginx/README.md),
    and avatar_access_log_mode "off": the fallback feed must not depend on the access logs."""

    def __init__(self):
        self.status_port, self.feed_port = free_ports(2)
        super().__init__(access_log_mode="off")

    def _prepare(self):
        super()._prepare()
        self.variables["avatar_status_listen"] = [f"127.0.0.1:{self.status_port}"]
        self.variables["avatar_fallback_syslog"] = f"127.0.0.1:{self.feed_port}"
        self.site = load_renderer()(self.variables)
        (self.conf_dir / "conf.d" / "fox-avatar.conf").write_text(self.site)

    def certificate_not_after(self):
        """The served certificate's notAfter (the first of fullchain.pem), in Unix seconds."""
        from cryptography import x509
        cert = x509.load_pem_x509_certificate((self.tmp / "fullchain.pem").read_bytes())
        return int(cert.not_valid_after_utc.timestamp())


class Process:
    """A child process listening on 127.0.0.1:port; its output in log."""

    def __init__(self, name, args, port, log_dir):
        self.name, self.port = name, port
        self.log = Path(log_dir) / f"{name}.log"
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


def start_mtail(feed_port, log_dir):
    port, = free_ports(1)
    return Process("mtail", [
        MTAIL, "-progs", str(MTAIL_PROGS), "-logs", f"udp://127.0.0.1:{feed_port}",
        "-address", "127.0.0.1", "-port", str(port), "-emit_prog_label=false", "-logtostderr"],
        port, log_dir)


def start_nginx_exporter(status_port, log_dir):
    port, = free_ports(1)
    return Process("nginx-exporter", [
        NGINX_EXPORTER, f"-nginx.scrape-uri=http://127.0.0.1:{status_port}/stub_status",
        f"-web.listen-address=127.0.0.1:{port}"], port, log_dir)


def start_blackbox(config, log_dir):
    port, = free_ports(1)
    return Process("blackbox", [
        BLACKBOX, f"--config.file={config}", f"--web.listen-address=127.0.0.1:{port}"], port, log_dir)


_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_metrics(text):
    """Prometheus text format -> {(name, frozenset of (label, value)): float}."""
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        assert m, f"not a sample line: {line!r}"
        labels = frozenset(_LABEL.findall(m.group(2) or ""))
        samples[(m.group(1), labels)] = float(m.group(3))
    return samples


def value(samples, name, **labels):
    """The sample of name with exactly these labels, 0 when absent (a counter not yet incremented)."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def tool_missing(*names):
    return [n for n in names if not shutil.which(n)]


def source_socket(address):
    """A TCP socket bound to a loopback source address of its own (127.0.0.23: not 127.0.0.1)."""
    s = socket.socket()
    s.bind((address, 0))
    return s


def wait_until(check, seconds=5.0):
    """check() until it returns true, or its last result after seconds."""
    deadline = time.monotonic() + seconds
    while True:
        result = check()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(0.1)
