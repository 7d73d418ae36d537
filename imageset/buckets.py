"""Which picture a key gets: the manifest's `buckets` table (10,000 key buckets -> picture numbers).

    from imageset.buckets import table
    table(["Renard-1", ..., "Renard-21"])   # -> [F0, ..., F9999], picture numbers 1..N

What it promises: docs/avatar-url.md#how-a-key-picks-a-picture. Bucket b goes to the picture whose
stable id has the highest SHA-256(id + "/" + b), first 8 bytes big-endian (a tie goes to the lower
number): a pure function of the ids, so renumbering moves no key, adding a picture moves only the
buckets it wins, removing one only its own. A key's bucket: contract.py; the sidecar reads the table.
"""
import hashlib

from .contract import BUCKETS

VARIANT_SUFFIX = "#v"   # a key's identity variant: split_clients over MurmurHash2(key + VARIANT_SUFFIX)


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


def _weight(stable_id, b):
    return int.from_bytes(hashlib.sha256(f"{stable_id}/{b}".encode("utf-8")).digest()[:8], "big")


def table(ids):
    """The picture number (1-based position in ids) of each of the BUCKETS buckets."""
    if not ids:
        raise ValueError("buckets: no picture")
    if len(set(ids)) != len(ids):
        raise ValueError(f"buckets: stable ids are not unique: {sorted(i for i in ids if ids.count(i) > 1)}")
    return [max(range(len(ids)), key=lambda n: (_weight(ids[n], b), -n)) + 1 for b in range(BUCKETS)]
