"""A real browser against the loopback stack (the fixtures of conftest.py): what each <img> got is
read from Chromium's own network log (DevTools events). A comment thread of keyed avatars, by u= and
in Gravatar's form as Gitea writes it (srcset 2x, at 1x and 2x screens): each is its identity's SVG
(80 px over the density where a page sets no size), in at most 2 KB, and a reload sends no request at
all. (The random 302's no-store and the images' caching are asserted over HTTP: tests/stack/test_http.py.)
FOX_AVATAR_SCREENSHOT=PATH saves the comment thread as PNG (docs/embed.png:
FOX_AVATAR_SCREENSHOT=$PWD/docs/embed.png CI=true tests/nginx/run.sh -k comment)."""
import hashlib
import json
import os
import re
import time

import pytest

from conftest import serve_html
from settle import until


def network_events(driver):
    return [json.loads(e["message"])["message"] for e in driver.get_log("performance")]


def open_page(driver, url=None):
    """Load url (or reload) with a fresh event log and wait for every image."""
    driver.get_log("performance")
    driver.get(url) if url else driver.refresh()
    until(lambda: driver.execute_script("return Array.from(document.images).every(i => i.complete)"),
          "every image loaded", 20)


def avatar_requests(driver, prefix, count=None, timeout=20):
    """{avatar URL (starting with prefix, or one of a tuple): {"image": its redirect's target, "status", "mime", "bytes",
    "cached"}} from this load's events, polled until count of them (if given) are complete: events
    may trail the load event a little."""
    events, deadline = [], time.monotonic() + timeout
    while True:
        events += network_events(driver)
        by_id, out = {}, {}
        for ev in events:
            method, p = ev.get("method"), ev.get("params", {})
            rid = p.get("requestId")
            if method == "Network.requestWillBeSent":
                if p["request"]["url"].startswith(prefix):
                    by_id[rid] = out.setdefault(p["request"]["url"], {"image": None, "cached": False})
                elif rid in by_id:
                    by_id[rid]["image"] = p["request"]["url"]
            elif rid in by_id and method == "Network.requestServedFromCache":
                by_id[rid]["cached"] = True
            elif rid in by_id and method == "Network.responseReceived":
                r = p["response"]
                head = sum(len(k) + len(v) + 4 for k, v in r.get("headers", {}).items())
                by_id[rid].update(mime=r.get("mimeType"), status=r.get("status"), head=head,
                                  cached=by_id[rid]["cached"] or r.get("fromDiskCache") or r.get("fromMemoryCache"))
            elif rid in by_id and method == "Network.dataReceived":
                by_id[rid]["body"] = by_id[rid].get("body", 0) + p["dataLength"]
            elif rid in by_id and method == "Network.loadingFinished":
                # Chromium's count when it has one (HTTP/2 reports 0), else headers + body.
                by_id[rid]["bytes"] = p.get("encodedDataLength") or by_id[rid].get("head", 0) + by_id[rid].get("body", 0)
        complete = [got for got in out.values() if "status" in got and ("bytes" in got or got["cached"])]
        if count is None or len(complete) >= count or time.monotonic() > deadline:
            return out
        time.sleep(0.2)


PEOPLE = ["ada", "alan", "linus", "margaret", "ken", "barbara"]


@pytest.fixture(scope="module")
def comment_page(stack, tmp_path_factory):
    """A comment thread: half the avatars by key (/?s=64&u=...), half as Gitea writes Gravatar's form
    (/avatar/<md5>?d=identicon&s=64), each with its 2x candidate."""
    def url(i, px):
        email = f"{PEOPLE[i]}@example.org"
        return (f"{stack.https_origin()}/?s={px}&u={email.replace('@', '%40')}" if i % 2 else
                f"{stack.https_origin()}/avatar/{hashlib.md5(email.encode()).hexdigest()}?d=identicon&s={px}")
    comments = "\n".join(f'<div class="c"><img id="a{i}" width="64" height="64" src="{url(i, 64)}" '
                         f'srcset="{url(i, 128)} 2x"><p><b>{name.title()}</b><br>Same key, same fox: this '
                         f'avatar follows {name.title()} everywhere.</p></div>' for i, name in enumerate(PEOPLE))
    with serve_html(tmp_path_factory, "embed", comments, style=(
            "body{margin:0;padding:16px 16px 4px;font:15px/1.4 sans-serif;background:#fafafa;width:560px}"
            ".c{display:flex;gap:12px;align-items:center;margin:0 0 12px}.c p{margin:0}"
            "img{border-radius:50%}")) as page:
        yield page


@pytest.mark.parametrize("scale", [1, 2])
def test_a_comment_thread_of_avatars_is_small_modern_sharp_and_cached_without_a_request(
        loopback, browser, comment_page, scale):
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 1200, "height": 900, "deviceScaleFactor": scale, "mobile": False})
    try:
        open_page(browser, comment_page + f"?scale={scale}")
        avatars = (loopback.https_origin() + "/?", loopback.https_origin() + "/avatar/")
        first = avatar_requests(browser, avatars, len(PEOPLE))
        assert len(first) == len(PEOPLE), sorted(first)
        for url, got in first.items():
            assert got["status"] == 200 and got["mime"] == "image/svg+xml", (url, got)
            assert re.search(rf"s={64 * scale}(&|$)", url) and (scale > 1 or 0 < got["bytes"] <= 2048), (url, got)
        for i in range(len(PEOPLE)):   # naturalWidth: the SVG's width over the candidate's density
            el = browser.find_element("id", f"a{i}")
            size = 80 / scale
            assert browser.execute_script("return [arguments[0].naturalWidth, arguments[0].naturalHeight]", el) == [size, size]
        if os.environ.get("FOX_AVATAR_SCREENSHOT") and scale == 1:
            browser.find_element("tag name", "body").screenshot(os.environ["FOX_AVATAR_SCREENSHOT"])
        log_before = loopback.access_log()
        open_page(browser)
        for url, got in avatar_requests(browser, avatars, timeout=2).items():
            assert got["cached"], f"reload: {url} went to the network: {got}"
        assert not re.search(r"GET /[ai]/", loopback.access_log()[len(log_before):]), "reload reached Nginx"
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
