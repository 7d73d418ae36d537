"""The avatar URL's parameters against any stack (README "The avatar URL"): s/size picks a size of
the ladder, Accept a format, u a stable fox; every answer is a file the manifest lists and Nginx
serves; the Nginx fallback (sidecar stopped) gives exactly the sidecar's answers."""

import pytest

from stack.client import get, wait_for_sidecar, while_stopped
from stack.images import ACCEPT, assert_served_image, manifest, redirect_entry, redirect_target  # noqa: F401 (fixture)

KEY = "0bc83cb571cd1c50ba6f3e8a78ef1346"       # an MD5 of an e-mail address, as Gravatar's d= sends


def avatar(stack, query, accept=None):
    r = get(stack, "/" + query, headers={"Accept": accept} if accept else {})
    assert r.status == 302, (query, r.status)
    assert r.header("Vary") == "Accept", (query, r.headers)
    return r


def by_fallback(r):
    return b"<html>" in r.body


@pytest.mark.parametrize("fmt", ["avif", "webp", "png"])
def test_every_size_in_every_format_redirects_to_a_file_served_at_that_size(stack, manifest, fmt):
    accept = {"avif": "image/avif,image/webp,*/*", "webp": "image/webp,*/*", "png": "*/*"}[fmt]
    for size in manifest.sizes:
        e = redirect_entry(stack, manifest, avatar(stack, f"?s={size}", accept))
        assert (e.size, e.fmt) == (size, fmt), (size, e)
        assert_served_image(stack, manifest, e.path, get(stack, "/" + e.path))


# "default": the manifest's default size (256); "top": the ladder's largest (512).
@pytest.mark.parametrize("query,expected", [
    ("?s=64", 64), ("?size=64", 64), ("?S=64", 64), ("?s=50", 64), ("?s=1", 32), ("?s=0", 32),
    ("?s=0064", 64), ("?s=257", 384), ("?s=385", 512), ("?s=2048", "top"),
    ("?s=99999999999999999999", "top"), ("?s=", "default"), ("", "default"),
    ("?s=-5", "default"), ("?s=64px", "default"), ("?s=6.4", "default"), ("?s=%36%34", "default"),
    ("?s", "default"), ("?s=64&s=128", 64), ("?s=&size=48", 48), ("?size=48&s=96", 96),
    ("?x=1&size=100&y", 128),
])
def test_size_parameter_snaps_up_to_the_ladder_and_never_breaks_the_embed(stack, manifest, query, expected):
    expected = {"default": manifest.default_size, "top": manifest.sizes[-1]}.get(expected, expected)
    e = redirect_entry(stack, manifest, avatar(stack, query))
    assert e.size == expected, (query, e)


@pytest.mark.parametrize("browser", sorted(ACCEPT))
def test_format_follows_the_browsers_accept(stack, manifest, browser):
    accept, fmt = ACCEPT[browser]
    assert redirect_entry(stack, manifest, avatar(stack, "?s=64", accept)).fmt == fmt


def test_a_key_always_gets_the_same_fox_and_may_be_cached(stack, manifest):
    answers = {avatar(stack, f"?u={KEY}&s=64", ACCEPT["chromium"][0]).header("Location") for _ in range(10)}
    assert len(answers) == 1, answers
    r = avatar(stack, f"?u={KEY}&s=64")
    assert r.header("Cache-Control") == f"public, max-age={manifest.keyed_max_age}"
    foxes = {redirect_entry(stack, manifest, avatar(stack, f"?u=key-{i}")).fox for i in range(40)}
    assert len(foxes) > 5, f"40 keys, only foxes {sorted(foxes)}"


@pytest.mark.parametrize("key", ["", "x" * 129], ids=["empty", "129-characters"])
def test_an_unusable_key_is_no_key(stack, manifest, key):
    r = avatar(stack, f"?u={key}")
    assert r.header("Cache-Control") == "no-store", key


# The corpus both answerers must agree on: keyed (so the fox is fixed), every size rule, every Accept;
# the same for the Gravatar URL (/avatar/<hash>: Gravatar's size rule, extensions, case, escapes).
SHA = "9f3c2e8a4b1d7f6e5c0a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f"
CORPUS = [(f"?u={KEY}{i}&{q}", accept) for i, q in enumerate(
    ["s=64", "size=100", "s=0", "s=9999", "s=abc", "S=32", "s=&size=48", "x=1", "s=300", "s=512", "s=2048",
     "s=99999999999999999999"])
    for accept, _ in ACCEPT.values()] + [(f"?u={k}", None) for k in
    ["a", "ab", "abc", "abcd", "abcde", "A@b.c", "%41", "~!*()'", "x" * 128]] + [
    (f"avatar/{h}{q}", accept) for h, q in [
        (KEY, ""), (KEY, "?s=80"), (KEY, "?s=1"), (KEY, "?s=0"), (KEY, "?s=2048"), (KEY, "?s=2049"),
        (KEY, "?s=-1"), (KEY, "?s=99999999999999999999"), (KEY, "?size=24&rating=PG&default=mm"),
        (KEY.upper(), "?s=48"), (KEY + ".png", "?s=120&d=404&reset_cache=x"), (KEY + ".jpg", "?s=40&d=identicon"),
        (SHA, "?d=retro&size=200&r=pg"), (SHA + ".png", ""), ("%30" + KEY[1:], "?s=96"), ("./" + KEY, "?s=64"),
        ("x/../" + KEY, "?s=64"), ("/" + KEY, "?s=64"), (KEY, "?s=02048&S=32"), (KEY, "?s=&size=300"),
    ] for accept, _ in list(ACCEPT.values())[:2] + list(ACCEPT.values())[-2:]]
# Not keyed (random fox, no-store) in both: compared on everything but the fox.
UNKEYED = ["avatar/", "avatar/abc?s=64", f"avatar/{KEY}/?s=32", f"avatar/{KEY}junk", f"avatar/{KEY}.png.png?s=2048"]


def test_the_fallback_gives_the_sidecars_answers(stack, manifest):
    """Keep last in this file: it stops the Java service, then waits for it to take over again."""
    sidecar = {}
    for query, accept in CORPUS:
        r = avatar(stack, query, accept)
        assert not by_fallback(r), "the sidecar should be answering"
        sidecar[(query, accept)] = (redirect_target(stack, r), r.header("Cache-Control"))
    unkeyed = {}
    for query in UNKEYED:
        e = redirect_entry(stack, manifest, r := avatar(stack, query))
        unkeyed[query] = (e.size, e.fmt, r.header("Cache-Control"))
        assert not by_fallback(r) and r.header("Cache-Control") == "no-store", query
    stack.stop_app()
    try:
        keyed, loose = while_stopped([lambda q=q, a=a: avatar(stack, q, a) for q, a in CORPUS],
                                     [lambda q=q: avatar(stack, q) for q in UNKEYED])
        for (query, accept), r in zip(CORPUS, keyed):
            assert by_fallback(r), "a 302 while the sidecar is stopped must be Nginx's"
            assert (redirect_target(stack, r), r.header("Cache-Control")) == sidecar[(query, accept)], (query, accept)
        for query, r in zip(UNKEYED, loose):
            e = redirect_entry(stack, manifest, r)
            assert by_fallback(r) and (e.size, e.fmt, r.header("Cache-Control")) == unkeyed[query], query
    finally:
        stack.start_app()
    wait_for_sidecar(stack)
