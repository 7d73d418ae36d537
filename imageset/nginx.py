"""What the Nginx template (nginx/fox-avatar.conf.j2) is given about the image set: its maps as data.

    from imageset import read_manifest
    from imageset.nginx import template_data
    template_data(read_manifest("images"))   # -> the dict the template reads as avatar_image_set

Both renderers pass it: nginx/render.py and Ansible's fox_avatar.deploy.image_set filter. Plain
lists, numbers and strings only: it passes through Ansible's templating and JSON unchanged.
"""
from collections import defaultdict

import re

from .contract import BLANK, IDENTITY_PREFIX, MP

# Gravatar's and Libravatar's avatar URL, /avatar/<hash>[.<ext>] (docs/integrations.md): MD5 or
# SHA-256 in any case; an optional extension clients append out of habit. The sidecar scans a path by
# the same numbers (GravatarPath.java).
GRAVATAR_PREFIX = "/avatar/"
GRAVATAR_HASH = "[0-9A-Fa-f]{32}|[0-9A-Fa-f]{64}"
GRAVATAR_EXTENSION = r"(?:\.[A-Za-z0-9]{1,5})?"
IDENTITIES = "i"        # where images/identities.py draws a set's identities (DIR is i/HASH)
IDENTITY_SVG = "image/svg+xml"


# An identity's stem in any drawing (d=mp's and d=blank's too), with its picture number captured.
_RETIRED_STEM = f"(?:{IDENTITY_PREFIX}-(?<avatar_retired_n>[0-9]+)-v[0-9]+|{MP}|{BLANK})"


def _percent(hundredths):
    """A split_clients share in hundredths of a percent, as it is written: 4.76%."""
    return f"{hundredths // 100}.{hundredths % 100:02d}%"


def template_data(m):
    """The avatar_image_set dict of a Manifest (manifest.py)."""
    sizes, foxes = m.sizes, m.foxes
    # Every picture, size and format; a size above a picture's largest gets its largest (the fill rule).
    locations = [[f"{e.fox} {e.size} {e.fmt}", "/" + e.path] for e in m.images]
    by_fox = defaultdict(list)
    for e in m.images:
        by_fox[e.fox].append(e)
    for fox in foxes:
        own_top = max(e.size for e in by_fox[fox])
        largest = [e for e in by_fox[fox] if e.size == own_top]
        for size in (s for s in sizes if s > own_top):
            locations += [[f"{fox} {size} {e.fmt}", "/" + e.path] for e in largest]
    # Without a key: equal shares of the pictures, in hundredths of a percent (the last takes the rest).
    share = 100 * 100 // len(foxes)
    return {
        # every URI served: "image" (content-addressed) or "legacy" (the old /Renard-N.png)
        "served": [["/" + e.path, e.kind] for e in m.images + m.legacy],
        "sizes": sizes,
        "foxes": foxes,
        "top": sizes[-1],
        "default_size": m.default_size,
        # Gravatar's path (above): its prefix, as written and as a regex; the regexes of the
        # hash and of the extension (the sidecar gets /avatar/<hash>)
        "gravatar_prefix": GRAVATAR_PREFIX,
        "gravatar_prefix_regex": "^" + re.escape(GRAVATAR_PREFIX),
        "gravatar_hash": GRAVATAR_HASH,
        "gravatar_extension": GRAVATAR_EXTENSION,
        # the last format: every client takes it
        "fallback_format": m.formats[-1].ext,
        "extensions": [f.ext for f in m.formats],
        "types": [[f.media_type, f.ext] for f in m.formats] + ([[IDENTITY_SVG, "svg"]] if m.variants else []),
        "random_shares": [[_percent(share), fox] for fox in foxes[:-1]],
        "random_last": foxes[-1],
        "locations": locations,
        "variants": m.variants and _variants(m),
        # an identity's URI (any drawing's, this set's or an earlier one's), as $avatar_retired's
        # map matches it: its picture number (none for d=mp, d=blank) and the size of its PNG
        "retired_identity_svg": f"^:/{IDENTITIES}/[^/]+/{_RETIRED_STEM}\\.svg$",
        "retired_identity_png": f"^:/{IDENTITIES}/[^/]+/{_RETIRED_STEM}-(?<avatar_retired_s>[0-9]+)\\.png$",
    }


def _variants(m):
    """The keyed identities' files: the regexes of their URIs in this drawing's directory and in any
    other (an earlier drawing's) beside it."""
    vs = m.variants
    names = (f"((?:{re.escape(vs.prefix)}-[0-9]{{1,4}}-v[0-9]{{1,4}}|{MP}|{BLANK})"
             f"(?:\\.svg|-(?:{'|'.join(map(str, vs.sizes))})\\.png))$")
    return {
        "directory": f"/{vs.directory}/",
        "file_regex": f"^/{re.escape(vs.directory)}/{names}",
        "earlier_regex": f"^/{re.escape(vs.directory.rpartition('/')[0])}/[^/]+/{names}",
    }

