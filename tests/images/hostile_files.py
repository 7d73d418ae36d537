"""Hostile files for tests/images/test_hostile.py, made at run time (no binary fixtures): PNGs with
chosen chunks (text bombs, a lying size), truncated encodings, animations of many frames, palette
pictures, a JPEG with corrupt EXIF."""
import io
import struct
import zlib

from PIL import Image

from photos import photo


def encoded(im, fmt, **kw):
    b = io.BytesIO()
    im.save(b, fmt, **kw)
    return b.getvalue()


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def inflating_to(size, byte=b"\0"):
    """zlib data of `size` bytes of `byte`: about size / 1000 bytes."""
    z = zlib.compressobj(9)
    block = byte * (1 << 20)
    return b"".join(z.compress(block) for _ in range(size >> 20)) + z.compress(byte * (size & 0xFFFFF)) + z.flush()


def png_with(before_idat=(), after_idat=(), side=80):
    """A good PNG (a photo, side x side) with extra chunks before its image data, or after it."""
    data = encoded(photo(side, side, 5), "PNG")
    assert data[12:16] == b"IHDR"
    return data[:33] + b"".join(before_idat) + data[33:-12] + b"".join(after_idat) + data[-12:]


def raw_png(w, h, depth, colour_type, pixel):
    """A PNG written by hand: every pixel `pixel` (the raw sample bytes), filter 0."""
    z = zlib.compressobj(9)
    row = b"\0" + pixel * w
    idat = b"".join(z.compress(row) for _ in range(h)) + z.flush()
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, colour_type, 0, 0, 0))
            + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def png_lying_size(path):
    """IHDR says 4000x4000 (a valid CRC), the image data is for 80x80."""
    data = bytearray(encoded(photo(80, 80, 6), "PNG"))
    ihdr = bytes(data[12:16]) + struct.pack(">II", 4000, 4000) + bytes(data[24:29])
    data[16:33] = ihdr[4:] + struct.pack(">I", zlib.crc32(ihdr))
    path.write_bytes(bytes(data))


def cut(fmt, keep, **kw):
    """A maker of a picture in fmt cut to `keep` of its bytes (a fraction, or a count)."""
    def make(path):
        data = encoded(photo(200, 200, 8), fmt, **kw)
        path.write_bytes(data[:keep if isinstance(keep, int) else int(len(data) * keep)])
    return make


def ztxt(keyword, size):
    return chunk(b"zTXt", keyword + b"\0\0" + inflating_to(size, b"A"))


def animation(fmt, count, **kw):
    def make(path):
        frames = [Image.new("RGB", (80, 80), (255, 0, 0) if i % 2 == 0 else (0, 0, 255)) for i in range(count)]
        frames[0].save(path, fmt, save_all=True, append_images=frames[1:], duration=20, loop=0, **kw)
    return make


def apng_claiming_frames(path, count):
    """A one-frame APNG whose animation control chunk claims `count` frames."""
    data = encoded(Image.new("RGB", (80, 80), (255, 0, 0)), "PNG")
    actl = chunk(b"acTL", struct.pack(">II", count, 0))
    fctl = chunk(b"fcTL", struct.pack(">IIIIIHHBB", 0, 80, 80, 0, 0, 1, 10, 0, 0))
    path.write_bytes(data[:33] + actl + fctl + data[33:])


def corrupt_exif_jpeg(path):
    """EXIF whose tags point past the end of their data (Pillow warns about them)."""
    ifd = (struct.pack("<H", 3) + struct.pack("<HHII", 0x0112, 3, 1, 1) + struct.pack("<HHII", 0x8769, 4, 1, 99999)
           + struct.pack("<HHII", 0x010F, 2, 5000, 77777) + b"\0\0\0\0")
    Image.new("RGB", (80, 80), (0, 255, 0)).save(path, "JPEG", exif=b"Exif\0\0II*\0" + struct.pack("<I", 8) + ifd)


def palette(path, fmt, **kw):
    im = Image.new("P", (80, 80), 3)
    im.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255] + [0] * 756)
    im.save(path, fmt, **kw)


def bomb_png(path, side=30000):
    """A 1-bit PNG that decodes to side x side pixels (900 MP: 2.7 GB as RGB) in ~100 KB."""
    row = b"\0" * (1 + side // 8)
    z = zlib.compressobj(9)
    idat = b"".join(z.compress(row) for _ in range(side)) + z.flush()
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0))
                     + chunk(b"IDAT", idat) + chunk(b"IEND", b""))
