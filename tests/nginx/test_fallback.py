"""Nginx's fallback, on the loopback stack, when the sidecar is stopped, too slow or stopping: `/`
without a key gets a random picture at the default size in the last format; a keyed request (a
non-empty u, or Gravatar's form) a 503 that no one stores, with Retry-After; another method a 405.
Once the sidecar is back, keyed requests get their 302 again."""
import http.client
import signal
import socket
import time

from settle import until
from stack.client import get, request, wait_for_sidecar, while_stopped
from stack.headers import assert_header_set
from stack.images import ACCEPT, manifest, redirect_entry  # noqa: F401 (fixture)

KEY = "0bc83cb571cd1c50ba6f3e8a78ef1346"
UNKEYED = ["/", "/?s=64", "/?size=32&x=1", "/?u=", "/?U="]
KEYED = [f"/?u={KEY}", "/?s=64&u=a", "/?u=" + "x" * 200, f"/avatar/{KEY}", f"/avatar/{KEY.upper()}.png?s=360&d=404",
         "/avatar/", "/avatar/not-a-hash?s=64"]
METHODS = ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]


def test_without_the_sidecar_no_key_gets_a_random_picture_a_key_a_503_and_another_method_a_405(loopback, manifest):
    accepts = [ACCEPT["chromium"][0], "*/*"]
    cases = ([("GET", p, a) for p in UNKEYED for a in accepts] + [("HEAD", "/", None)]
             + [("GET", p, a) for p in KEYED for a in accepts] + [("HEAD", f"/?u={KEY}", None)]
             + [(m, p, None) for m in METHODS for p in ("/", f"/avatar/{KEY}")])
    last = manifest.formats[-1].ext
    log_before = loopback.fallback_log()
    loopback.stop_app()
    try:
        (answers,) = while_stopped([lambda c=c: request(loopback, c[0], c[1], headers={"Accept": c[2]} if c[2] else {},
                                                        body=b"x" if c[0] in ("POST", "PUT", "PATCH") else None)
                                    for c in cases])
        for (method, path, _), r in zip(cases, answers):
            assert_header_set(loopback, r, what=f"{method} {path}")
            assert r.header("Vary") is None, (method, path, r.headers)
            keyed = path.startswith("/avatar/") or path.startswith("/?u=") and path != "/?u=" or "&u=" in path
            if method not in ("GET", "HEAD"):
                assert (r.status, r.header("Allow")) == (405, "GET, HEAD"), (method, path, r.status)
            elif keyed:
                assert (r.status, r.header("Retry-After"), r.header("Cache-Control")) == (503, "10", "no-store"), \
                    (method, path, r.status, r.headers)
                assert r.header("Location") is None and len(r.body) < 100, (path, r.body)
            else:
                assert (r.status, r.header("Cache-Control")) == (302, "no-store"), (method, path, r.status)
                e = redirect_entry(loopback, manifest, r)
                assert (e.size, e.fmt) == (min(manifest.default_size, manifest.largest(e.fox)), last), (path, e)
        until(lambda: len(loopback.fallback_log()[len(log_before):].splitlines()) == len(cases),
              "a fallback log line for each answer, the 503s and 405s too")
    finally:
        loopback.start_app()
    wait_for_sidecar(loopback)
    for path in (f"/?u={KEY}", f"/avatar/{KEY}"):
        r = get(loopback, path)
        assert (r.status, r.header("Cache-Control")) == (302, "public, max-age=3600"), (path, r.status)


def test_a_slow_sidecar_gets_the_fallback_after_the_read_timeout(loopback):
    loopback.pause_app()
    try:
        r = get(loopback, "/?x=slow-check")
    finally:
        loopback.resume_app()
    assert r.status == 302 and b"<html>" in r.body and r.header("Cache-Control") == "no-store"
    line = until(lambda: [line for line in loopback.fallback_log().splitlines() if "x=slow-check" in line],
                 "the fallback log line")[0]
    assert 'us="504"' in line and "fallback=1" in line, line
    assert get(loopback, "/?x=after-slow").body == b""


def test_a_stopping_sidecars_503_gets_the_fallback(loopback):
    """After its SIGTERM the sidecar finishes what is in flight and answers anything new 503 until it
    closes; no client sees that 503. A POST whose body never ends holds it in that state."""
    held = socket.create_connection(("127.0.0.1", loopback.app_port), timeout=5)
    try:
        held.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nx")
        time.sleep(0.3)
        loopback.app.send_signal(signal.SIGTERM)
        deadline, status = time.monotonic() + 3, None
        while status != 503 and time.monotonic() < deadline:
            c = http.client.HTTPConnection("127.0.0.1", loopback.app_port, timeout=1)
            c.request("GET", "/")
            status = c.getresponse().status
            c.close()
        assert status == 503, f"the stopping sidecar answered {status}, not 503: nothing to test"
        r = get(loopback, "/?x=stopping-check")
    finally:
        held.close()
        loopback.stop_app()
        loopback.start_app()
    assert r.status == 302, r.status
    line = until(lambda: [line for line in loopback.fallback_log().splitlines() if "x=stopping-check" in line],
                 "the fallback log line")[0]
    assert 'us="503"' in line and "fallback=1" in line, line
