"""The shared HTTP suite (tests/stack, AVATAR_STACK=external) over HTTPS against the host, its
HTTP/3 and TLS-group tests through Debian 13's clients on the scenario's network (AVATAR_HTTP3 and
AVATAR_PQ are 1 on Debian 13, 0 on Debian 12). The monitoring probe (blackbox_exporter, a GET / every
15 s) is paused meanwhile: the suite counts the fallback log's lines while the sidecar is stopped,
and a probe's answer among them would be one too many."""
import foxmol
from probes import SITE


def test_shared_http_suite_passes_over_https(host_name, addr, network, modern, server_ca):
    foxmol.host_exec(host_name, "systemctl", "stop", "prometheus-blackbox-exporter")
    try:
        run = foxmol.stack_suite("stack-suite", site=SITE, addr=addr, ca=server_ca, proxy=host_name,
                                 apps=[host_name], http3=modern, pq=modern, network=network)
    finally:
        foxmol.host_exec(host_name, "systemctl", "start", "prometheus-blackbox-exporter")
    assert run.rc == 0, foxmol.pytest_tail(run)
