"""A real browser embedding avatars the way a comment thread does (README "The avatar URL"):
<img src="…/?s=64&u=KEY" srcset="…/?s=128&u=KEY 2x" width="64">. Headless Debian Chromium (the
fixtures of test_browser.py). Each avatar must arrive as 64 px AVIF or WebP in at most 2 KB, and on
reload come from the browser's cache without a request: keyed redirects are cacheable, images immutable.

FOX_AVATAR_SCREENSHOT=PATH also saves the page as PNG (docs/embed.png in the README is made so:
FOX_AVATAR_SCREENSHOT=$PWD/docs/embed.png CI=true tests/nginx/run.sh -k embed)."""
import os

import pytest

from test_browser import browser, keyed_img, keyed_url, network_events, serve_html, wait_for_images  # noqa: F401 (fixture)

SIZE = 64
MAX_BYTES = 2048
PEOPLE = ["Ada", "Alan", "Linus", "Margaret", "Ken", "Barbara"]


@pytest.fixture(scope="module")
def embed_url(stack, tmp_path_factory):
    comments = "\n".join(
        f'<div class="c">{keyed_img(stack, i, n, SIZE)}'
        f'<p><b>{n}</b><br>Same key, same fox: this avatar follows {n} everywhere.</p></div>'
        for i, n in enumerate(PEOPLE))
    with serve_html(tmp_path_factory, "embed", "comments", comments, style=(
            "body{margin:0;padding:16px 16px 4px;font:15px/1.4 sans-serif;background:#fafafa;width:560px}"
            ".c{display:flex;gap:12px;align-items:center;margin:0 0 12px}.c p{margin:0}"
            "img{border-radius:50%}")) as page:
        yield page


def avatar_requests(driver, stack, prefix="/?"):
    """{avatar URL: {"image": final URL, "mime", "bytes", "cached": bool}} from this load's events
    (avatar URLs: the stack's origin + prefix); "bytes": the image response's headers and body."""
    origin = stack.https_origin()
    by_id, out = {}, {}
    for ev in network_events(driver):
        method, p = ev.get("method"), ev.get("params", {})
        rid = p.get("requestId")
        if method == "Network.requestWillBeSent":
            url = p["request"]["url"]
            if url.startswith(origin + prefix):
                by_id[rid] = out.setdefault(url, {"image": None, "cached": False})
            elif rid in by_id:
                by_id[rid]["image"] = url
        elif rid in by_id and method == "Network.requestServedFromCache":
            by_id[rid]["cached"] = True
        elif rid in by_id and method == "Network.responseReceived":
            r = p["response"]
            # Header bytes as HTTP/1.1 text: an upper bound of HTTP/2's compressed ones.
            head = sum(len(k) + len(v) + 4 for k, v in r.get("headers", {}).items())
            by_id[rid].update(mime=r.get("mimeType"), status=r.get("status"), head=head)
            if r.get("fromDiskCache") or r.get("fromMemoryCache"):
                by_id[rid]["cached"] = True
        elif rid in by_id and method == "Network.dataReceived":
            by_id[rid]["body"] = by_id[rid].get("body", 0) + p["dataLength"]
        elif rid in by_id and method == "Network.loadingFinished":
            # Chromium's own count when it has one (HTTP/2 here reports 0), else headers + body.
            by_id[rid]["bytes"] = p.get("encodedDataLength") or by_id[rid].get("head", 0) + by_id[rid].get("body", 0)
    return out


def test_embedded_avatars_are_small_modern_and_cached_without_a_request(stack, browser, embed_url):
    browser.get_log("performance")
    browser.get(embed_url)
    wait_for_images(browser)
    first = avatar_requests(browser, stack)
    assert sorted(first) == sorted(keyed_url(stack, SIZE, n) for n in PEOPLE), sorted(first)
    for url, got in first.items():
        assert got["status"] == 200 and got["image"], (url, got)
        assert got["mime"] in ("image/avif", "image/webp"), (url, got)
        assert 0 < got["bytes"] <= MAX_BYTES, f"{url}: {got['bytes']} bytes for the image: {got}"
    for i, name in enumerate(PEOPLE):
        w, h, ok = browser.execute_script(
            "const i = arguments[0]; return [i.naturalWidth, i.naturalHeight, i.complete && i.naturalWidth > 0]",
            browser.find_element("id", f"a{i}"))
        assert (w, h, ok) == (SIZE, SIZE, True), f"{name}: natural size {w}x{h}"

    if os.environ.get("FOX_AVATAR_SCREENSHOT"):
        browser.find_element("tag name", "body").screenshot(os.environ["FOX_AVATAR_SCREENSHOT"])

    log_before = stack.access_log() if stack.kind == "loopback" else None
    browser.get_log("performance")
    browser.refresh()
    wait_for_images(browser)
    again = avatar_requests(browser, stack)
    for url, got in again.items():
        assert got["cached"], f"reload: {url} went to the network: {got}"
    if log_before is not None:
        new = stack.access_log()[len(log_before):]
        assert "/?s=" not in new and "/a/" not in new, f"reload reached Nginx:\n{new}"
