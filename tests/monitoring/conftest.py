"""Fixtures of the monitoring layer, started once: the monitored stack with mtail on its fallback feed
and nginx-exporter on its stub_status, blackbox_exporter, Prometheus scraping them all (edge.py),
and a headless Chromium for Prometheus's own UI."""
import shutil
import subprocess

import pytest
import yaml

from monitoring.edge import (BLACKBOX, BLACKBOX_CONFIG, MTAIL, NGINX_EXPORTER, PROMETHEUS, PROMTOOL, MonitoredStack,
                             Prometheus, render_config, start_blackbox, start_mtail, start_nginx_exporter, tool_missing)
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


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    """Prometheus's UI is plain HTTP on loopback: no CA to trust."""
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver_path):
        pytest.skip("not installed: chromium, chromium-driver (tests/monitoring/run.sh installs them)")
    with headless_chromium(chromium, driver_path, tmp_path_factory.mktemp("browser-home")) as driver:
        yield driver
