"""A set of someone's own pictures, made by the real command (`make images SRC=... OUT=...`), and
what any stack serving it must answer: only its pictures, every size and format, the fill rule for
pictures that stop below the top of the ladder, and the fallback's pictures.

    out = make_custom_set(tmp_dir)        # three pictures: 600 px (up to 512), 200 px (transparent, up to 192), 300 px (up to 256)
    assert_serves_the_custom_set(stack)   # stack.images_dir is that set
    assert_retired_names_redirect(stack, read_manifest(REPO / "images"))   # after a set change
"""
import subprocess
from pathlib import Path

from PIL import Image, ImageDraw

from imageset import read_manifest
from stack.client import get, wait_for_sidecar, while_stopped
from stack.images import IMMUTABLE, assert_served_image, redirect_entry, redirect_target

REPO = Path(__file__).resolve().parents[2]
ACCEPTS = {"avif": "image/avif,image/webp,*/*", "webp": "image/webp,*/*", "png": "*/*"}


def make_custom_set(directory):
    """directory/pictures (three pictures) -> directory/set by `make images`; returns the set.
    directory and its parents must be readable by the Nginx workers (not pytest's 0700 tmp)."""
    src, out = Path(directory) / "pictures", Path(directory) / "set"
    src.mkdir(parents=True, exist_ok=True)
    a = Image.linear_gradient("L").resize((800, 600)).convert("RGB")
    ImageDraw.Draw(a).ellipse((200, 100, 600, 500), fill=(200, 90, 30))
    a.save(src / "alice.jpg", quality=90)
    b = Image.new("RGBA", (200, 200), (0, 0, 0, 0))
    ImageDraw.Draw(b).ellipse((20, 20, 180, 180), fill=(40, 120, 220, 255))
    b.save(src / "bob.png")
    c = Image.radial_gradient("L").resize((300, 300)).convert("RGB")
    ImageDraw.Draw(c).rectangle((100, 100, 200, 200), fill=(30, 160, 60))
    c.save(src / "carol.webp", quality=90)
    done = subprocess.run(["make", "-s", "-C", str(REPO), "images", f"SRC={src}", f"OUT={out}"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return out


def assert_serves_the_custom_set(stack):
    m = read_manifest(stack.images_dir)
    assert m.legacy == [] and all(e.path.startswith("a/avatar-") for e in m.images), "not a custom set"
    # every size and format of every picture is served, byte for byte
    for e in m.images:
        assert_served_image(stack, m, e.path, get(stack, "/" + e.path))
    # `/` answers only this set's pictures (random pick: every picture shows up), at the default
    # size or the picture's own largest below it
    seen = set()
    for i in range(60):
        e = redirect_entry(stack, m, get(stack, f"/?n={i}"))
        assert e.size == min(m.default_size, m.largest(e.fox)), e
        seen.add(e.fox)
    assert seen == set(m.foxes), f"60 unkeyed asks gave only pictures {sorted(seen)}"
    # keyed asks at every size, in every format: the fill rule, the format asked for
    corpus = [(f"/?u=user-{k}&s={size}", fmt) for k in range(12) for size in m.sizes + [1000]
              for fmt in ACCEPTS]
    sidecar = {}
    for query, fmt in corpus:
        r = get(stack, query, headers={"Accept": ACCEPTS[fmt]})
        assert r.status == 302 and b"<html>" not in r.body, (query, r.status)
        e = redirect_entry(stack, m, r)
        size = int(query.rsplit("=", 1)[1])
        assert (e.size, e.fmt) == (min(min(s for s in m.sizes if s >= size) if size <= m.sizes[-1]
                                       else m.sizes[-1], m.largest(e.fox)), fmt), (query, e)
        sidecar[query, fmt] = redirect_target(stack, r)
    assert len({sidecar[q, f].split("-")[1] for q, f in sidecar}) > 1, "every key got one picture"
    # the Nginx fallback (sidecar stopped): without a key, this set's picture at the default size or
    # its own largest below it, in the last format; a keyed request, a 503
    stack.stop_app()
    try:
        (answers,) = while_stopped([lambda i=i: get(stack, f"/?n={i}") for i in range(12)] + [lambda: get(stack, corpus[0][0])])
        for r in answers[:-1]:
            assert r.status == 302 and b"<html>" in r.body, "a 302 while the sidecar is stopped must be Nginx's"
            e = redirect_entry(stack, m, r)
            assert (e.size, e.fmt) == (min(m.default_size, m.largest(e.fox)), m.formats[-1].ext), e
        assert answers[-1].status == 503, answers[-1].status
    finally:
        stack.start_app()
    wait_for_sidecar(stack, 60)


def assert_retired_names_redirect(stack, retired):
    """A set change never leaves a cached redirect pointing at nothing: every content-addressed file
    of the set served before (retired, a Manifest), which a keyed 302 still inside its max-age may
    name, gets a 302 (never cached) to the current set's file of the same picture number (any
    picture where the current set has fewer), size (the fill rule) and format, and that file is
    served. Names that were never a set's file stay a 404."""
    m = read_manifest(stack.images_dir)
    gone = [e for e in retired.images if m.entry(e.path) is None]
    assert gone, "the retired set shares every file with the served one: nothing to check"
    for e in gone:
        r = get(stack, "/" + e.path)
        assert r.status == 302, (e.path, r.status)
        assert r.header("Cache-Control") == "no-store", (e.path, r.header("Cache-Control"))
        assert r.header("Access-Control-Allow-Origin") == "*", e.path
        assert r.header("Strict-Transport-Security"), e.path
        now = redirect_entry(stack, m, r)
        fox = e.fox if e.fox in m.foxes else now.fox
        assert "/" + now.path == m.answer(fox, min(s for s in m.sizes if s >= e.size)
                                          if e.size <= m.sizes[-1] else m.sizes[-1], e.fmt), (e.path, now)
    for e in gone[:: max(1, len(gone) // 12)]:      # the files they land on are served, cached for ever
        target = redirect_entry(stack, m, get(stack, "/" + e.path))
        served = get(stack, "/" + target.path)
        assert_served_image(stack, m, target.path, served)
        assert served.header("Cache-Control") == IMMUTABLE
    name = gone[0].path
    for never in ("/a/" + name.rsplit("/", 1)[1].rsplit(".", 2)[0] + ".zzz.png",   # no hash
                  "/" + name + ".gif", "/a/x/" + name.rsplit("/", 1)[1], "/b/" + name.rsplit("/", 1)[1],
                  "/" + name.replace(".", "-", 1)):
        assert get(stack, never).status == 404, never
