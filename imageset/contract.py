"""The facts of the image-set contract that more than one module uses (a fact one module uses lives
there). A set's own properties are written into its manifest (writer.py), and read from it. The Java
sidecar states the few it needs in the class that uses them. Standard library only.
"""
from collections import namedtuple

# The manifest's file name in an images directory, and the subdirectory of the content-addressed files.
MANIFEST = "manifest.tsv"
SUBDIR = "a"

# Key buckets: Nginx's split_clients with 10,000 parts of 0.01 % (its finest part) over
# MurmurHash2(key); a key's bucket is min(h // PART, BUCKETS - 1) for the unsigned 32-bit hash h.
BUCKETS = 10_000
PART = 0xFFFFFFFF // BUCKETS        # 429496

# A keyed identity's file-name prefix (the `variants` record), and the stems of Gravatar's d=mp and
# d=blank drawn beside the identities.
IDENTITY_PREFIX = r"[A-Za-z][A-Za-z0-9_-]{0,39}"
MP, BLANK = "mp", "blank"

# A new set's sizes (px): the 2x of the common CSS sizes 16 24 32 48 64 96 128 192 256. It stops at
# 512: Libravatar's largest size, and what a 256 CSS px profile picture needs on a 2x screen. A
# picture may stop below the top (never upscaled): its rungs are a prefix of the ladder.
LADDER = (32, 48, 64, 96, 128, 192, 256, 384, 512)

# ext: the file extension, also the format's name; media: its Content-Type.
Format = namedtuple("Format", "ext media")

# In order of preference; the last is served when Accept lists none of the others (every browser
# shows PNG).
FORMATS = (
    Format("avif", "image/avif"),
    Format("webp", "image/webp"),
    Format("png", "image/png"),
)
