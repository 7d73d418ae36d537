"""Every answer of every avatar URL form carries the full header set (CORS, HSTS, nosniff, Alt-Svc:
stack/headers.py), each header once, with the sidecar up and with it stopped; and the Nginx fallback
gives the sidecar's answer to every method: a 302 to GET and HEAD, 405 with Allow: GET, HEAD to the
rest (docs/avatar-url.md). Compared between the two: status, Location (the same file when keyed; the
same size and format when not), Allow, Cache-Control, Vary and the header set."""

from stack.client import get, raw, request, wait_for_sidecar, while_stopped
from stack.headers import assert_header_set, header_set
from stack.images import ACCEPT, manifest, redirect_entry  # noqa: F401 (fixture)

KEY = "0bc83cb571cd1c50ba6f3e8a78ef1346"
SHA = "9f3c2e8a4b1d7f6e5c0a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f"
# (URL, keyed): keyed answers name one file, so the fallback's Location must be the sidecar's.
FORMS = [
    ("/", False), ("/?s=64", False), ("/?s=abc&size=", False), (f"/?u={KEY}", True),
    (f"/?u={KEY}&s=64", True), (f"/?u={KEY}&s=-1", True), (f"/avatar/{KEY}", True),
    (f"/avatar/{SHA}?s=64", True), (f"/avatar/{KEY}.png?s=0", True), (f"/avatar/{KEY}?s=99999", True),
    ("/avatar/", False), ("/avatar/not-a-hash?s=64", False),
]
METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]
ORIGIN = "https://forum.example"     # every request comes from a page on another origin
AGENT = "fox-avatar-method-parity"   # picks this test's lines out of the fallback log


def send(stack, method, path):
    headers = {"Origin": ORIGIN, "Accept": ACCEPT["chromium"][0], "User-Agent": AGENT}
    if method == "OPTIONS":         # a CORS preflight, as a browser sends it
        headers.update({"Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-fox"})
    body = b"x" if method in ("POST", "PUT", "PATCH") else None
    return request(stack, method, path, headers=headers, body=body)


def by_fallback(r):
    """Nginx's own answers (the fallback's 302 and 405) carry its small HTML page; the sidecar's are empty."""
    return b"<html>" in r.body


def answer(stack, manifest, method, path, keyed, r):
    """What the sidecar's and the fallback's answers must agree on."""
    assert_header_set(stack, r, what=f"{method} {path}")
    if method in ("GET", "HEAD"):
        assert r.status == 302, (method, path, r.status)
        e = redirect_entry(stack, manifest, r)
        location = r.header("Location") if keyed else (e.size, e.fmt)
    else:
        assert r.status == 405, (method, path, r.status)
        location = r.header("Location")
    return (r.status, location, r.header("Allow"), r.header("Cache-Control"), r.header("Vary"), header_set(r))


def other_answers(stack, manifest):
    """Nginx's own answers around the avatar URLs: the image (200, 304), 404, 400, port 80's 308."""
    name = manifest.paths()[0]
    etag = get(stack, f"/{name}").header("ETag")
    answers = {
        "image": (get(stack, f"/{name}"), 200, True),
        "revalidated image": (get(stack, f"/{name}", headers={"If-None-Match": etag}), 304, True),
        "unknown path": (get(stack, "/avatar.png"), 404, True),
        "bad escape": (raw(stack, b"GET /avatar/%zz HTTP/1.1\r\nHost: " + stack.host.encode()
                           + b"\r\nConnection: close\r\n\r\n"), 400, True),
        "plain HTTP": (get(stack, f"/avatar/{KEY}?s=64", https=False), 308, False),
    }
    for what, (r, status, https) in answers.items():
        assert r.status == status, (what, r.status)
        assert_header_set(stack, r, https=https, what=what)


def test_every_answer_carries_the_header_set_and_the_fallback_gives_the_sidecars_for_every_method(
        stack, manifest):
    """Keep last in this file: it stops the Java service, then waits for it to take over again."""
    cases = [(m, path, keyed) for path, keyed in FORMS for m in METHODS]
    sidecar = {}
    for method, path, keyed in cases:
        r = send(stack, method, path)
        assert not by_fallback(r), f"{method} {path}: the sidecar should be answering"
        sidecar[(method, path)] = answer(stack, manifest, method, path, keyed, r)
    other_answers(stack, manifest)
    log_before = stack.fallback_log()
    stack.stop_app()
    try:
        (answers,) = while_stopped([lambda m=m, p=p: send(stack, m, p) for m, p, _ in cases])
        if log_before is not None:   # the fallback log has each of them, its 405s too
            new = stack.fallback_log()[len(log_before):].splitlines()
            if any(AGENT in line for line in new):   # a full log names the User-Agent: only ours count
                new = [line for line in new if AGENT in line]
            logged = {m: sum(f'"{m} /' in line for line in new) for m in METHODS}
            assert logged == {m: len(FORMS) for m in METHODS}, new
        for (method, path, keyed), r in zip(cases, answers):
            if method != "HEAD":
                assert by_fallback(r), f"{method} {path}: with the sidecar stopped, the answer must be Nginx's"
            got = answer(stack, manifest, method, path, keyed, r)
            assert got == sidecar[(method, path)], (method, path, got, sidecar[(method, path)])
        other_answers(stack, manifest)
    finally:
        stack.start_app()
    wait_for_sidecar(stack)
