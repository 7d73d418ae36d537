"""Fixtures of the monitoring layer: the monitored loopback stack and the exporters beside it, started
once for the layer (tests/monitoring/edge.py); Prometheus scraping them all (prometheus_server.py); a
headless Chromium for Prometheus's own UI."""
import shutil
import subprocess

import pytest
import yaml

from monitoring.edge import (BLACKBOX, BLACKBOX_CONFIG, MTAIL, NGINX_EXPORTER, PROMTOOL, MonitoredStack,
                             start_blackbox, start_mtail, start_nginx_exporter, tool_missing)
from monitoring.prometheus_server import PROMETHEUS, Prometheus, render_config
from stack.chromium import chromium as headless_chromium


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
    """The stack, with mtail on its fallback feed and nginx-exporter on its stub_status."""
    need(MTAIL, NGINX_EXPORTER)
    stack = MonitoredStack()
    stack.mtail = stack.nginx_exporter = None
    try:
        stack.mtail = start_mtail(stack.feed_port, stack.logs)
        stack.nginx_exporter = start_nginx_exporter(stack.status_port, stack.logs)
        yield stack
    finally:
        # The processes the stack has at the end (a test may have replaced its mtail).
        for process in (stack.mtail, stack.nginx_exporter):
            if process:
                process.close()
        stack.close()


@pytest.fixture(scope="session")
def blackbox(edge):
    """blackbox_exporter with the shipped modules, each trusting the stack's throwaway CA (a real
    deployment's certificate chains to a public CA, which the exporter trusts already)."""
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
    """Prometheus with monitoring/prometheus/prometheus.yml on the loopback addresses, every target
    scraped up at least once before the first test that asks for it. The exporters it scrapes must be
    the ones running: the fallback tests replace mtail, so this starts after them (file order)."""
    need(PROMETHEUS)
    config = edge.tmp / "prometheus.yml"
    config.write_text(render_config(edge, blackbox))
    r = subprocess.run([PROMTOOL, "check", "config", str(config)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    server = Prometheus(config, edge.tmp, edge.logs)
    try:
        server.wait_for_targets()
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """Debian's headless Chromium through Selenium and Debian's chromium-driver (as tests/nginx's
    browser tests; Prometheus's UI is plain HTTP on loopback: no CA to trust)."""
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver_path):
        pytest.skip("not installed: chromium, chromium-driver (tests/monitoring/run.sh installs them)")
    home = tmp_path_factory.mktemp("browser-home")
    with headless_chromium(chromium, driver_path, home) as driver:
        yield driver
