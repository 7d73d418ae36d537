"""Nginx's stub_status on its own listener (avatar_status_listen) and what reads it, Debian's
nginx-exporter; the sidecar's /metrics never through the public ports; and Debian's blackbox_exporter
probing the loopback front door with the shipped modules (monitoring/blackbox/blackbox.yml)."""
import http.client
import urllib.parse

import pytest

from monitoring.edge import parse_metrics, source_socket, value
from stack.client import get

OTHER_CLIENT = "127.0.0.23"     # a loopback address that is not 127.0.0.1


def status_get(edge, path, source=None):
    conn = http.client.HTTPConnection("127.0.0.1", edge.status_port, timeout=5)
    if source:
        conn.sock = source_socket(source)
        conn.sock.connect(("127.0.0.1", edge.status_port))
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.read().decode()
    finally:
        conn.close()


def test_stub_status_answers_on_its_own_listener_and_nothing_else_there(edge):
    status, body = status_get(edge, "/stub_status")
    assert status == 200 and body.startswith("Active connections:"), (status, body)
    assert status_get(edge, "/metrics")[0] == 404
    assert status_get(edge, "/")[0] == 404


def test_stub_status_refuses_any_other_client_address(edge):
    assert status_get(edge, "/stub_status", source=OTHER_CLIENT)[0] == 403


def test_stub_status_reads_are_not_logged(edge):
    status_get(edge, "/stub_status")
    logs = "".join(p.read_text(errors="replace") for p in edge.logs.glob("*.log"))
    assert "stub_status" not in logs


@pytest.mark.parametrize("path", ["/stub_status", "/metrics", "/metrics?x=1", "/stub_status/"])
def test_the_public_https_port_answers_status_and_metrics_paths_with_404(edge, path):
    r = get(edge, path)
    assert r.status == 404 and b"Active connections" not in r.body, (r.status, r.body[:200])


@pytest.mark.parametrize("path", ["/stub_status", "/metrics"])
def test_the_public_http_port_only_redirects_status_and_metrics_paths_to_https(edge, path):
    r = get(edge, path, https=False)
    assert r.status == 308 and r.header("location").endswith(path)
    assert b"Active connections" not in r.body


def test_nginx_exporter_reads_stub_status(edge):
    get(edge, "/")
    samples = edge.nginx_exporter.metrics()
    assert value(samples, "nginx_up") == 1
    assert value(samples, "nginx_connections_active") >= 1    # its own scrape, at least
    assert value(samples, "nginx_http_requests_total") >= 2   # the request above and that scrape


def probe(blackbox, module, target):
    query = urllib.parse.urlencode({"module": module, "target": target})
    return parse_metrics(blackbox.get(f"/probe?{query}"))


def test_the_redirect_probe_sees_the_avatar_urls_302(edge, blackbox):
    samples = probe(blackbox, "fox_avatar_redirect", f"https://127.0.0.1:{edge.https_port}/")
    assert value(samples, "probe_success") == 1
    assert value(samples, "probe_http_status_code") == 302
    assert value(samples, "probe_http_ssl") == 1


def test_the_image_probe_follows_the_302_to_an_image(edge, blackbox):
    samples = probe(blackbox, "fox_avatar_image", f"https://127.0.0.1:{edge.https_port}/?s=64")
    assert value(samples, "probe_success") == 1
    assert value(samples, "probe_http_status_code") == 200
    assert value(samples, "probe_http_redirects") == 1


def test_the_probes_fail_when_the_front_door_answers_otherwise(edge, blackbox):
    not_found = f"https://127.0.0.1:{edge.https_port}/nope"
    assert value(probe(blackbox, "fox_avatar_redirect", not_found), "probe_success") == 0
    assert value(probe(blackbox, "fox_avatar_image", not_found), "probe_success") == 0
    plain_http = f"http://127.0.0.1:{edge.http_port}/"    # port 80's 308, not the avatar URL's 302
    assert value(probe(blackbox, "fox_avatar_redirect", plain_http), "probe_success") == 0


def test_the_probe_reports_the_served_certificates_expiry(edge, blackbox):
    samples = probe(blackbox, "fox_avatar_redirect", f"https://127.0.0.1:{edge.https_port}/")
    assert value(samples, "probe_ssl_earliest_cert_expiry") == edge.certificate_not_after()
