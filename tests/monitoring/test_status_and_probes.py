"""Nginx's stub_status on its own listener (avatar_status_listen) and Debian's nginx-exporter reading
it; Debian's blackbox_exporter probing the front door with the shipped modules."""
import http.client
import re
import socket
import subprocess
import urllib.parse

from monitoring.conftest import parse_metrics, value
from stack.client import get


def status_get(edge, path, source="127.0.0.1"):
    conn = http.client.HTTPConnection("127.0.0.1", edge.status_port, timeout=5)
    conn.sock = socket.create_connection(("127.0.0.1", edge.status_port), 5, source_address=(source, 0))
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.read().decode()
    finally:
        conn.close()


def test_nginx_takes_the_monitoring_variables_without_a_warning(edge):
    out = subprocess.run(edge.nginx_args("-t"), capture_output=True, text=True)
    assert out.returncode == 0 and not re.search(r"\[(warn|emerg|alert|crit|error)\]", out.stderr), out.stderr


def test_stub_status_answers_its_listener_only_for_the_allowed_and_logs_nothing(edge):
    status, body = status_get(edge, "/stub_status")
    assert status == 200 and body.startswith("Active connections:"), (status, body)
    assert status_get(edge, "/metrics")[0] == 404 and status_get(edge, "/")[0] == 404
    assert status_get(edge, "/stub_status", source="127.0.0.23")[0] == 403
    assert "stub_status" not in "".join(p.read_text(errors="replace") for p in edge.logs.glob("*.log"))


def test_nginx_exporter_reads_stub_status(edge):
    get(edge, "/")
    samples = edge.nginx_exporter.metrics()
    assert value(samples, "nginx_up") == 1
    assert value(samples, "nginx_connections_active") >= 1    # its own scrape, at least
    assert value(samples, "nginx_http_requests_total") >= 2   # the request above and that scrape


def probe(blackbox, module, target):
    return parse_metrics(blackbox.get(f"/probe?{urllib.parse.urlencode({'module': module, 'target': target})}"))


def test_the_probes_see_the_302_the_image_and_the_certificates_end(edge, blackbox):
    redirect = probe(blackbox, "fox_avatar_redirect", f"https://127.0.0.1:{edge.https_port}/")
    assert [value(redirect, name) for name in ("probe_success", "probe_http_status_code", "probe_http_ssl")] == [1, 302, 1]
    assert value(redirect, "probe_ssl_earliest_cert_expiry") == edge.certificate_not_after()
    image = probe(blackbox, "fox_avatar_image", f"https://127.0.0.1:{edge.https_port}/?s=64")
    assert [value(image, name) for name in ("probe_success", "probe_http_status_code", "probe_http_redirects")] == [1, 200, 1]


def test_the_probes_fail_when_the_front_door_answers_otherwise(edge, blackbox):
    not_found = f"https://127.0.0.1:{edge.https_port}/nope"
    assert value(probe(blackbox, "fox_avatar_redirect", not_found), "probe_success") == 0
    assert value(probe(blackbox, "fox_avatar_image", not_found), "probe_success") == 0
    plain_http = f"http://127.0.0.1:{edge.http_port}/"    # port 80's 308, not the avatar URL's 302
    assert value(probe(blackbox, "fox_avatar_redirect", plain_http), "probe_success") == 0
