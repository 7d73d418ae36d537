"""The fox image set: exactly the 21 served names, valid square PNGs, distinct,
optimally compressed, and reproducible from images/draw.sh byte for byte."""
import hashlib
import shutil
import subprocess
import time
from itertools import combinations
from pathlib import Path

import pytest
from foxavatar.imageset import RULE_FILE, read_rule, image_names
from PIL import Image, ImageChops

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "images"
EXPECTED = {f"Renard-{i}.png" for i in range(1, 22)}
MIN_SIDE = 256


def served_files():
    return sorted(image_names(IMAGES))


def load(name):
    with Image.open(IMAGES / name) as im:
        im.load()
        return im


def need_optipng():
    if not shutil.which("optipng"):
        pytest.skip("optipng not installed (tests/images/run.sh installs it)")


def test_image_set_is_exactly_the_21_foxes():
    assert served_files() == sorted(EXPECTED)


def test_images_dir_holds_only_foxes_and_their_scripts():
    others = sorted(p.name for p in IMAGES.iterdir() if p.is_file() and p.name not in EXPECTED)
    assert others == ["contact-sheet.py", "draw.py", "draw.sh", "names.regex"]


def test_the_image_name_rule_is_spelled_out_in_its_owner_only():
    """images/names.regex owns the rule: every other place reads it (or is rendered from it)."""
    rule = read_rule()
    extensions = rule[rule.index("("):]          # the distinctive part, e.g. (png|jpg|...)
    owner = [str(RULE_FILE.relative_to(ROOT))]
    # The rule itself, its extension list, and the list as a basic regex would escape it (grep, sed).
    for needle, expected in ((rule, owner), (extensions, owner), (extensions.replace("|", "\\|"), [])):
        found = subprocess.run(["git", "grep", "-l", "-F", "-e", needle, "--", ":!*.png"], cwd=ROOT,
                               capture_output=True, text=True).stdout.split()
        assert found == expected, (needle, found)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_image_is_a_square_png_of_at_least_256_px(name):
    with Image.open(IMAGES / name) as im:
        im.verify()                      # structure and CRCs
    im = load(name)
    assert im.format == "PNG"
    w, h = im.size
    assert w == h, f"{name} is {w}x{h}, not square"
    assert w >= MIN_SIDE, f"{name} is {w}px, below {MIN_SIDE}"
    # palette (indexed RGB), RGB or RGBA: full colour, no grayscale/CMYK oddities
    assert im.mode in ("P", "RGB", "RGBA"), im.mode
    if im.mode == "P":
        assert im.palette.mode in ("RGB", "RGBA")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_image_carries_no_metadata(name):
    data = (IMAGES / name).read_bytes()
    chunks, pos = [], 8
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        chunks.append(data[pos + 4:pos + 8].decode("ascii"))
        pos += 12 + n
    assert set(chunks) <= {"IHDR", "PLTE", "tRNS", "IDAT", "IEND"}, chunks


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


def test_images_are_already_optimally_compressed(tmp_path):
    need_optipng()
    for name in sorted(EXPECTED):
        shutil.copy(IMAGES / name, tmp_path / name)
    subprocess.run(["optipng", "-quiet", "-o2", "-strip", "all", *sorted(EXPECTED)],
                   cwd=tmp_path, check=True)
    # optipng leaves a file untouched unless it finds a smaller encoding
    shrinkable = [n for n in sorted(EXPECTED)
                  if (tmp_path / n).read_bytes() != (IMAGES / n).read_bytes()]
    assert shrinkable == [], f"optipng can still shrink: {shrinkable}"


def sha256(p):
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_draw_script_reproduces_the_committed_images_byte_for_byte(tmp_path):
    need_optipng()
    out = tmp_path / "out"
    t0 = time.monotonic()
    subprocess.run([str(IMAGES / "draw.sh"), str(out)], check=True)
    print(f"draw.sh regenerated the set in {time.monotonic() - t0:.1f}s")
    fresh = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert fresh == sorted(EXPECTED)
    differing = [n for n in fresh if sha256(out / n) != sha256(IMAGES / n)]
    assert differing == [], f"committed images differ from a fresh draw: {differing}"


def test_readme_contact_sheet_shows_the_current_set(tmp_path):
    need_optipng()
    sheet = tmp_path / "foxes.png"
    subprocess.run(["python3", str(IMAGES / "contact-sheet.py"), str(sheet), "112", str(IMAGES)], check=True)
    subprocess.run(["optipng", "-quiet", "-o2", "-strip", "all", str(sheet)], check=True)
    assert sha256(sheet) == sha256(ROOT / "docs" / "foxes.png"), "docs/foxes.png is stale: run make images"
