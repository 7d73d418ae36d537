"""The Gravatar/Libravatar URL, /avatar/<hash>, in the forms the software people run sends it
(docs/integrations.md has each app's setting): every template, every browser or server-side Accept, the
checks of stack/gravatar.py; what other strings under /avatar/ get; port 80's 308."""
import pytest

from stack.client import get
from stack.gravatar import SERVER_ACCEPT, check_avatar_url, md5, sha256
from stack.images import ACCEPT, manifest, redirect_entry  # noqa: F401 (fixture)

EMAILS = ["fox@example.org", " Renard.Roux@Example.COM "]
BROWSERS = ["chromium", "firefox", "safari", "old-safari"]

# (app, URL template with {md5}/{sha256}/{size}, sizes it asks for, who fetches: "browser" or an Accept
# name of SERVER_ACCEPT). Sizes: each app's 1x and 2x (GitLab, Gitea, Discourse, Redmine, WordPress
# double them on high-density screens) and profile pages (290-580 px, above the top rung).
TEMPLATES = [
    ("gitea", "/avatar/{md5}?d=identicon&s={size}", [28, 56, 80, 160, 290, 580], "browser"),
    ("gitea-federated", "/avatar/{md5}?s={size}", [28, 56, 290, 580], "browser"),
    ("gitlab", "/avatar/{md5}?s={size}&d=identicon", [32, 48, 64, 96, 192, 320, 580], "browser"),
    ("discourse", "/avatar/{md5}.png?s={size}&r=pg&d=identicon", [24, 48, 90, 120, 240, 360], "browser"),
    ("discourse-download", "/avatar/{md5}.png?s={size}&d=404&reset_cache=Vx2kQ_8", [360], "ruby"),
    ("redmine", "/avatar/{md5}?rating=PG&size={size}&default=mm", [24, 48, 50, 100], "browser"),
    ("sonarqube", "/avatar/{md5}.jpg?s={size}&d=identicon", [24, 48, 100, 200], "browser"),
    ("grafana-proxy", "/avatar/{md5}?d=retro&size={size}&r=pg", [200], "grafana"),
    ("grafana-proxy-sha256", "/avatar/{sha256}?d=retro&size={size}&r=pg", [200], "grafana"),
    ("grafana-proxy-custom-check", "/avatar/{md5}?d=404", [80], "grafana"),
    ("go-client-no-accept", "/avatar/{sha256}?size={size}", [200], "go-http"),
    ("wordpress", "/avatar/{sha256}?s={size}&d=mm&r=g", [26, 52, 64, 96, 192], "browser"),
]


def cases():
    for app, template, sizes, fetcher in TEMPLATES:
        accepts = [(b, ACCEPT[b][0]) for b in BROWSERS] if fetcher == "browser" else [(fetcher, SERVER_ACCEPT[fetcher])]
        for who, accept in accepts:
            yield pytest.param(template, sizes, accept, id=f"{app}-{who}")


@pytest.mark.parametrize("template,sizes,accept", cases())
def test_each_apps_url_template_gets_the_fox_of_its_hash(stack, manifest, template, sizes, accept):
    for email in EMAILS:
        hashes = {"md5": md5(email), "sha256": sha256(email)}
        hash_ = hashes["sha256"] if "{sha256}" in template else hashes["md5"]
        for size in sizes:
            check_avatar_url(stack, manifest, template.format(size=size, **hashes), accept, hash_)


def test_an_md5_and_a_sha256_are_two_keys_each_the_fox_of_its_u(stack, manifest):
    # (The two hashes of one address are different keys: an app that switches from MD5 to SHA-256
    # (WordPress 6.8, Grafana) moves its users to the fox of the new hash, as on Gravatar's side.)
    for email in EMAILS:
        for h in (md5(email), sha256(email)):
            check_avatar_url(stack, manifest, f"/avatar/{h}?s=64", ACCEPT["chromium"][0], h)


@pytest.mark.parametrize("path", [
    "/avatar/", "/avatar/abc", "/avatar/not-a-hash.png", "/avatar/fox@example.org",
    "/avatar/" + "a" * 31, "/avatar/" + "a" * 33, "/avatar/" + "0" * 32 + "/", "/avatar/" + "0" * 32 + "x",
    "/avatar/" + "0" * 32 + ".png.png", "/avatar/x/%2e%2e/abc",
])
def test_any_other_string_under_avatar_gets_a_random_fox_never_cached(stack, manifest, path):
    r = get(stack, path + "?s=64&u=" + md5("fox@example.org"), headers={"Accept": ACCEPT["chromium"][0]})
    assert r.status == 302, (path, r.status)
    assert r.header("Cache-Control") == "no-store", path
    assert r.header("Vary") == "Accept"
    e = redirect_entry(stack, manifest, r)
    assert (e.size, e.fmt) == (64, "avif"), (path, e)


def test_d_never_becomes_the_location(stack, manifest):
    h = md5("fox@example.org")
    plain = get(stack, f"/avatar/{h}?s=64").header("Location")
    for d in ["https%3A%2F%2Fevil.example%2Fx.png", "//evil.example/x.png", "404", "blank&f=y&forcedefault=y"]:
        r = get(stack, f"/avatar/{h}?s=64&d={d}&default={d}")
        assert r.status == 302 and r.header("Location") == plain, (d, r.header("Location"))


def test_plain_http_keeps_its_308_to_https(stack):
    path = f"/avatar/{md5('fox@example.org')}?s=80&d=mm"
    r = get(stack, path, https=False)
    assert r.status == 308, r.status
    port = "" if stack.redirect_port == 443 else f":{stack.redirect_port}"
    assert r.header("Location") == f"https://{stack.host}{port}{path}"
