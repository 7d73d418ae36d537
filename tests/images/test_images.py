"""The fox image set: every fox at every ladder size in every format under images/a/,
named by content and listed in images/manifest.tsv; the 21 legacy names, valid square
PNGs, distinct, optimally compressed; all of it reproducible from images/draw.sh byte
for byte."""
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


def manifest():
    """images/manifest.tsv, read by the image set's owner (imageset)."""
    return read_manifest(IMAGES, check_files=False)


def listed(kind):
    """(path, fox, size, format) of the manifest's records of kind (image, legacy)."""
    m = manifest()
    return [(e.path, e.fox, e.size, e.fmt) for e in (m.images if kind == "image" else m.legacy)]


def all_files(directory):
    """Every file under directory that draw.sh makes (relative paths), scripts and scratch aside."""
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*")
                  if p.is_file() and (p.parent == directory / "a" or p.name == "manifest.tsv"
                                      or p.name in EXPECTED))


def load(name):
    with Image.open(IMAGES / name) as im:
        im.load()
        return im


def need_optipng():
    if not shutil.which("optipng"):
        pytest.skip("optipng not installed (tests/images/run.sh installs it)")


def test_images_dir_holds_only_foxes_their_manifest_and_the_scripts_that_draw_pictures():
    others = sorted(p.name for p in IMAGES.iterdir() if p.is_file() and p.name not in EXPECTED)
    assert others == ["README.md", "contact-sheet.py", "draw.py", "draw.sh", "encode.py", "identities.py", "inputs.py",
                      "manifest.tsv", "photo.py", "pictures.py", "pictures.sh", "requirements.txt"]
    dirs = sorted(p.name for p in IMAGES.iterdir() if p.is_dir() and p.name not in ("__pycache__", "i"))
    assert dirs == ["a", "drawing"]          # i/: the identities, drawn by `make images`, not committed


def test_every_fox_comes_in_every_size_and_format_in_manifest_order():
    got = [(fox, size, fmt) for _, fox, size, fmt in listed("image")]
    assert got == [(fox, size, fmt) for fox in FOXES for size in LADDER for fmt in FORMATS]


def test_each_manifest_image_has_the_size_and_format_it_is_listed_with():
    for path, fox, size, fmt in listed("image") + listed("legacy"):
        with Image.open(IMAGES / path) as im:
            im.load()
            assert (im.format, im.size) == (PILLOW_FORMAT[fmt], (size, size)), path
            assert im.mode in ("P", "RGB"), (path, im.mode)


def test_each_image_is_named_after_its_fox_size_format_and_the_hash_of_its_bytes():
    for path, fox, size, fmt in listed("image"):
        digest = hashlib.sha256((IMAGES / path).read_bytes()).hexdigest()[:10]
        assert path == f"a/Renard-{fox}-{size}.{digest}.{fmt}"


def test_no_file_in_the_immutable_directory_is_missing_from_the_manifest():
    names = {path for path, *_ in listed("image")}
    on_disk = {f"a/{p.name}" for p in (IMAGES / "a").iterdir()}
    assert on_disk - names == set(), "served but not listed"
    assert names - on_disk == set(), "listed but missing"


def test_the_legacy_pngs_are_the_256_px_pngs_byte_for_byte():
    biggest = {fox: path for path, fox, size, fmt in listed("image") if size == 256 and fmt == "png"}
    assert listed("legacy") == [(f"Renard-{fox}.png", fox, 256, "png") for fox in FOXES]
    for fox in FOXES:
        assert (IMAGES / f"Renard-{fox}.png").read_bytes() == (IMAGES / biggest[fox]).read_bytes(), fox


def png_chunks(data):
    chunks, pos = [], 8
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        chunks.append(data[pos + 4:pos + 8].decode("ascii"))
        pos += 12 + n
    return chunks


def webp_chunks(data):
    """RIFF: a 12-byte header, then chunks of a tag, a little-endian size and padded data."""
    chunks, pos = [], 12
    while pos < len(data):
        n = int.from_bytes(data[pos + 4:pos + 8], "little")
        chunks.append(data[pos:pos + 4].decode("ascii"))
        pos += 8 + n + (n & 1)
    return chunks


def test_each_png_and_webp_carries_no_metadata():
    for path, *_, fmt in listed("image"):
        data = (IMAGES / path).read_bytes()
        if fmt == "png":
            assert set(png_chunks(data)) <= {"IHDR", "PLTE", "tRNS", "IDAT", "IEND"}, path
        elif fmt == "webp":
            assert webp_chunks(data) == ["VP8L"], path     # lossless, no EXIF/XMP/ICC


def test_all_images_differ_visibly_from_each_other():
    pixels = {n: load(n).convert("RGB") for n in sorted(EXPECTED)}
    for a, b in combinations(sorted(EXPECTED), 2):
        assert pixels[a].size == pixels[b].size
        r, g, b_ = ImageChops.difference(pixels[a], pixels[b]).split()
        diff = ImageChops.lighter(ImageChops.lighter(r, g), b_)   # largest channel change
        # share of pixels that differ clearly (not by anti-aliasing noise); the
        # closest pair of the set is ~35%, a recoloured copy would be far less
        changed = diff.point(lambda v: 255 if v > 24 else 0).histogram()[255]
        share = changed / (diff.width * diff.height)
        assert share > 0.25, f"{a} and {b} differ in only {share:.1%} of pixels"


def test_pngs_are_already_optimally_compressed(tmp_path):
    need_optipng()
    pngs = [path for path, *_, fmt in listed("image") if fmt == "png"]     # the legacy names are copies
    copies = {path: Path(path).name for path in pngs}
    for path, copy in copies.items():
        shutil.copy(IMAGES / path, tmp_path / copy)
    subprocess.run(["optipng", "-quiet", "-o2", "-strip", "all", *copies.values()], cwd=tmp_path, check=True)
    # optipng leaves a file untouched unless it finds a smaller encoding
    shrinkable = [path for path, copy in copies.items()
                  if (tmp_path / copy).read_bytes() != (IMAGES / path).read_bytes()]
    assert shrinkable == [], f"optipng can still shrink: {shrinkable}"


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
