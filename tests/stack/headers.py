"""The headers every answer of the stack carries, whoever made it (the sidecar through Nginx, the
fallback, Nginx's images and errors): nginx/README.md "Headers on every answer". Each exactly once
(Nginx alone sends them: proxy.conf hides any the sidecar would send)."""
import re

import pytest

# Cross-origin use (docs/avatar-url.md): any page may fetch() an avatar, draw it on a canvas and see
# its Resource Timing, through the 302 as well as on the image; and a page isolated with
# Cross-Origin-Embedder-Policy: require-corp may embed it (Cross-Origin-Resource-Policy on every hop).
CORS = {"access-control-allow-origin": ["*"], "timing-allow-origin": ["*"],
        "cross-origin-resource-policy": ["cross-origin"]}
NAMES = [*CORS, "strict-transport-security", "x-content-type-options", "alt-svc"]


def alt_svc(stack):
    """The Alt-Svc every HTTPS answer carries (None: none), from AVATAR_HTTP3 (stacks.py)."""
    if stack.http3 is None:
        pytest.fail("AVATAR_HTTP3 is not set: say whether the stack must serve HTTP/3 (1) or not (0)",
                    pytrace=False)
    return f'h3=":{stack.redirect_port}"; ma=86400' if stack.http3 else None


def header_set(r):
    """The CORS and security headers of an answer, as sent (name -> list of values)."""
    return {name: r.headers.get(name, []) for name in NAMES}


def assert_cors_headers(r, what=""):
    got = {name: r.headers.get(name, []) for name in CORS}
    assert got == CORS, f"{what} {r.status}: {got}"


def assert_header_set(stack, r, https=True, what=""):
    """CORS, HSTS (HTTPS only: RFC 6797 7.2), nosniff and, over HTTPS, the stack's Alt-Svc, each once."""
    where = f"{what} {r.status}"
    assert_cors_headers(r, what)
    hsts = r.headers.get("strict-transport-security", [])
    if https:
        assert len(hsts) == 1, f"{where}: Strict-Transport-Security {hsts}"
        m = re.fullmatch(r"max-age=(\d+)(;.*)?", hsts[0])
        assert m and int(m.group(1)) >= 365 * 24 * 3600, (where, hsts)
    else:
        assert not hsts, f"{where}: HSTS must not be sent over plain HTTP (RFC 6797 7.2)"
    assert r.headers.get("x-content-type-options") == ["nosniff"], f"{where}: {r.headers}"
    want = alt_svc(stack) if https else None
    assert r.headers.get("alt-svc", []) == ([want] if want else []), f"{where}: Alt-Svc {r.headers.get('alt-svc')}"
