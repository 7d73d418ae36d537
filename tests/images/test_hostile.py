"""`make images SRC=DIR OUT=DIR` against hostile input: every bad input gets exactly one line on stderr
naming the file (or the folder), escaped onto one line; a non-zero exit; no traceback; and OUT exactly as
it was (byte for byte, modes and mtimes; still absent if it was absent), with no scratch left beside it.
Valid oddities (CMYK, 16-bit, palette, alpha, thousands of frames, odd but legal names) must work instead,
with nothing on stderr.
The corpus is made at run time (hostile_files.py) and run through the real `make images` (hostile_run.py).
"""
import os
import resource
import shutil
import socket
import stat
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from hostile_files import (animation, apng_claiming_frames, bomb_png, corrupt_exif_jpeg, cut, palette,
                           png_lying_size, png_with, raw_png, ztxt)
from hostile_run import ROOT, escaped, make_images, modes_are_enforced, near, snapshot
from photos import photo

GOOD = "good.png"                                                 # the picture beside each hostile one


# ------------------------------------------------------------------ the corpus: refused pictures
# name -> (make(path), reason): a file of that name is made in SRC beside a good picture; the
# command must refuse it in one line naming SRC/name (escaped) and holding `reason`.
REFUSED = {
    # bombs: compressed text (one chunk, after the image data, all chunks together), pixels (Pillow's
    # bomb warning above the limit, its error at twice that)
    "ztxt-bomb.png": (lambda p: p.write_bytes(png_with([ztxt(b"Comment", 64 << 20)])), "text"),
    "ztxt-bomb-after-image-data.png": (lambda p: p.write_bytes(png_with(after_idat=[ztxt(b"Comment", 64 << 20)])), "text"),
    "ztxt-twenty-megabytes-in-small-chunks.png": (
        lambda p: p.write_bytes(png_with([ztxt(f"k{i}".encode(), 1_000_000) for i in range(20)])), "text"),
    "63x200-too-small.png": (lambda p: Image.new("RGB", (63, 200)).save(p), "too small"),
    "120-megapixels.png": (lambda p: p.write_bytes(raw_png(12000, 10000, 1, 0, b"")), "megapixels"),
    "900-megapixels.png": (bomb_png, "megapixels"),
    # truncated
    "png-cut-in-image-data.png": (cut("PNG", 0.5, compress_level=0), "truncated"),
    "png-cut-after-header.png": (cut("PNG", 40), "not a picture"),
    # lying headers, what is no picture
    "png-lying-size.png": (png_lying_size, ""),
    "a-zip-named.png": (lambda p: p.write_bytes(b"PK\x03\x04" + bytes(100)), "not a picture"),
    "empty.png": (lambda p: p.write_bytes(b""), "empty"),
    # names: escaped on one line, and refused as a picture's id
    "new\nline.png": (lambda p: photo(80, 80, 9).save(p, "PNG"), "control character"),
    "line\u2028separator.png": (lambda p: photo(80, 80, 9).save(p, "PNG"), "control character"),
    os.fsdecode(b"caf\xe9-latin1.png"): (lambda p: photo(80, 80, 9).save(p, "PNG"), "UTF-8"),
    # what is not a picture file
    "fifo.png": (lambda p: os.mkfifo(p), "FIFO"),
    "socket.png": (lambda p: _socket(p), "socket"),
    "device.png": (lambda p: _device(p), "device"),
    "unreadable.png": (lambda p: (photo(80, 80, 9).save(p, "PNG"), p.chmod(0)), "permission denied"),
    # symlinks
    "link-to-dev-zero.png": (lambda p: p.symlink_to("/dev/zero"), "outside"),
    "link-to-nothing.png": (lambda p: p.symlink_to("no-such-file.png"), "nothing"),
    "link-to-itself.png": (lambda p: p.symlink_to(p.name), "loop"),
    # duplicates: the same bytes twice is a copy made by mistake; a set of two identical pictures
    # splits one picture's keys in two
    "copy-of-good.png": (lambda p: shutil.copyfile(p.parent / GOOD, p), "same bytes"),
}
NEEDS_MODES = {"unreadable.png"}


def _socket(path):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()


def _device(path):
    """A character device: the kernel's /dev/null (mknod needs root, or CAP_MKNOD)."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("cannot make a device node here (not root)")


@pytest.fixture(scope="module")
def previous(tmp_path_factory):
    """A set made from one picture: what OUT holds before a refused run (copied for each test)."""
    base = tmp_path_factory.mktemp("previous")
    (base / "src").mkdir()
    photo(100, 100, 3).save(base / "src" / "before.jpg")
    r = make_images(base / "src", base / "set")
    assert r.returncode == 0, r.stderr
    return base / "set"


def assert_refused(r, named, reason, out, before, parent_before, parent):
    """One line naming `named` (escaped) and holding `reason`, a failure, no traceback, OUT as it
    was, nothing left beside it."""
    assert r.returncode != 0, r.stdout
    assert "Traceback" not in r.stderr + r.stdout, r.stderr
    lines = r.lines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("pictures: "), lines[0]
    assert named in lines[0], (named, lines[0])
    assert reason.lower() in lines[0].lower(), lines[0]
    assert snapshot(out) == before, "OUT changed"
    assert sorted(os.listdir(parent)) == parent_before, "left beside OUT: scratch?"


@pytest.mark.parametrize("state", ["a previous set", "no OUT"])
def test_every_hostile_picture_is_refused_in_one_line_of_its_own_in_name_order(state, previous, tmp_path):
    """The whole corpus in one SRC beside a good picture: one line each, in file-name order, each naming
    its file and why. Of good.png and its two copies, copy-of-good.png comes first: it is the one
    kept, good.png the copy refused."""
    src = tmp_path / "pictures"
    src.mkdir()
    photo(80, 80, 1).save(src / GOOD)
    reasons = {GOOD: "same bytes"}
    for name, (make, reason) in REFUSED.items():
        if name in NEEDS_MODES and not modes_are_enforced():
            continue
        make(src / name)
        reasons[name] = reason
    del reasons["copy-of-good.png"]
    out = tmp_path / "out"
    if state == "a previous set":
        subprocess.run(["cp", "-a", str(previous), str(out)], check=True)
    before, parent_before = snapshot(out), sorted(os.listdir(tmp_path))
    r = make_images(src, out)
    assert r.returncode != 0 and "Traceback" not in r.stderr + r.stdout, r.stderr
    lines = r.lines()
    assert [line.split(": ")[1] for line in lines] == [escaped(f"{src}/{n}") for n in sorted(reasons)], r.stderr
    for name, line in zip(sorted(reasons), lines):
        assert line.startswith("pictures: ") and reasons[name].lower() in line.lower(), line
    assert snapshot(out) == before, "OUT changed"
    assert sorted(os.listdir(tmp_path)) == parent_before, "left beside OUT: scratch?"


def test_a_bomb_is_refused_without_the_memory_it_asks_for(tmp_path):
    """Under a 1 GB address-space limit (the bomb needs 2.7 GB as RGB, 112 MB even as 1-bit): refused for
    its size, not by running out of memory."""
    src = tmp_path / "src"
    src.mkdir()
    bomb_png(src / "bomb.png")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    env = dict(os.environ, PATH=f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}", PYTHONPATH=str(ROOT / "images"))
    r = subprocess.run(["python3", str(ROOT / "images" / "pictures.py"), str(src), str(tmp_path / "scratch")],
                       capture_output=True, text=True, preexec_fn=limit, env=env)
    assert r.returncode == 1 and "megapixels" in r.stderr and "memory" not in r.stderr, r.stderr


# ------------------------------------------------------------------ the corpus: refused folders
def _folder_of(n):
    def make(tmp):
        src = tmp / "thousand"
        src.mkdir()
        for i in range(n):
            Image.new("RGB", (64, 64), (i % 256, i // 256, 7)).save(src / f"{i:04d}.png", compress_level=1)
        return src, tmp / "out", src, f"{n} "
    return make


def _src(tmp, name="pictures"):
    src = tmp / name
    src.mkdir()
    photo(80, 80, 1).save(src / GOOD)
    return src


def _unreadable_folder(tmp):
    src = _src(tmp)
    src.chmod(0)
    return src, tmp / "out", src, "permission denied"


def _out_not_writable(tmp):
    """A set in OUT whose a/ may be written but not OUT itself: the new files would go into a/, and
    the manifest naming them could not follow."""
    out = tmp / "out"
    (out / "a").mkdir(parents=True)
    (out / "a" / "avatar-1-32.0123456789.png").write_bytes(b"old")
    (out / "manifest.tsv").write_text("# a set was here\n")
    out.chmod(0o555)
    return _src(tmp), out, out, "cannot write"


def _out_parent_not_writable(tmp):
    parent = tmp / "locked"
    parent.mkdir()
    parent.chmod(0o555)
    return _src(tmp), parent / "out", parent / "out", "cannot write"


# name -> make(tmp) -> (src, out, the path the line must name, reason)
FOLDERS = {
    "a folder of 1001 pictures": _folder_of(1001),
    "SRC does not exist": lambda tmp: (tmp / "nowhere", tmp / "out", tmp / "nowhere", "does not exist"),
    "SRC is a file": lambda tmp: ((tmp / "x.png").write_bytes(b"x"), tmp / "x.png", tmp / "out", tmp / "x.png", "not a directory")[1:],
    "SRC holds no picture": lambda tmp: ((tmp / "none").mkdir(), tmp / "none", tmp / "out", tmp / "none", "empty folder")[1:],
    "SRC is unreadable": _unreadable_folder,
    "OUT is SRC through a symlink": lambda tmp: (lambda s: ((tmp / "link").symlink_to(s), s, tmp / "link", s, "same folder")[1:])(_src(tmp)),
    "OUT inside SRC": lambda tmp: (lambda s: (s, s / "set", s, "inside"))(_src(tmp)),
    "SRC inside OUT": lambda tmp: (lambda o: (o.mkdir(), (lambda s: (s, o, s, "inside"))(_src(o, "pictures")))[1])(tmp / "out"),
    "OUT is a file": lambda tmp: ((tmp / "out").write_text("x"), _src(tmp), tmp / "out", tmp / "out", "not a directory")[1:],
    "OUT's parent does not exist": lambda tmp: (_src(tmp), tmp / "no" / "out", tmp / "no" / "out", "does not exist"),
    "OUT is not writable": _out_not_writable,
    "OUT's parent is not writable": _out_parent_not_writable,
}
FOLDERS_NEED_MODES = {"SRC is unreadable", "OUT is not writable", "OUT's parent is not writable"}


@pytest.mark.parametrize("name", list(FOLDERS))
def test_a_hostile_folder_is_refused_in_one_line(name, tmp_path):
    if name in FOLDERS_NEED_MODES and not modes_are_enforced():
        pytest.skip("file modes are not enforced for this user (root without a way to drop capabilities)")
    src, out, named, reason = FOLDERS[name](tmp_path)
    parent = Path(os.path.dirname(out)) if os.path.isdir(os.path.dirname(out)) else tmp_path
    before, parent_before = snapshot(out), sorted(os.listdir(parent))
    src_before = snapshot(src) if os.access(src, os.R_OK) else None
    try:
        r = make_images(src, out)
        assert_refused(r, escaped(str(named)), reason, out, before, parent_before, parent)
        if src_before is not None:
            assert snapshot(src) == src_before, "SRC changed"
    finally:
        for p in (src, out, out.parent):
            if os.path.isdir(p) and not os.path.islink(p):
                os.chmod(p, 0o755)


# ------------------------------------------------------------------ the corpus: valid oddities
def solid(mode, value, fmt, **kw):
    return lambda p: Image.new(mode, (80, 80), value).save(p, fmt, **kw)


# name -> (make(path), the 64 px PNG's centre pixel wanted (RGB or RGBA))
VALID = {
    "cmyk.jpg": (solid("CMYK", (0, 255, 255, 0), "JPEG", quality=95), (255, 0, 0)),
    "grey-16-bit.png": (lambda p: p.write_bytes(raw_png(80, 80, 16, 0, b"\x80\x00")), (128, 128, 128)),
    "grey-float-0-to-1.tif": (solid("F", 0.5, "TIFF"), (128, 128, 128)),
    "lab.tif": (solid("LAB", (128, 128, 128), "TIFF"), (119, 119, 119)),
    "grey-alpha.png": (solid("LA", (100, 128), "PNG"), (100, 100, 100, 128)),
    "palette-alpha-bytes.png": (lambda p: palette(p, "PNG", transparency=bytes([255, 255, 255, 128])), (0, 0, 255, 128)),
    "a-jpeg-named.png": (solid("RGB", (0, 0, 255), "JPEG"), (0, 0, 255)),
    "corrupt-exif.jpg": (corrupt_exif_jpeg, (0, 255, 0)),
    "broken-icc-profile.jpg": (solid("RGB", (0, 0, 255), "JPEG", icc_profile=b"not a profile" * 20), (0, 0, 255)),
    "5000-frames.gif": (animation("GIF", 5000), (255, 0, 0)),
    "claims-2147483647-frames.png": (lambda p: apng_claiming_frames(p, 2**31 - 1), (255, 0, 0)),
    "it's \"quoted\" $HOME `id`.png": (solid("RGB", (0, 0, 255), "PNG"), (0, 0, 255)),
}


def test_every_valid_oddity_works_with_nothing_on_stderr(tmp_path):
    """All of them in one SRC (distinct names and bytes): one set, nothing on stderr, each picture
    (numbered in file-name order) a 64 px PNG of the colour it was made of."""
    src = tmp_path / "pictures"
    src.mkdir()
    for name, (make, _) in VALID.items():
        make(src / name)
    out = tmp_path / "out"
    r = make_images(src, out)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert all(line.startswith("pictures: ") for line in r.stdout.splitlines()), r.stdout
    names = sorted(VALID)
    assert f"{escaped(names[0])} .. {escaped(names[-1])}" in r.stdout, r.stdout
    png64 = {int(cols[2]): cols[1] for cols in (line.split("\t") for line in (out / "manifest.tsv").read_text().splitlines())
             if cols[0] == "image" and cols[3:] == ["64", "png"]}
    for number, name in enumerate(names, 1):
        want = VALID[name][1]
        with Image.open(out / png64[number]) as im:
            pixel = im.convert("RGBA" if len(want) == 4 else "RGB").getpixel((32, 32))
        assert near(pixel, want), (name, pixel)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "scratch left behind"


def test_what_is_not_a_picture_file_but_ignored_stays_ignored(tmp_path):
    """Hidden entries (a FIFO among them: never opened) and subfolders (an unreadable one, a link to
    one inside) are not pictures and not refused; a link to a picture in a subfolder is followed."""
    src = _src(tmp_path)
    os.mkfifo(src / ".pipe")
    (src / ".DS_Store").write_bytes(b"\0\1")
    (src / "sub").mkdir()
    photo(90, 90, 4).save(src / "sub" / "inside.png")
    (src / "linked.png").symlink_to("sub/inside.png")
    (src / "sub-link").symlink_to("sub")
    (src / "locked").mkdir(mode=0)
    try:
        r = make_images(src, tmp_path / "out")
    finally:
        (src / "locked").chmod(0o755)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert "pictures: 2 from" in r.stdout and "good.png .. linked.png" in r.stdout, r.stdout
