"""Every fixed fact of the image-set contract, defined here once.

The set's own properties (its ladder, formats, default size, keyed max-age and longest key) are
written into each manifest (writer.py, from the defaults below), and every reader takes them from
the manifest. The facts below are not properties of one set: the Python side and the Nginx
template's data (nginx.py) read them from here. The Java sidecar states the few it needs in the
class that uses them (the bounds in ManifestReader.java, Gravatar's path in GravatarPath.java, the
buckets in KeyBuckets.java); tests/images/manifest-cases.txt, which both readers run, holds the
bounds to the same numbers. Standard library only.
"""
from collections import namedtuple

# The manifest: its file name in an images directory, and the subdirectory of the content-addressed
# files (SUBDIR/PREFIX-N-SIZE.HASH.EXT, HASH the first HASH_HEX hex digits of the file's SHA-256).
MANIFEST = "manifest.tsv"
SUBDIR = "a"
HASH_HEX = 10

# Key buckets: Nginx's split_clients with 10,000 parts of 0.01 % (its finest part) over
# MurmurHash2(key); a key's bucket is min(h // PART, BUCKETS - 1) for the unsigned 32-bit hash h.
BUCKETS = 10_000
PART = 0xFFFFFFFF // BUCKETS        # 429496: split_clients' width of a 0.01 % part

# Keyed identities (a drawn set's `variants` record): a key's variant is split_clients over
# MurmurHash2 of the key followed by VARIANT_SUFFIX, in the record's COUNT equal parts (a divisor of
# 10,000: each part a whole number of hundredths of a percent, split_clients' precision). Its files:
# DIR/STEM.svg (stored gzipped, .svg.gz: Nginx's gzip_static) for a request whose Accept lists
# IDENTITY_SVG, else DIR/STEM-SIZE.png, SIZE the record's smallest size at least the size asked (the
# largest above them). STEM is PREFIX-FOX-vV, or MP / BLANK: Gravatar's d=mp and d=blank.
VARIANT_SUFFIX = "#v"
IDENTITY_PREFIX = r"[A-Za-z][A-Za-z0-9_-]{0,39}"
# Where images/identities.py draws a set's identities (DIR is IDENTITIES/HASH): a cached keyed
# redirect into it is recognised whatever the set served now, one with identities or not.
IDENTITIES = "i"
IDENTITY_SVG = "image/svg+xml"
MP, BLANK = "mp", "blank"


def identity_path(directory, stem, size=None):
    """The served path of an identity (or d=mp, d=blank): its SVG (size None) or its PNG of that size."""
    return f"{directory}/{stem}" + (".svg" if size is None else f"-{size}.png")


# Gravatar's path (Gravatar's and Libravatar's avatar URL, /avatar/<hash>[.<ext>]; docs/integrations.md):
# the prefix; the hash, MD5 or SHA-256 (32 or 64 hex digits in any case: the key exactly as written);
# an optional extension of 1 to 5 ASCII letters or digits (clients append .jpg or .png out of habit).
# Nginx's location takes them (nginx.py); the sidecar scans a path by the same numbers (GravatarPath.java).
GRAVATAR_PREFIX = "/avatar/"
GRAVATAR_HASH = "[0-9A-Fa-f]{32}|[0-9A-Fa-f]{64}"
GRAVATAR_EXTENSION = r"(?:\.[A-Za-z0-9]{1,5})?"

# At most this many pictures in a set `make images SRC=` makes (images/inputs.py refuses a folder
# with more entries, in one line, before any is read): the keyed pick spreads keys over BUCKETS, so
# a set of 1,000 still gives each picture about 10 buckets (about 0.1 % of the keys each, give or
# take a third); the Nginx fallback's maps grow with the set too. (MAX_FOX, below, is what a reader
# of any manifest accepts.)
MAX_PICTURES = 1000

# What a reader accepts (both readers check the same bounds): they keep the sidecar's start-up
# tables small and Nginx's split_clients shares non-zero.
MAX_FOX = 9999             # pictures
MAX_SIZE = 4096            # px
MAX_AGE = 31_536_000       # the keyed max-age, seconds
MAX_KEY_LENGTH = 1024      # the longest key a manifest may allow, characters

# What a reader accepts in a field, as regexes (full match; both readers use these very patterns):
# a format's extension and media type, a number, a listed path (relative, URL-safe, no escapes;
# the readers refuse a `.` or `..` segment and a segment starting with a dot before this).
EXTENSION = r"[a-z0-9]+"
MEDIA_TYPE = r"[a-z0-9][a-z0-9.+-]*/[a-z0-9][a-z0-9.+-]*"
NUMBER = r"[0-9]{1,9}"
PATH = r"[A-Za-z0-9._~-]+(?:/[A-Za-z0-9._~-]+)*"

# --- A new set's defaults (writer.py writes them into its manifest) ---------------------------

# Sizes (px): the 2x of the common CSS sizes 16 24 32 48 64 96 128 192 256. It stops at 512:
# Libravatar's largest size, and what a 256 CSS px profile picture needs on a 2x screen (the
# profile pages of GitLab, Gitea and Discourse ask for 290-580 px). A picture may stop below
# the top (never upscaled): its rungs are a prefix of the ladder, from the smallest up.
LADDER = (32, 48, 64, 96, 128, 192, 256, 384, 512)
# What `/` answers when no valid size is asked (the manifest's `default` record): 256, what it
# answered before the ladder grew past it.
DEFAULT_SIZE = 256

# The keyed fox (GET /?u=KEY): its redirect's Cache-Control max-age (seconds; the same key always
# gets the same fox, so a browser may reuse the answer for an hour), and the longest key accepted.
KEYED_MAX_AGE = 3600
KEY_MAX_LENGTH = 128

# ext: the file extension, also the format's name; media: its Content-Type.
Format = namedtuple("Format", "ext media")

# In order of preference; the last is served when Accept lists none of the others (every
# browser shows PNG).
FORMATS = (
    Format("avif", "image/avif"),
    Format("webp", "image/webp"),
    Format("png", "image/png"),
)
