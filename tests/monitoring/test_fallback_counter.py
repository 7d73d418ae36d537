"""fox_avatar_fallback_answers_total: Nginx's fallback answers, fed to Debian's mtail over UDP syslog
(avatar_fallback_syslog) and counted by monitoring/mtail/fox-avatar.mtail, on the stack whose access
logs are off (the feed does not depend on them)."""
import re
import socket

from monitoring.conftest import start_mtail, value
from settle import until
from stack.client import _Connection, get, request, wait_for_sidecar

HASH = "0123456789abcdef0123456789abcdef"
COUNTER = "fox_avatar_fallback_answers_total"


def counts(edge):
    samples = edge.mtail.metrics()
    return {(route, status): value(samples, COUNTER, route=route, status=status)
            for route in ("/", "/avatar/") for status in ("302", "503", "405")}


def test_every_fallback_answer_is_counted_once_by_route_and_status_and_nothing_else(edge):
    sent = {("/", "302"): 4, ("/", "503"): 2, ("/avatar/", "503"): 3, ("/", "405"): 2}
    before = counts(edge)
    edge.stop_app()
    try:
        for _ in range(sent[("/", "302")]):
            assert get(edge, "/?s=64").status == 302
        for _ in range(sent[("/", "503")]):
            assert get(edge, "/?u=someone&s=64").status == 503
        for _ in range(sent[("/avatar/", "503")]):
            assert get(edge, f"/avatar/{HASH}?s=80").status == 503
        for _ in range(sent[("/", "405")]):
            assert request(edge, "POST", "/", body=b"x").status == 405
        expected = {k: before[k] + sent.get(k, 0) for k in before}
        until(lambda: counts(edge) == expected, f"sent {sent} counted (before: {before})")
    finally:
        edge.start_app()
        wait_for_sidecar(edge)
    labels = {label for (name, labels) in edge.mtail.metrics() if name == COUNTER for label, _ in labels}
    assert labels == {"route", "status"}


def test_answers_of_the_running_sidecar_are_not_sent(edge):
    """Sent on one connection, then a last request: Nginx logs (and would feed) each request before
    it reads the next. Then a line of the test's own on the feed: once mtail has read it, it has
    read whatever Nginx sent before."""
    before, lines = counts(edge), value(edge.mtail.metrics(), "mtail_lines_total")
    conn = _Connection(edge, True, 10)
    try:
        for method, path in [("GET", "/"), ("GET", "/?s=64&u=someone"), ("GET", f"/avatar/{HASH}"), ("GET", "/nope"),
                             ("POST", "/"), ("GET", "/nope")]:
            conn.request(method, path, body=b"x" if method == "POST" else None)
            conn.getresponse().read()
    finally:
        conn.close()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as feed:
        feed.sendto(b"a line of the test's own\n", ("127.0.0.1", edge.feed_port))
    until(lambda: value(edge.mtail.metrics(), "mtail_lines_total") > lines, "mtail reading the feed")
    assert counts(edge) == before and value(edge.mtail.metrics(), "mtail_lines_total") == lines + 1


def test_with_nothing_on_the_feed_port_the_fallback_still_answers_and_logs_nothing_private(edge):
    """Each lost datagram is one "[error] send() failed (111: Connection refused)" in Nginx's main
    error log, without the client or the request; Nginx's "send() to syslog failed" warning, which
    names both, is under every level the site sets."""
    edge.mtail.close()
    error_logs = {p: p.read_text() for p in edge.logs.glob("*error.log")}
    edge.stop_app()
    try:
        assert [get(edge, "/?u=someone-private").status for _ in range(4)] == [503] * 4
    finally:
        edge.start_app()
        wait_for_sidecar(edge)
        edge.mtail = start_mtail(edge.feed_port, edge.logs)
    new = [line for p, before in error_logs.items() for line in p.read_text()[len(before):].splitlines()]
    assert new, "Nginx logged nothing about the datagrams it could not send"
    for line in new:
        assert re.fullmatch(r"\S+ \S+ \[error\] \d+#\d+: send\(\) failed \(111: Connection refused\)", line), line
