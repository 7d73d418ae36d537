"""Fixtures of the monitoring layer: the monitored loopback stack and the exporters beside it, started
once for the layer (tests/monitoring/edge.py)."""
import pytest
import yaml

from monitoring.edge import (BLACKBOX, BLACKBOX_CONFIG, MTAIL, NGINX_EXPORTER, PROMTOOL, MonitoredStack,
                             start_blackbox, start_mtail, start_nginx_exporter, tool_missing)


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
