"""A real browser against the stack: headless Debian Chromium, driven by
Selenium through Debian's chromium-driver, trusting a throwaway test CA through
the NSS database under a temporary HOME (no certificate errors ignored:
Chromium would not cache anything over an ignored error).

A page (served from loopback by the test) embeds the avatar URL several times;
each <img> must show a fox, reloads must pick new foxes, and images already
seen must come from the browser's HTTP cache. What each <img> got is read from
Chromium's own network log (DevTools events via the performance log)."""
import contextlib
import functools
import http.server
import io
import json
import os
import re
import shutil
import subprocess
import threading
import time
from urllib.parse import urlsplit

import pytest

from imageset import read_manifest
from stack.chromium import chromium as headless_chromium
from stack.stacks import free_ports

IMAGES_PER_PAGE = 8
LOADS = 4          # the first load and three reloads


def find(*names):
    for n in names:
        path = shutil.which(n) or (f"/usr/bin/{n}" if os.access(f"/usr/bin/{n}", os.X_OK) else None)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def page_url(stack, tmp_path_factory):
    """http://127.0.0.1:PORT/avatars.html, embedding the avatar URL
    IMAGES_PER_PAGE times (a distinct query each, so each <img> makes its own
    request; the same queries on every load)."""
    imgs = "\n".join(f'<img id="fox{i}" alt="fox {i}" src="{stack.https_origin()}/?avatar={i}">'
                     for i in range(IMAGES_PER_PAGE))
    with serve_html(tmp_path_factory, "avatars", "foxes", imgs,
                    style="body{margin:0;background:#fff} img{display:inline-block;margin:4px}") as page:
        yield page


def keyed_url(stack, size, name):
    """The avatar URL of NAME's key (name@example.org) at SIZE px (README "The avatar URL")."""
    return f"{stack.https_origin()}/?s={size}&u={name.lower()}%40example.org"


def keyed_img(stack, i, name, size):
    """NAME's avatar as a page embeds it: SIZE px, twice that for 2x screens; id aI."""
    return (f'<img id="a{i}" alt="{name}" width="{size}" height="{size}" '
            f'src="{keyed_url(stack, size, name)}" srcset="{keyed_url(stack, 2 * size, name)} 2x">')


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extra_headers = {}

    def log_message(self, *args):
        pass

    def end_headers(self):
        for name, value in self.extra_headers.items():
            self.send_header(name, value)
        super().end_headers()


@contextlib.contextmanager
def serve_page(root, name, headers=None):
    """Serve the directory root on a free loopback port (plain HTTP, the page's own origin, as a
    site embedding the avatars would be), with HEADERS on every answer; yields the URL of root/name."""
    handler = functools.partial(type("_Handler", (_QuietHandler,), {"extra_headers": dict(headers or {})}),
                                directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_ports(1)[0]), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/{name}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def serve_html(tmp_path_factory, name, title, body, style="", headers=None):
    """Serve a page of the tests' own (serve_page): NAME.html in a fresh directory, its TITLE, the
    CSS STYLE and BODY, sent with HEADERS; yields its URL."""
    root = tmp_path_factory.mktemp(name)
    (root / f"{name}.html").write_text(f"<!doctype html>\n<html><head><title>{title}</title>"
                                       + (f"<style>{style}</style>" if style else "")
                                       + f"</head><body>\n{body}\n</body></html>\n")
    with serve_page(root, f"{name}.html", headers) as page:
        yield page


@pytest.fixture(scope="module")
def browser(stack, tmp_path_factory):
    chromium, driver_path, certutil = find("chromium"), find("chromedriver"), find("certutil")
    missing = [n for n, p in [("chromium", chromium), ("chromium-driver", driver_path),
                              ("libnss3-tools", certutil)] if not p]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (tests/nginx/run.sh installs them)")
    home = tmp_path_factory.mktemp("browser-home")
    nssdb = home / ".pki" / "nssdb"
    nssdb.mkdir(parents=True)
    subprocess.run([certutil, "-d", f"sql:{nssdb}", "-N", "--empty-password"], check=True)
    # C: a CA for server certificates (the loopback stack's throwaway CA); P: a trusted peer (compose's
    # generated certificate, a self-signed leaf that is its own trust anchor).
    subprocess.run([certutil, "-d", f"sql:{nssdb}", "-A", "-t", "CP,,", "-n", "fox-avatar test CA",
                    "-i", stack.ca_file], check=True)

    with headless_chromium(chromium, driver_path, home, f"--host-resolver-rules=MAP {stack.host} {stack.addr}",
                           capabilities={"goog:loggingPrefs": {"performance": "ALL"}}) as driver:
        yield driver


def network_events(driver):
    return [json.loads(e["message"])["message"] for e in driver.get_log("performance")]


def wait_for_images(driver, timeout=20):
    deadline = time.monotonic() + timeout
    while True:
        done = driver.execute_script(
            "return Array.from(document.images).every(i => i.complete)")
        if done:
            return
        assert time.monotonic() < deadline, "images did not finish loading"
        time.sleep(0.1)


def load(driver, stack, url=None):
    """Load (or reload) the page; return {avatar index: (image name, how it
    was obtained: "network" | "cache")} from Chromium's network events."""
    driver.get_log("performance")          # drop older events
    if url:
        driver.get(url)
    else:
        driver.refresh()
    wait_for_images(driver)
    origin = stack.https_origin()
    chain, target, status, cached = {}, {}, {}, set()   # by requestId

    # The requests of one <img> that were redirected and answered. An <img> may show more than one
    # request on a reload (once, on a loaded machine, one of avatar 0's had no redirect while its image
    # had loaded): an index is answered when one of its requests is, and the last such is the one read.
    def answered(index):
        return [r for r, i in chain.items() if i == index and r in target and r in status]
    deadline = time.monotonic() + 20
    while True:                            # events may trail the load event a little
        for ev in network_events(driver):
            method, p = ev.get("method"), ev.get("params", {})
            if method == "Network.requestWillBeSent":
                url_ = p["request"]["url"]
                m = re.fullmatch(re.escape(origin) + r"/\?avatar=(\d+)", url_)
                if m:
                    chain[p["requestId"]] = int(m.group(1))
                elif p["requestId"] in chain and p.get("redirectResponse"):
                    assert p["redirectResponse"]["status"] == 302, p["redirectResponse"]
                    parts = urlsplit(url_)
                    assert f"{parts.scheme}://{parts.netloc}" == origin, url_
                    target[p["requestId"]] = parts.path.lstrip("/")
            elif method == "Network.requestServedFromCache":
                cached.add(p["requestId"])
            elif method == "Network.responseReceived":
                r = p["response"]
                status[p["requestId"]] = r["status"]
                if r.get("fromDiskCache") or r.get("fromPrefetchCache"):
                    cached.add(p["requestId"])
        if all(answered(index) for index in range(IMAGES_PER_PAGE)) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    result = {}
    for index in range(IMAGES_PER_PAGE):
        rids = answered(index)
        assert rids, f"avatar {index}: no redirect seen (requests {[r for r, i in chain.items() if i == index]})"
        rid = rids[-1]
        assert status.get(rid) == 200, f"avatar {index}: final status {status.get(rid)}"
        result[index] = (target[rid], "cache" if rid in cached else "network")
    return result


def rendered_foxes(driver, stack, got):
    """Check every <img> shows the fox its redirect named: decoded at 256x256
    or more, and its on-screen pixels closer to that fox (its legacy 256 px PNG)
    than to any other."""
    from PIL import Image, ImageChops, ImageStat

    def flat(img):
        img = img.convert("RGBA")
        white = Image.new("RGBA", img.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, img).convert("RGB")
    manifest = read_manifest(stack.images_dir)
    originals = {e.fox: flat(Image.open(stack.images_dir / e.path)) for e in manifest.legacy}
    for index, (name, _) in got.items():
        fox = manifest.entry(name).fox
        el = driver.find_element("id", f"fox{index}")
        w, h = driver.execute_script("return [arguments[0].naturalWidth, arguments[0].naturalHeight]", el)
        assert w >= 256 and h >= 256, f"fox{index}: natural size {w}x{h}"
        shot = flat(Image.open(io.BytesIO(el.screenshot_as_png)))
        assert max(ImageStat.Stat(shot).stddev) > 10, f"fox{index}: blank"

        def distance(n):
            o = originals[n]
            s = shot if shot.size == o.size else shot.resize(o.size)
            return sum(ImageStat.Stat(ImageChops.difference(s, o)).mean)
        best = min(originals, key=distance)
        assert best == fox, f"fox{index}: redirected to {name} (fox {fox}), but looks like fox {best}"


def test_browser_shows_foxes_picks_new_ones_on_reload_and_caches_images(stack, browser, page_url):
    loads = [load(browser, stack, page_url)]
    rendered_foxes(browser, stack, loads[0])
    for _ in range(LOADS - 1):
        loads.append(load(browser, stack))
        rendered_foxes(browser, stack, loads[-1])

    picks = [tuple(name for _, (name, _) in sorted(got.items())) for got in loads]
    assert len(set(picks)) > 1, f"every reload showed the same foxes: {picks[0]}"
    assert len({n for p in picks for n in p}) > IMAGES_PER_PAGE, "reloads picked no new foxes"

    # An image fetched in an earlier load is never fetched again. (Within one
    # load, two <img> landing on the same fox may both go to the network: the
    # requests run in parallel.)
    seen = set()
    for number, got in enumerate(loads):
        for index, (name, how) in sorted(got.items()):
            if name in seen:
                assert how == "cache", f"load {number}, avatar {index}: {name} fetched again"
        seen |= {name for name, _ in got.values()}
    assert any(how == "cache" for got in loads[1:] for _, how in got.values()), \
        "no image ever came from the cache"

    if stack.kind == "loopback":   # Nginx saw exactly the browser's network fetches
        lines = [l for l in stack.access_log().splitlines() if "HeadlessChrome" in l]
        served = [l for l in lines if re.search(r'"GET /[^ ?]+\.(png|webp|avif) HTTP/[\d.]+" (200|304) ', l)]
        network = [(n, name) for n, got in enumerate(loads) for name, how in got.values() if how == "network"]
        # Parallel duplicates within a load may share one fetch (cache lock).
        assert len(set(network)) <= len(served) <= len(network), (network, served)
