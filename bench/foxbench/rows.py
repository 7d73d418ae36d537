"""Which row of the raw results is which: a candidate's target in one protocol and, for the sidecar, one
of four requests: the plain `/` (no header), `/` + `Accept` (Chromium's image Accept), the avatar URL
`/?s=64&u=KEY` and the Gravatar URL `/avatar/MD5?s=80` + the same `Accept`; and the full stack's IMAGE rows,
a content-addressed image `/a/NAME.HASH.EXT` served by Nginx."""
import re

PLAIN, ACCEPT, AVATAR, GRAVATAR, IMAGE = "plain", "accept", "avatar", "gravatar", "image"


def kind(r):
    """PLAIN, ACCEPT (`/` with request headers), AVATAR (a query: the avatar URL), GRAVATAR
    (the Gravatar URL `/avatar/HASH`) or IMAGE (a content-addressed image, `/a/...`)."""
    if r.get("request", "/").startswith("/a/"):
        return IMAGE
    if r.get("request", "/").startswith("/avatar/"):
        return GRAVATAR
    if r.get("request", "/") != "/":
        return AVATAR
    return ACCEPT if r.get("headers") else PLAIN


def plain(r):
    """Whether the row requests the plain `/`, no header."""
    return kind(r) == PLAIN


def row(results, key, proto, which=PLAIN):
    """The row of a candidate's target in one protocol, of one kind (None when the run had none)."""
    return next((r for r in results["rows"] if r["key"] == key and r["proto"] == proto and kind(r) == which),
                None)


def avatar_request(r):
    """The request of a row, the avatar URL's key shown as KEY (the method text gives it)."""
    return re.sub(r"^/avatar/[0-9a-fA-F]+", "/avatar/KEY", re.sub(r"([?&]u=)[^&]*", r"\1KEY", r.get("request", "/")))


def request_note(r):
    """What the table's protocol cell adds for a row that is not the plain `/`: its request and header."""
    return "" if plain(r) else f", `{avatar_request(r)}`" + (" + `Accept`" if r.get("headers") else "")


def ratio(a, b, conc):
    try:
        return a["conc"][str(conc)]["rps"] / b["conc"][str(conc)]["rps"]
    except (TypeError, KeyError, ZeroDivisionError):
        return None
