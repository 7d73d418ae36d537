"""The keyed identities: each drawn fox on a variant background, named by the manifest's variants
record. The palette keeps 3:1 against the fox's white outline and stays apart under simulated
colour-vision deficiencies; a key's variant is nginx's and independent of its picture; a set change
moves only the keys of the picture added or removed; six people rarely share one; the SVG fits the
browser budget."""
import hashlib
import math
import sys
from itertools import combinations
from pathlib import Path

import pytest
from imageset import read_manifest
from imageset.buckets import murmur2, table, variant_of
from imageset.contract import BUCKETS, PART

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "images"))
from drawing.colour import VISIONS, contrast, distance  # noqa: E402
from drawing.identity import OUTLINE, PALETTE, SILHOUETTE, VARIANTS, shade, svg  # noqa: E402
from drawing.svg import gz  # noqa: E402
import identities  # noqa: E402

MIN_DISTANCE = 15          # CIEDE2000, every pair, every vision
SVG_BUDGET = 1500          # bytes on the wire (gzip) for a browser


def manifest():
    return read_manifest(ROOT / "images", check_files=False)


def test_the_mp_silhouette_has_3_to_1_against_its_background():
    assert contrast(*SILHOUETTE) >= 3


def test_white_outline_has_3_to_1_against_every_background_and_pattern_colour():
    for colour in PALETTE:
        assert contrast(OUTLINE, colour) >= 3, colour
        assert contrast(OUTLINE, shade(colour)) >= 3, shade(colour)


@pytest.mark.parametrize("vision", VISIONS)
def test_background_colours_stay_apart_for_each_vision(vision):
    nearest = min((distance(a, b, vision), a, b) for a, b in combinations(PALETTE, 2))
    assert nearest[0] >= MIN_DISTANCE, nearest


def test_the_manifests_variants_record_is_what_identities_py_draws():
    directory, count, sizes = identities.describe().split(":")
    vs = manifest().variants
    assert (vs.directory, vs.prefix, vs.count, vs.sizes) == (directory, "Renard", VARIANTS, identities.SIZES)
    assert (int(count), sizes) == (VARIANTS, "64,256,512")


def test_two_of_six_people_share_an_identity_at_most_1_5_percent_of_the_time():
    m = manifest()
    fox = [0.0] * (len(m.foxes) + 1)
    for b, f in enumerate(m.buckets):
        fox[f] += ((b + 1) * PART if b < BUCKETS - 1 else 2 ** 32) - b * PART
    width = 0xFFFFFFFF // VARIANTS
    variant = [width] * (VARIANTS - 1) + [2 ** 32 - (VARIANTS - 1) * width]
    p = [f * v / 2 ** 64 for f in fox[1:] for v in variant]
    e = [1.0] + [0.0] * 6                        # elementary symmetric sums: all six differ
    for x in p:
        for k in range(6, 0, -1):
            e[k] += e[k - 1] * x
    assert 1 - math.factorial(6) * e[6] <= 0.015


# key, nginx 1.22.1's ngx_murmur_hash2, its split_clients variant of 80 over the key and "#v" (as the
# app's Murmur2Test): a key keeps its identity from one version to the next only while these hold
NGINX = [("", 0x00000000, 75), ("a", 0x92685f5e, 0), ("ab", 0x1aa14063, 33), ("abc", 0x13577c9b, 36),
         ("hello@example.com", 0xe664055c, 23), ("0123456789abcdef0123456789abcdef", 0x733233f1, 48),
         ("edge-947", 0xfffad870, 59)]


@pytest.mark.parametrize("key,h,v", NGINX)
def test_murmur2_and_the_variant_are_what_nginx_computes(key, h, v):
    assert (murmur2(key.encode()), variant_of(key.encode(), VARIANTS)) == (h, v)


def test_a_set_change_moves_only_the_keys_of_the_picture_added_or_removed():
    foxes = [f"Renard-{n}" for n in range(1, 22)]
    sets = {"21": foxes, "22": foxes + ["Renard-22"], "mid": [i for i in foxes if i != "Renard-5"] + ["Renard-22"]}
    tables = {name: table(ids) for name, ids in sets.items()}

    def moved(before, after):
        return [b for b in range(BUCKETS) if sets[before][tables[before][b] - 1] != sets[after][tables[after][b] - 1]]
    added = moved("21", "22")
    assert abs(len(added) / BUCKETS - 1 / 22) < 0.01, len(added)
    assert all(sets["22"][tables["22"][b] - 1] == "Renard-22" for b in added), "a moved key goes to the new picture"
    for removed, name in [("Renard-22", "21"), ("Renard-5", "mid")]:
        gone = moved("22", name)
        assert gone == [b for b in range(BUCKETS) if sets["22"][tables["22"][b] - 1] == removed], removed
        assert len(gone) / BUCKETS < 1 / 22 + 0.01, removed


def test_a_keys_variant_is_independent_of_its_bucket():
    keys = [hashlib.md5(str(i).encode()).hexdigest().encode() for i in range(40_000)]
    rows, cols, cells = {}, {}, {}
    for k in keys:
        r, c = min(murmur2(k) // PART, BUCKETS - 1) // 1000, variant_of(k, VARIANTS) // 8
        rows[r], cols[c] = rows.get(r, 0) + 1, cols.get(c, 0) + 1
        cells[r, c] = cells.get((r, c), 0) + 1
    n = len(keys)
    chi2 = sum((cells.get((r, c), 0) - rows[r] * cols[c] / n) ** 2 / (rows[r] * cols[c] / n)
               for r in rows for c in cols)
    assert chi2 < 81 + 4 * math.sqrt(2 * 81), chi2      # 81 degrees of freedom, 4 sigma


def test_every_identity_svg_fits_the_browser_budget():
    largest = max(len(gz(svg(f, v)))
                  for f in manifest().foxes for v in range(VARIANTS))
    assert largest <= SVG_BUDGET
