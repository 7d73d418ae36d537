"""Which picture a key gets: the manifest's `buckets` table (10,000 key buckets -> picture numbers).

    from imageset.buckets import table, bucket_of
    table(["Renard-1", ..., "Renard-21"])   # -> [F0, ..., F9999], picture numbers 1..N
    bucket_of(h)                            # the bucket of an unsigned 32-bit MurmurHash2 h

A key's bucket is the part Nginx's `split_clients` picks among 10,000 parts of 0.01 % each over
MurmurHash2(key): bucket = min(h // 429496, 9999) (the part boundaries are k * floor(0xffffffff /
10000)). The Java sidecar reads the same table (one division, one array read), so both answer
from the manifest alone and agree on every key.

Bucket b goes to the picture whose stable id wins the rendezvous (highest random weight) draw:
the highest SHA-256(id + "/" + b), first 8 bytes read big-endian (a tie, which never happens in
practice, goes to the lower picture number). Ids: the fox set's "Renard-N", a custom set's
source file name without its extension.

Why this is the simplest design that works:
- stateless: the table is a pure function of the set's ids, so `make images` needs no memory of
  earlier sets (no state file to keep, lose or merge) and any two runs agree;
- deterministic and order-independent: each bucket's owner depends only on which ids exist, not
  on their order or on the picture numbers, so renumbering (a file added before others in name
  order) moves no key;
- adding a picture moves only the buckets it wins, about 1/(N+1) of them, each from whichever
  picture had it; removing one moves only its own buckets (every other bucket's maximum is
  unchanged); replacing a picture's file keeps its id, so no key moves at all;
- the readers stay trivial: a fixed table of 10,000 buckets is what `split_clients` can express
  (0.01 % is its finest part) and a plain array for Java, with no hashing of ids at request time.
The fox set has a history, and keeps it: before manifest v2 a key's fox was one of 21 equal
shares of the hash (split_clients, 4.76 % each, the last taking the rest). Each share is a run
of whole buckets (476 each, the last 480), so the drawn foxes start from it (ORIGIN): in bucket
b the fox that owned b's share competes with the highest weight any of the 21 origin ids draws
there, and the other origin ids do not compete. A new picture still wins about 1/(N+1) of the
buckets (it must beat the maximum of the 21 draws, as in plain rendezvous), a removed origin fox
gives up only its own buckets (to the plain draw among the rest), and the keys of every
existing user keep their fox across the upgrade (all but the keys within a few hash values of
the old share boundaries, about 0.002 %). A custom set has no history: plain rendezvous.
Equal shares of the hash (the design before manifest v2) are just as simple to read but move
about half the keys when a picture is added; consistent hashing on a ring needs virtual nodes to
be even, and jump hashing cannot remove a picture from the middle. 10,000 buckets keep each
picture's share within about +-1.5 % of its fair share at 21 pictures (binomial noise), and the
unkeyed (random) pick does not use the table: it stays uniform over the pictures.
"""
import hashlib

from .contract import BUCKETS, PART, VARIANT_SUFFIX


def murmur2(data):
    """Nginx's ngx_murmur_hash2 of bytes (what split_clients hashes), unsigned 32 bits."""
    m, h, n, i = 0x5BD1E995, len(data), len(data), 0
    while n - i >= 4:
        k = (int.from_bytes(data[i:i + 4], "little") * m) & 0xFFFFFFFF
        k = ((k ^ (k >> 24)) * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
        i += 4
    for j in range(n - i - 1, -1, -1):      # the tail: bytes 2, 1, 0 as present
        h ^= data[i + j] << (8 * j)
    if n - i:
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    return h ^ (h >> 15)


def variant_of(key, count):
    """The variant (0..count-1) of a key (bytes): split_clients "${key}#v" with count equal parts of
    10000/count hundredths of a percent (count divides 10,000), the last taking the rest. Independent
    of the key's bucket, so the set's pictures can change without moving a key's variant."""
    return min(murmur2(key + VARIANT_SUFFIX.encode()) // (0xFFFFFFFF // count), count - 1)


def bucket_of(h):
    """The bucket of an unsigned 32-bit hash h, as split_clients with BUCKETS parts of 0.01 % picks it."""
    return min(h // PART, BUCKETS - 1)


def _weight(stable_id, b):
    return int.from_bytes(hashlib.sha256(f"{stable_id}/{b}".encode("utf-8")).digest()[:8], "big")


# The drawn foxes' equal shares before manifest v2 (see the module docstring).
ORIGIN = tuple(f"Renard-{n}" for n in range(1, 22))
ORIGIN_SHARE = BUCKETS // len(ORIGIN)        # 476 buckets each, the last one 480


def origin_owner(b):
    """The id that held bucket b under the 21 equal shares."""
    return ORIGIN[min(b // ORIGIN_SHARE, len(ORIGIN) - 1)]


def table(ids):
    """The picture number (1-based position in ids) of each of the BUCKETS buckets."""
    if not ids:
        raise ValueError("buckets: no picture")
    if len(set(ids)) != len(ids):
        raise ValueError(f"buckets: stable ids are not unique: {sorted(i for i in ids if ids.count(i) > 1)}")
    present = set(ids)
    out = []
    for b in range(BUCKETS):
        owner = origin_owner(b)
        inherited = owner in present
        origin_max = max(_weight(o, b) for o in ORIGIN) if inherited else None
        best, best_w = 0, -1
        for n, stable_id in enumerate(ids, 1):
            if inherited and stable_id in ORIGIN:
                if stable_id != owner:
                    continue
                w = origin_max
            else:
                w = _weight(stable_id, b)
            if w > best_w:
                best, best_w = n, w
        out.append(best)
    return out
