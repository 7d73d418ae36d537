"""A real browser showing avatars the way Gitea and GitLab write them (docs/integrations.md):
<img src="…/avatar/MD5?d=identicon&s=N" srcset="…s=2N 2x" width="N"> (Gitea) and
<img src="…/avatar/MD5?s=N&d=identicon" srcset="…s=2N&d=identicon 2x"> (GitLab), at a 1x and a 2x
screen (Chromium's device scale factor). Each image decodes at the rung the chosen candidate asks for, in pixels
(the smallest at least its size, the top rung above it), AVIF or WebP; a reload sends no request.
Headless Debian Chromium (the fixtures of test_browser.py)."""
import hashlib

import pytest

from stack.images import manifest  # noqa: F401 (fixture)
from test_browser import browser, serve_html, wait_for_images  # noqa: F401 (fixture)
from test_browser_embed import avatar_requests

PEOPLE = ["ada@example.org", "alan@example.org", "linus@example.org"]
# (form, CSS px): Gitea's comment and profile sizes, GitLab's list and profile sizes.
FORMS = {
    "gitea": "/avatar/{h}?d=identicon&s={s}",
    "gitlab": "/avatar/{h}?s={s}&d=identicon",
}
SIZES = {"gitea": [28, 290], "gitlab": [40, 96]}


def url(stack, form, email, size):
    return stack.https_origin() + FORMS[form].format(h=hashlib.md5(email.encode()).hexdigest(), s=size)


@pytest.fixture(scope="module")
def page_url(stack, tmp_path_factory):
    imgs = []
    for form, sizes in SIZES.items():
        for size in sizes:
            for i, email in enumerate(PEOPLE):
                imgs.append(f'<img id="{form}-{size}-{i}" data-size="{size}" width="{size}" height="{size}" alt="" '
                            f'src="{url(stack, form, email, size)}" srcset="{url(stack, form, email, 2 * size)} 2x">')
    with serve_html(tmp_path_factory, "forge", "forge", "\n".join(imgs)) as page:
        yield page


def rung(manifest, px):
    top = max(manifest.sizes)
    return min(s for s in manifest.sizes if s >= min(px, top))


@pytest.mark.parametrize("scale", [1, 2])
def test_gitea_and_gitlab_forms_decode_at_the_asked_size_and_reload_from_cache(
        stack, manifest, browser, page_url, scale):
    browser.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 1200, "height": 900, "deviceScaleFactor": scale, "mobile": False})
    try:
        browser.get_log("performance")
        browser.get(page_url + f"?scale={scale}")
        wait_for_images(browser)
        first = avatar_requests(browser, stack, prefix="/avatar/")
        assert len(first) == len(PEOPLE) * sum(len(s) for s in SIZES.values()), sorted(first)
        for got_url, got in first.items():
            assert got["status"] == 200 and got["mime"] in ("image/avif", "image/webp"), (got_url, got)
        images = browser.execute_script(
            "return Array.from(document.images).map(i => [i.id, +i.dataset.size, i.currentSrc, "
            "i.naturalWidth, i.naturalHeight, i.complete])")
        for img_id, size, src, w, h, complete in images:
            asked = size * scale
            assert src.endswith(f"s={asked}") or f"s={asked}&" in src, (img_id, src)
            # naturalWidth is the decoded width over the candidate's density (2x: half the pixels).
            assert complete and (w * scale, h * scale) == (rung(manifest, asked),) * 2, f"{img_id} at {scale}x: {w}x{h}"

        log_before = stack.access_log() if stack.kind == "loopback" else None
        browser.get_log("performance")
        browser.refresh()
        wait_for_images(browser)
        for got_url, got in avatar_requests(browser, stack, prefix="/avatar/").items():
            assert got["cached"], f"reload at {scale}x: {got_url} went to the network: {got}"
        if log_before is not None:
            new = stack.access_log()[len(log_before):]
            assert "/avatar/" not in new and "/a/" not in new, f"reload reached Nginx:\n{new}"
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
