"""What every Gravatar/Libravatar URL must get from any stack (docs/integrations.md): a 302 to an image
Nginx serves, in a format the request's Accept lists (PNG aside), at least the asked size up to the
picture's largest, the fox of /?u=<hash>; a keyed answer's caching and Vary."""
import hashlib
import re
from urllib.parse import parse_qsl, urlsplit

from stack.client import get
from stack.images import assert_served_image, redirect_entry

# What server-side fetchers send: Discourse's download (Ruby: */*), Grafana's avatar proxy (its own
# JPEG-first list), a Go client with no Accept.
SERVER_ACCEPT = {
    "ruby": "*/*",
    "grafana": "text/html,application/xhtml+xml,application/xml;q=0.9,image/jpeg,image/png,*/*;q=0.8",
    "go-http": None,
}


def md5(email):
    return hashlib.md5(email.strip().lower().encode()).hexdigest()


def sha256(email):
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


def accepts(accept, fmt, manifest):
    """Does this Accept name the format (PNG is every client's fallback)?"""
    if fmt == "png":
        return True
    media = {f.ext: f.media_type for f in manifest.formats}[fmt]
    return bool(re.search(rf"(^|,)\s*{re.escape(media)}\s*(,|;(?!\s*q=0(\.0*)?\s*(,|$))|$)", accept or ""))


def asked_size(query):
    """The size the query asks for, by Gravatar's rule (s, else size; 1..2048; default 80)."""
    args = dict((k.lower(), v) for k, v in reversed(parse_qsl(query, keep_blank_values=True)))
    value = args.get("s") or args.get("size") or ""
    return int(value) if value.isdigit() and 1 <= int(value) <= 2048 else 80


def check_avatar_url(stack, manifest, url, accept, hash_):
    """The checks of issue 20 for one URL as a client made it; returns the answer's entry."""
    parts = urlsplit(url)
    target = parts.path + ("?" + parts.query if parts.query else "")
    assert parts.path.startswith("/avatar/"), url
    r = get(stack, target, headers={"Accept": accept} if accept else {})
    assert r.status == 302, (url, r.status)
    assert r.header("Vary") == "Accept", url
    assert r.header("Cache-Control") == f"public, max-age={manifest.keyed_max_age}", url
    e = redirect_entry(stack, manifest, r)
    assert_served_image(stack, manifest, e.path, get(stack, "/" + e.path))
    assert accepts(accept, e.fmt, manifest), (url, accept, e.fmt)
    largest = max(x.size for x in manifest.images if x.fox == e.fox)
    want = min(asked_size(parts.query), largest)
    assert e.size >= want and e.size == min(s for s in manifest.sizes if s >= want), (url, e.size, want)
    keyed = redirect_entry(stack, manifest, get(stack, f"/?u={hash_}", headers={"Accept": accept} if accept else {}))
    assert e.fox == keyed.fox, (url, e.fox, keyed.fox)
    return e
