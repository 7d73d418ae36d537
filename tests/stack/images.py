"""What the stack tests expect of the image set and the avatar URL's answers, from the set's manifest."""
import gzip
import io
import re
from urllib.parse import urlsplit

import pytest
from PIL import Image

from imageset import read_manifest
from stack.client import get

WEEK = 7 * 24 * 3600
IMMUTABLE = "public, max-age=31536000, immutable"
PIL_FORMATS = {"png": "PNG", "webp": "WEBP", "avif": "AVIF"}

# Real browsers' Accept for an <img> (2026), and what each must get.
ACCEPT = {
    "chromium": ("image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", "avif"),
    "firefox": ("image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5", "avif"),
    "safari": ("image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,"
               "image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5", "avif"),
    "old-safari": ("image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5", "webp"),
    "curl": ("*/*", "png"),
    "avif-refused": ("image/avif;q=0,image/webp", "webp"),
}


@pytest.fixture(scope="module")
def manifest(stack):
    m = read_manifest(stack.images_dir)
    assert m.images and m.legacy, f"empty manifest in {stack.images_dir}"
    return m


def redirect_target(stack, response):
    """The path (no leading /) a 302 from the avatar URL points to: a relative Location."""
    location = response.header("Location")
    assert location, "302 without Location"
    parts = urlsplit(location)
    assert not parts.scheme and not parts.netloc, location
    assert not parts.query and not parts.fragment, location
    assert re.fullmatch(r"/[^?#]+", parts.path), location
    return parts.path[1:]


def redirect_entry(stack, manifest, response):
    """The manifest's content-addressed entry a 302 points to (never a legacy name)."""
    path = redirect_target(stack, response)
    entry = manifest.entry(path)
    assert entry is not None and entry.kind == "image", f"{path}: not a content-addressed image of the manifest"
    return entry


def assert_served_identity(stack, location, size=None):
    """An identity's file as a client gets it with gzip: the SVG gzipped, or a PNG of size px; immutable."""
    r = get(stack, location, headers={"Accept-Encoding": "gzip"})
    assert r.status == 200 and r.header("Cache-Control") == IMMUTABLE and r.header("ETag"), (location, r.status, r.headers)
    if size is None:
        assert (r.header("Content-Type"), r.header("Content-Encoding")) == ("image/svg+xml", "gzip"), (location, r.headers)
        assert gzip.decompress(r.body).startswith(b"<svg "), location
    else:
        with Image.open(io.BytesIO(r.body)) as im:
            assert (r.header("Content-Type"), im.format, im.size) == ("image/png", "PNG", (size, size)), location
    return r


def assert_served_image(stack, manifest, path, r):
    """200 with the file's bytes, its format's Content-Type and pixel size, the caching its kind
    gets (immutable, or the legacy weekly lifetime), validators and CORS."""
    entry = manifest.entry(path)
    assert entry is not None, path
    assert r.status == 200, (path, r.status)
    media = {f.ext: f.media_type for f in manifest.formats}[entry.fmt]
    assert r.header("Content-Type") == media, (path, r.header("Content-Type"))
    assert r.body == (stack.images_dir / entry.path).read_bytes(), f"{path}: not the file's bytes"
    with Image.open(io.BytesIO(r.body)) as im:
        assert (im.format, im.size) == (PIL_FORMATS[entry.fmt], (entry.size, entry.size)), (path, im.format, im.size)
    cc = r.header("Cache-Control")
    if entry.kind == "image":
        assert cc == IMMUTABLE, f"{path}: Cache-Control: {cc}"
    else:
        m = re.fullmatch(r"public, max-age=(\d+)", cc or "")
        assert m and int(m.group(1)) >= WEEK, f"{path}: Cache-Control: {cc}"
    assert r.header("ETag") and r.header("Last-Modified")
    assert r.header("Access-Control-Allow-Origin") == "*"

