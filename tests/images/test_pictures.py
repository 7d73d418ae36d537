"""`make images SRC=DIR OUT=DIR`: a folder of someone's pictures becomes a complete image set.
Every picture is made here (tests/images/photos.py); the command runs for real (images/pictures.sh)."""
import re
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from hostile_run import make_images as run_make_images, near
from photos import DATE, SERIAL, XMP, camera_exif, photo, swapped_profile

ROOT = Path(__file__).resolve().parents[2]
LADDER = [32, 48, 64, 96, 128, 192, 256, 384, 512]
FORMATS = ["avif", "webp", "png"]
PILLOW_FORMAT = {"avif": "AVIF", "webp": "WEBP", "png": "PNG"}


def make_images(src, out, *extra):
    r = run_make_images(src, out, *extra)
    assert r.returncode == 0, r.stderr
    return r


def images_of(out):
    """{(picture, size, format): path} from out/manifest.tsv's image records."""
    found = {}
    for line in (out / "manifest.tsv").read_text().splitlines():
        cols = line.split("\t")
        if cols[0] == "image":
            found[int(cols[2]), int(cols[3]), cols[4]] = out / cols[1]
    return found


def opened(path):
    with Image.open(path) as im:
        im.load()
        return im


def tree(directory):
    """Every file under directory with its bytes."""
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------ a camera photo
@pytest.fixture(scope="module")
def camera_set(tmp_path_factory):
    """One camera JPEG, 1200x600 as stored, shown 600x1200 (EXIF orientation 6: turn 90 degrees
    clockwise), with GPS, serial, dates, XMP and an ICC profile that swaps red and green: stored
    left half (255, 0, 0) is green in sRGB, stored right half (0, 0, 255) stays blue."""
    src = tmp_path_factory.mktemp("camera")
    im = Image.new("RGB", (1200, 600), (0, 0, 255))
    im.paste((255, 0, 0), (0, 0, 600, 600))
    im.save(src / "holiday.jpg", quality=95, exif=camera_exif(orientation=6),
            icc_profile=swapped_profile(), xmp=XMP, comment=b"taken at home")
    with Image.open(src / "holiday.jpg") as check:     # the input really carries it all
        assert check.getexif()[0x0112] == 6 and "icc_profile" in check.info and "xmp" in check.info
    out = tmp_path_factory.mktemp("camera-out") / "set"
    run = make_images(src, out)
    return out, run


def test_a_camera_photo_gets_every_size_and_format_it_has_pixels_for(camera_set):
    out, _ = camera_set
    # shown 600x1200: a 600 px square, so every rung up to 512
    assert list(images_of(out)) == [(1, s, f) for s in LADDER for f in FORMATS]   # manifest order
    for (_, size, fmt), path in images_of(out).items():
        im = opened(path)
        assert (im.format, im.size) == (PILLOW_FORMAT[fmt], (size, size)), path.name


def test_the_photo_is_turned_as_its_exif_orientation_says_and_converted_to_srgb(camera_set):
    out, _ = camera_set
    for (_, size, fmt), path in images_of(out).items():
        im = opened(path).convert("RGB")
        top, bottom = im.getpixel((size // 2, size // 8)), im.getpixel((size // 2, size * 7 // 8))
        # stored left half -> shown top half (turned), red in the photo's profile -> sRGB green
        assert near(top, (0, 255, 0)), (path.name, top)
        assert near(bottom, (0, 0, 255)), (path.name, bottom)


def test_no_metadata_of_the_camera_reaches_a_served_file(camera_set):
    out, _ = camera_set
    for path in images_of(out).values():
        data = path.read_bytes()
        for secret in (SERIAL.encode(), DATE.encode(), b"FoxCam", b"taken at home", b"Exif\0",
                       b"http://ns.adobe.com", b"xmpmeta", b"acsp", b"swapped red"):
            assert secret not in data, (path.name, secret)
        # PNG text/time/EXIF/ICC chunks, WebP EXIF/ICC/XMP chunks, AVIF Exif/XMP items, ICC colr
        for chunk in (b"eXIf", b"iCCP", b"tEXt", b"iTXt", b"zTXt", b"tIME", b"EXIF", b"ICCP", b"XMP ", b"prof"):
            assert chunk not in data, (path.name, chunk)
        im = opened(path)
        assert not ({"exif", "icc_profile", "xmp", "XML:com.adobe.xmp", "comment", "dpi"} & set(im.info)), \
            (path.name, im.info.keys())
        assert len(im.getexif()) == 0, path.name


def test_the_command_says_what_it_made_and_how_long_it_took(camera_set):
    out, run = camera_set
    assert "pictures: 1 from" in run.stdout
    assert "27 files" in run.stdout and "avif " in run.stdout and "webp " in run.stdout and "png " in run.stdout
    assert " s in all" in run.stdout and str(out) in run.stdout


def test_a_custom_set_has_no_legacy_names_and_uses_its_own_prefix(camera_set):
    out, _ = camera_set
    assert "\nlegacy\t" not in (out / "manifest.tsv").read_text()
    assert all(p.name.startswith("avatar-1-") for p in images_of(out).values())
    assert sorted(p.name for p in out.iterdir()) == ["a", "manifest.tsv"]


# ------------------------------------------------------------------ shapes, sizes, alpha, order
@pytest.fixture(scope="module")
def mixed_set(tmp_path_factory):
    """Five pictures in name order: a wide photo, a transparent PNG, a small one, an animated GIF,
    a greyscale WebP."""
    src = tmp_path_factory.mktemp("mixed")
    wide = Image.new("RGB", (900, 300), (255, 0, 0))
    wide.paste((0, 200, 0), (300, 0, 600, 300))                 # the centre third: what the crop keeps
    wide.save(src / "01-wide.png")
    cut = Image.new("RGBA", (200, 200), (0, 0, 0, 0))
    cut.paste((255, 160, 0, 255), (50, 50, 150, 150))
    cut.save(src / "02-cutout.png")
    photo(70, 90, 3).save(src / "03-small.jpg", quality=90)
    frames = [Image.new("RGB", (128, 128), c) for c in ((0, 0, 255), (255, 255, 0))]
    frames[0].save(src / "04-animated.gif", save_all=True, append_images=frames[1:], duration=100, loop=0)
    Image.new("L", (100, 100), 128).save(src / "05-grey.webp", lossless=True)
    out = tmp_path_factory.mktemp("mixed-out") / "set"
    return src, out, make_images(src, out)


def test_pictures_are_numbered_in_file_name_order_and_stop_at_their_own_size(mixed_set):
    _, out, _ = mixed_set
    sizes = {}
    for n, size, _ in images_of(out):
        sizes.setdefault(n, set()).add(size)
    assert {n: max(s) for n, s in sizes.items()} == {1: 256, 2: 192, 3: 64, 4: 128, 5: 96}
    for n, s in sizes.items():                      # a prefix of the ladder, never upscaled
        assert sorted(s) == LADDER[:len(s)], n


def test_a_wide_picture_is_cut_to_its_centred_square(mixed_set):
    _, out, run = mixed_set
    im = opened(images_of(out)[1, 256, "png"]).convert("RGB")
    assert near(im.getpixel((2, 128)), (0, 200, 0)) and near(im.getpixel((253, 128)), (0, 200, 0))


def test_transparency_is_kept_in_every_format(mixed_set):
    _, out, _ = mixed_set
    for fmt in FORMATS:
        im = opened(images_of(out)[2, 192, fmt])
        assert im.mode == "RGBA", fmt
        assert im.getpixel((5, 5))[3] < 10, fmt                 # transparent corner
        assert im.getpixel((96, 96))[3] > 245, fmt              # opaque centre
        assert near(im.getpixel((96, 96))[:3], (255, 160, 0)), fmt


def test_opaque_pictures_carry_no_alpha_channel(mixed_set):
    _, out, _ = mixed_set
    assert opened(images_of(out)[1, 64, "png"]).mode == "RGB"


def test_an_animated_picture_gives_its_first_frame_and_the_command_says_so(mixed_set):
    _, out, run = mixed_set
    assert near(opened(images_of(out)[4, 128, "png"]).convert("RGB").getpixel((64, 64)), (0, 0, 255))
    assert "animated, first frame used: 04-animated.gif" in run.stdout


def test_the_same_pictures_give_byte_identical_sets(mixed_set, tmp_path):
    src, out, _ = mixed_set
    again = tmp_path / "again"
    make_images(src, again)
    assert tree(again) == tree(out)


def test_padding_keeps_the_whole_picture_on_a_transparent_square(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    wide = Image.new("RGB", (900, 300), (255, 0, 0))
    wide.save(src / "wide.png")
    out = tmp_path / "out"
    make_images(src, out, "PAD=1")
    im = opened(images_of(out)[1, 512, "png"])
    assert im.mode == "RGBA"
    assert im.getpixel((256, 10))[3] == 0                         # above the picture: transparent
    assert near(im.getpixel((2, 256)), (255, 0, 0, 255))         # its left edge is kept


def test_two_files_with_one_name_are_refused(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    photo(100, 100, 1).save(src / "me.jpg")
    photo(100, 100, 2).save(src / "me.png")
    r = run_make_images(src, tmp_path / "out")
    assert r.returncode != 0 and "me.png" in r.stderr and "rename" in r.stderr


def test_make_images_tells_someone_who_is_not_root_what_to_install_in_one_line(tmp_path):
    """A Debian 12 machine with make and python3 but no python3-venv, and a member of the group docker
    (not root) running `make images`: one line saying which packages to install with sudo, a non-zero
    exit, no password prompt, no traceback, and neither a venv nor OUT left behind. The real Makefile
    and scripts, copied into a container of that machine."""
    image = subprocess.run(["bash", "-c", ". tools/docker.sh && user_machine_image_ready"], cwd=ROOT,
                           capture_output=True, text=True, timeout=1800)
    if image.returncode != 0:
        pytest.skip(f"no Docker image of such a machine: {image.stderr.strip()[-300:]}")
    repo = tmp_path / "fox-avatar"
    for path in ["Makefile", "tools/apt.sh", "tools/venv.sh", "images/pictures.sh", "images/requirements.txt"]:
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_bytes((ROOT / path).read_bytes())
        (repo / path).chmod((ROOT / path).stat().st_mode)
    (repo / "pictures").mkdir()
    photo(400, 400, 1).save(repo / "pictures" / "me.png")
    subprocess.run(["chmod", "-R", "a+rwX", str(repo)], check=True)
    run = subprocess.run(["docker", "run", "--rm", "--network", "none", "-u", "1000:1000", "-v", f"{repo}:/home/me/fox-avatar",
                          "-w", "/home/me/fox-avatar", "-e", "HOME=/home/me", image.stdout.strip(),
                          "make", "images", "SRC=pictures", "OUT=set"],
                         capture_output=True, text=True, timeout=300)
    said = [line for line in run.stderr.splitlines() if not re.match(r"make(\[\d+\])?: \*\*\* ", line)]
    assert run.returncode != 0 and said == [
        "apt: missing Debian packages, which only root can install: sudo apt-get install python3-venv"], run.stderr
    assert not (repo / ".venv-images").exists() and not (repo / "set").exists()
