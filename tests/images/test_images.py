"""The fox image set: every fox at every ladder size in every format, listed in images/manifest.tsv;
the 21 legacy names, distinct foxes; all of it reproducible from images/draw.sh byte for byte."""
import hashlib
import shutil
import subprocess
import time
from itertools import combinations
from pathlib import Path

import pytest
from imageset import read_manifest
from PIL import Image, ImageChops

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "images"
EXPECTED = {f"Renard-{i}.png" for i in range(1, 22)}
FOXES = range(1, 22)
LADDER = [32, 48, 64, 96, 128, 192, 256, 384, 512]
FORMATS = ["avif", "webp", "png"]                      # in order of preference
PILLOW_FORMAT = {"avif": "AVIF", "webp": "WEBP", "png": "PNG"}


def listed(kind):
    """(path, fox, size, format) of images/manifest.tsv's records of kind (image, legacy)."""
    m = read_manifest(IMAGES, check_files=False)
    return [(e.path, e.fox, e.size, e.fmt) for e in (m.images if kind == "image" else m.legacy)]


def all_files(directory):
    """Every file under directory that draw.sh makes (relative paths), scripts and scratch aside."""
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*")
                  if p.is_file() and (p.parent == directory / "a" or p.name == "manifest.tsv"
                                      or p.name in EXPECTED))


def need_optipng():
    if not shutil.which("optipng"):
        pytest.skip("optipng not installed (tests/images/run.sh installs it)")


def test_every_fox_comes_in_every_size_and_format_in_manifest_order():
    got = [(fox, size, fmt) for _, fox, size, fmt in listed("image")]
    assert got == [(fox, size, fmt) for fox in FOXES for size in LADDER for fmt in FORMATS]


def test_each_manifest_image_has_the_size_and_format_it_is_listed_with():
    for path, fox, size, fmt in listed("image") + listed("legacy"):
        with Image.open(IMAGES / path) as im:
            im.load()
            assert (im.format, im.size) == (PILLOW_FORMAT[fmt], (size, size)), path
            assert im.mode in ("P", "RGB"), (path, im.mode)


def test_the_legacy_pngs_are_the_256_px_pngs_byte_for_byte():
    biggest = {fox: path for path, fox, size, fmt in listed("image") if size == 256 and fmt == "png"}
    assert listed("legacy") == [(f"Renard-{fox}.png", fox, 256, "png") for fox in FOXES]
    for fox in FOXES:
        assert (IMAGES / f"Renard-{fox}.png").read_bytes() == (IMAGES / biggest[fox]).read_bytes(), fox


def test_all_images_differ_visibly_from_each_other():
    pixels = {n: Image.open(IMAGES / n).convert("RGB") for n in sorted(EXPECTED)}
    for a, b in combinations(sorted(EXPECTED), 2):
        assert pixels[a].size == pixels[b].size
        r, g, b_ = ImageChops.difference(pixels[a], pixels[b]).split()
        diff = ImageChops.lighter(ImageChops.lighter(r, g), b_)   # largest channel change
        # share of pixels that differ clearly (not by anti-aliasing noise); the
        # closest pair of the set is ~35%, a recoloured copy would be far less
        changed = diff.point(lambda v: 255 if v > 24 else 0).histogram()[255]
        share = changed / (diff.width * diff.height)
        assert share > 0.25, f"{a} and {b} differ in only {share:.1%} of pixels"


def sha256(p):
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_draw_script_reproduces_the_committed_set_and_manifest_byte_for_byte(tmp_path):
    need_optipng()
    out = tmp_path / "out"
    t0 = time.monotonic()
    subprocess.run([str(IMAGES / "draw.sh"), str(out), "--no-identities"], check=True)   # test_identities.py
    print(f"draw.sh regenerated the set in {time.monotonic() - t0:.1f}s")
    fresh = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert fresh == all_files(IMAGES), "a fresh draw makes other files (or leaves scratch behind)"
    differing = [n for n in all_files(IMAGES) if sha256(out / n) != sha256(IMAGES / n)]
    assert differing == [], f"committed images differ from a fresh draw: {differing}"


def test_readme_contact_sheet_shows_the_current_set(tmp_path):
    need_optipng()
    sheet = tmp_path / "foxes.png"
    subprocess.run(["python3", str(IMAGES / "contact-sheet.py"), str(sheet), "112", str(IMAGES)], check=True)
    subprocess.run(["optipng", "-quiet", "-o2", "-strip", "all", str(sheet)], check=True)
    assert sha256(sheet) == sha256(ROOT / "docs" / "foxes.png"), "docs/foxes.png is stale: run make images"
