"""The measurement issue 19 asks for: 21 twelve-megapixel JPEGs (4000x3000, made here) through
`make images SRC=... OUT=...`. It prints the time and the bytes of a 64 px avatar in each format
(recorded in docs/own-pictures.md); it asserts only what the set must be, never a duration."""
import time

from PIL import Image

from photos import camera_exif, photo
from test_pictures import FORMATS, LADDER, images_of, make_images


def test_21_twelve_megapixel_photos_make_a_full_set(tmp_path, capsys):
    src = tmp_path / "photos"
    src.mkdir()
    for i in range(1, 22):
        photo(4000, 3000, 100 + i).save(src / f"IMG_{i:04d}.jpg", quality=92, exif=camera_exif())
    out = tmp_path / "set"
    started = time.monotonic()
    run = make_images(src, out)
    took = time.monotonic() - started
    images = images_of(out)
    assert sorted({n for n, _, _ in images}) == list(range(1, 22))
    assert len(images) == 21 * len(LADDER) * len(FORMATS)
    at64 = {fmt: sum(images[n, 64, fmt].stat().st_size for n in range(1, 22)) / 21 for fmt in FORMATS}
    total = sum(p.stat().st_size for p in images.values())
    with capsys.disabled():
        print(f"\n21 x 12 MP JPEGs -> {len(images)} files, {total} bytes, in {took:.1f} s "
              f"({run.stdout.splitlines()[-2]})")
        print("  a 64 px avatar, mean bytes: " + ", ".join(f"{f} {at64[f]:.0f}" for f in FORMATS))
