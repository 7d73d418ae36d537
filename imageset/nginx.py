"""What the Nginx template (nginx/fox-avatar.conf.j2) is given about the image set: its maps as data.

    from imageset import read_manifest
    from imageset.nginx import template_data
    template_data(read_manifest("images"))   # -> the dict the template reads as avatar_image_set

Both renderers pass it: nginx/render.py (loopback stack, compose image) and Ansible (the
collection's fox_avatar.deploy.image_set filter, on the control machine). The template only
formats these lists into `map` and `split_clients` blocks; every rule (the ladder's snapping, the
fill rule, Gravatar's range, the shares of split_clients) is applied here, once, the way the
sidecar applies it (README "The avatar URL"). Plain lists, numbers and strings only: it passes
through Ansible's templating and JSON unchanged.
"""
from collections import defaultdict

import re

from .contract import (BLANK, BUCKETS, GRAVATAR_DEFAULT, GRAVATAR_EXTENSION, GRAVATAR_HASH, GRAVATAR_MAX,
                       GRAVATAR_PREFIX, IDENTITIES, IDENTITY_PREFIX, IDENTITY_SVG, MP, VARIANT_SUFFIX, accept_regex)


# An identity's stem in any drawing (d=mp's and d=blank's too), with its picture number captured.
_RETIRED_STEM = f"(?:{IDENTITY_PREFIX}-(?<avatar_retired_n>[0-9]+)-v[0-9]+|{MP}|{BLANK})"


def _snap(sizes, n):
    """The smallest size of the ladder at least n; the largest above them."""
    return next((s for s in sizes if s >= n), sizes[-1])


def _percent(hundredths):
    """A split_clients share in hundredths of a percent, as it is written: 4.76%."""
    return f"{hundredths // 100}.{hundredths % 100:02d}%"


def template_data(m):
    """The avatar_image_set dict of a Manifest (manifest.py)."""
    sizes, foxes, top = m.sizes, m.foxes, m.sizes[-1]
    # Every picture, size and format; a size above a picture's largest gets its largest (the fill rule).
    locations = [[f"{e.fox} {e.size} {e.fmt}", "/" + e.path] for e in m.images]
    by_fox = defaultdict(list)
    for e in m.images:
        by_fox[e.fox].append(e)
    for fox in foxes:
        own_top = max(e.size for e in by_fox[fox])
        largest = [e for e in by_fox[fox] if e.size == own_top]      # in format order
        for size in (s for s in sizes if s > own_top):
            locations += [[f"{fox} {size} {e.fmt}", "/" + e.path] for e in largest]
    # Without a key: equal shares of the pictures, in hundredths of a percent (the last takes the rest).
    share = 100 * 100 // len(foxes)
    return {
        # every URI served: "image" (content-addressed) or "legacy" (the old /Renard-N.png)
        "served": [["/" + e.path, e.kind] for e in m.images + m.legacy],
        "sizes": sizes,
        "foxes": foxes,
        "top": top,
        "default_size": m.default_size,
        # /: a size n (0 up to the top) -> the size answered
        "root_sizes": [[n, _snap(sizes, n)] for n in range(top + 1)],
        # /avatar/: Gravatar's range 1..GRAVATAR_MAX -> the size answered; its default's answer
        "gravatar_default": GRAVATAR_DEFAULT,
        "gravatar_max": GRAVATAR_MAX,
        "gravatar_max_digits": len(str(GRAVATAR_MAX)),
        "gravatar_default_size": _snap(sizes, GRAVATAR_DEFAULT),
        "gravatar_sizes": [[n, _snap(sizes, n)] for n in range(1, GRAVATAR_MAX + 1)],
        # /avatar/: Gravatar's path (contract.py): its prefix, as written and as a regex; the regexes
        # of the hash and of the extension
        "gravatar_prefix": GRAVATAR_PREFIX,
        "gravatar_prefix_regex": "^" + re.escape(GRAVATAR_PREFIX),
        "gravatar_hash": GRAVATAR_HASH,
        "gravatar_extension": GRAVATAR_EXTENSION,
        # formats: [Accept regex, ext] in order of preference, then the answer when none matches
        "accept": [[f.accept_regex, f.ext] for f in m.formats[:-1]],
        "fallback_format": m.formats[-1].ext,
        "extensions": [f.ext for f in m.formats],
        "types": [[f.media_type, f.ext] for f in m.formats] + ([[IDENTITY_SVG, "svg"]] if m.variants else []),
        "key_max_length": m.key_max_length,
        "keyed_max_age": m.keyed_max_age,
        # the keyed fox: one split_clients part of bucket_share per bucket, each naming its picture
        "bucket_share": f"{100 / BUCKETS:g}%",
        "buckets": list(m.buckets),
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
    """The keyed identities: split_clients "${key}#v" in equal parts, the SVG's Accept regex, the
    PNG size of each ladder size (what $avatar_size holds), and the regexes of their files' URIs, in
    this drawing's directory and in any other (an earlier drawing's) beside it."""
    vs = m.variants
    names = (f"((?:{re.escape(vs.prefix)}-[0-9]{{1,4}}-v[0-9]{{1,4}}|{MP}|{BLANK})"
             f"(?:\\.svg|-(?:{'|'.join(map(str, vs.sizes))})\\.png))$")
    return {
        "directory": f"/{vs.directory}/",
        "prefix": vs.prefix,
        "suffix": VARIANT_SUFFIX,
        "count": vs.count,
        "share": _percent(BUCKETS // vs.count),
        "svg_accept": accept_regex(IDENTITY_SVG),
        "png_sizes": [[n, _snap(list(vs.sizes), n)] for n in m.sizes],
        "file_regex": f"^/{re.escape(vs.directory)}/{names}",
        "earlier_regex": f"^/{re.escape(vs.directory.rpartition('/')[0])}/[^/]+/{names}",
    }


def people_rows(people):
    """The template's avatar_people: [HASH, F or F-vV] rows of a list read by people.read_people."""
    return [[h, str(f) if v is None else f"{f}-v{v}"] for h, (f, v) in sorted(people.items())]
