"""The headers every answer carries, whoever made it (the sidecar through Nginx, the fallback, Nginx's
images and errors), each exactly once: Nginx alone sends them (proxy.conf hides the sidecar's)."""
import re

import pytest

# Cross-origin use (docs/avatar-url.md): fetch(), a canvas and Resource Timing through the 302 as
# well as on the image, and pages isolated with COEP require-corp.
CORS = {"access-control-allow-origin": ["*"], "timing-allow-origin": ["*"],
        "cross-origin-resource-policy": ["cross-origin"]}


def assert_header_set(stack, r, https=True, what=""):
    """CORS, nosniff, and over HTTPS HSTS (never over plain HTTP: RFC 6797 7.2) and the Alt-Svc
    AVATAR_HTTP3 asks for; each once."""
    where = f"{what} {r.status}"
    got = {name: r.headers.get(name, []) for name in CORS}
    assert got == CORS, f"{where}: {got}"
    assert r.headers.get("x-content-type-options") == ["nosniff"], f"{where}: {r.headers}"
    hsts = r.headers.get("strict-transport-security", [])
    alt_svc = r.headers.get("alt-svc", [])
    if not https:
        assert not hsts and not alt_svc, f"{where}: HSTS {hsts}, Alt-Svc {alt_svc} over plain HTTP"
        return
    assert len(hsts) == 1 and re.fullmatch(r"max-age=(\d+)", hsts[0]) \
        and int(hsts[0].split("=")[1]) >= 365 * 24 * 3600, f"{where}: HSTS {hsts}"
    if stack.http3 is None:
        pytest.fail("AVATAR_HTTP3 is not set: say whether the stack must serve HTTP/3 (1) or not (0)",
                    pytrace=False)
    want = [f'h3=":{stack.redirect_port}"; ma=86400'] if stack.http3 else []
    assert alt_svc == want, f"{where}: Alt-Svc {alt_svc}"
