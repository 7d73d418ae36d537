"""A real browser using avatars from another origin (docs/avatar-url.md "Cross-origin use"): a page
served from http://127.0.0.1:PORT (the test's own little server) runs fetch(avatar, {mode: 'cors'}) on
the stack's /avatar/<hash>?s=64, follows the 302, reads the image as a blob and decodes it
(createImageBitmap); and draws an <img crossorigin="anonymous"> of another avatar on a canvas and reads
its pixels (getImageData: a tainted canvas throws SecurityError). A cross-origin fetch checks CORS on
every hop, so the 302 needs Access-Control-Allow-Origin as much as the image; Resource Timing shows the
sizes only when every hop passes Timing-Allow-Origin. With the sidecar up, then stopped (the Nginx
fallback's 302). Headless Debian Chromium (the fixtures of test_browser.py)."""
import hashlib
from urllib.parse import urlsplit

import pytest

from stack.client import get, wait_for_fallback, wait_for_sidecar
from stack.images import manifest  # noqa: F401 (fixture)
from test_browser import browser, serve_html  # noqa: F401 (fixture)

SIZE = 64

READ_AVATARS = """
const [fetchUrl, imgUrl, done] = arguments;
(async () => {
  const out = {};
  try {
    const r = await fetch(fetchUrl, {mode: 'cors'});
    const blob = await r.blob();
    const bitmap = await createImageBitmap(blob);
    Object.assign(out, {status: r.status, redirected: r.redirected, url: r.url, type: blob.type,
                        bytes: blob.size, width: bitmap.width, height: bitmap.height});
  } catch (e) { out.fetchError = e.name + ': ' + e.message; }
  try {
    const img = document.createElement('img');
    img.crossOrigin = 'anonymous';
    await new Promise((ok, ko) => {
      img.onload = ok;
      img.onerror = () => ko(new Error('the crossorigin <img> did not load'));
      img.src = imgUrl;
      document.body.appendChild(img);
    });
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const px = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    const colours = new Set();
    let opaque = 0;
    for (let i = 0; i < px.length; i += 4) {
      if (px[i + 3] > 0) opaque++;
      colours.add((px[i] >> 4) << 8 | (px[i + 1] >> 4) << 4 | px[i + 2] >> 4);
    }
    out.canvas = {width: canvas.width, height: canvas.height, opaque, colours: colours.size};
  } catch (e) { out.canvasError = e.name + ': ' + e.message; }
  out.timing = performance.getEntriesByType('resource')
    .filter(t => t.name === fetchUrl || t.name === out.url)
    .map(t => ({name: t.name, transferSize: t.transferSize, redirectEnd: t.redirectEnd}));
  return out;
})().then(done, e => done({error: String(e)}));
"""


def avatar_url(stack, who):
    return f"{stack.https_origin()}/avatar/{hashlib.md5(who.encode()).hexdigest()}?s={SIZE}"


@pytest.fixture(scope="module")
def page_url(tmp_path_factory):
    with serve_html(tmp_path_factory, "cors", "another site", "<p>Avatars from elsewhere.</p>") as page:
        yield page


def read_avatars(stack, manifest, driver, page_url, phase):
    """Fetch one avatar and draw another from the page's origin; check what the page could read."""
    # Fresh URLs and no HTTP cache: every hop goes to the stack in this phase.
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    driver.get(page_url)
    assert urlsplit(driver.current_url).netloc != urlsplit(stack.https_origin()).netloc
    fetch_url, img_url = avatar_url(stack, f"{phase}-fetch"), avatar_url(stack, f"{phase}-img")
    driver.set_script_timeout(30)
    out = driver.execute_async_script(READ_AVATARS, fetch_url, img_url)
    assert "error" not in out and "fetchError" not in out, (phase, out)
    assert out["status"] == 200 and out["redirected"], (phase, out)
    path = urlsplit(out["url"]).path.lstrip("/")
    e = manifest.entry(path)
    assert e is not None and e.kind == "image", (phase, out["url"])
    media = {f.ext: f.media_type for f in manifest.formats}[e.fmt]
    assert out["type"] == media, (phase, out)
    assert out["bytes"] == (stack.images_dir / path).stat().st_size, (phase, out)
    assert (out["width"], out["height"]) == (e.size, e.size) == (SIZE, SIZE), (phase, out)
    assert "canvasError" not in out, (phase, out)
    c = out["canvas"]
    assert (c["width"], c["height"]) == (SIZE, SIZE), (phase, c)
    assert c["opaque"] > SIZE * SIZE // 4 and c["colours"] > 20, f"{phase}: a blank fox? {c}"
    # Timing-Allow-Origin on the 302 and the image: the redirect's timing and the transfer are visible.
    assert out["timing"] and all(t["transferSize"] > 0 and t["redirectEnd"] > 0 for t in out["timing"]), \
        (phase, out["timing"])
    return fetch_url


def test_another_origin_fetches_and_draws_avatars_with_the_sidecar_up_and_down(
        stack, manifest, browser, page_url):
    fetched = read_avatars(stack, manifest, browser, page_url, "up")
    assert b"<html>" not in get(stack, urlsplit(fetched).path + "?" + urlsplit(fetched).query).body, \
        "the sidecar should be answering"
    stack.stop_app()
    try:
        wait_for_fallback(stack)
        fetched = read_avatars(stack, manifest, browser, page_url, "down")
        assert b"<html>" in get(stack, urlsplit(fetched).path + "?" + urlsplit(fetched).query).body, \
            "with the sidecar stopped, the 302 must be the fallback's"
    finally:
        stack.start_app()
        browser.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
    wait_for_sidecar(stack)


# --- A page isolated with Cross-Origin-Embedder-Policy: require-corp ------------------------------
# Such a page (with COOP same-origin: crossOriginIsolated, for SharedArrayBuffer or precise timers)
# loads a plain <img> from another origin only when every answer of its chain carries
# Cross-Origin-Resource-Policy: cross-origin: the 302 (the sidecar's or the fallback's) and the image.
ISOLATED = {"Cross-Origin-Embedder-Policy": "require-corp", "Cross-Origin-Opener-Policy": "same-origin"}

SHOW_AVATARS = """
const [urls, done] = arguments;
Promise.all(urls.map(url => new Promise(settle => {
  const img = document.createElement('img');
  img.onload = () => settle({url, width: img.naturalWidth, height: img.naturalHeight});
  img.onerror = () => settle({url, error: 'blocked or broken'});
  img.src = url;
  document.body.appendChild(img);
}))).then(images => done({isolated: window.crossOriginIsolated, images}));
"""


@pytest.fixture(scope="module")
def isolated_url(tmp_path_factory):
    with serve_html(tmp_path_factory, "isolated", "an isolated site", "<p>COEP require-corp.</p>",
                    headers=ISOLATED) as page:
        yield page


def show_avatars(stack, driver, page_url, phase):
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    driver.get(page_url)
    urls = [f"{stack.https_origin()}/?s={SIZE}&u={phase}-key", f"{stack.https_origin()}/?s={SIZE}&{phase}",
            avatar_url(stack, f"{phase}-gravatar")]
    driver.set_script_timeout(30)
    out = driver.execute_async_script(SHOW_AVATARS, urls)
    assert out["isolated"] is True, f"{phase}: the page is not cross-origin isolated: the test proves nothing"
    for got in out["images"]:
        assert (got.get("width"), got.get("height")) == (SIZE, SIZE), (phase, got)


def test_a_page_isolated_with_coep_require_corp_shows_avatars_with_the_sidecar_up_and_down(
        stack, browser, isolated_url):
    show_avatars(stack, browser, isolated_url, "up")
    stack.stop_app()
    try:
        wait_for_fallback(stack)
        show_avatars(stack, browser, isolated_url, "down")
    finally:
        stack.start_app()
        browser.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
    wait_for_sidecar(stack)
