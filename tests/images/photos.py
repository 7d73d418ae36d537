"""Pictures made in the tests (no binary fixtures): photo-like ones, and the things a camera
adds to a photo (EXIF orientation, GPS, serial and date; XMP; an ICC profile).

    photo(w, h, seed)     RGB: smooth light and colour (gradients), shapes with soft edges, grain
    camera_exif(orientation)   an Image.Exif with orientation, GPS position, camera serial, dates
    swapped_profile()     ICC v2 bytes: an RGB profile whose red and green primaries are sRGB's
                          green and red (a pixel stored (255, 0, 0) means sRGB green)
"""
import random
import struct

from PIL import Image, ImageDraw, ImageFilter

SERIAL = "FOXCAM-SN-90210-4242"
DATE = "2026:07:14 09:41:07"
GPS = (48.0, 51.0, 29.0)     # 48 deg 51' 29" N (with the longitude: a real place)


def photo(w, h, seed):
    """A deterministic photo-like picture w x h."""
    rng = random.Random(seed)
    base = Image.new("RGB", (8, 6))
    base.putdata([tuple(rng.randrange(256) for _ in range(3)) for _ in range(48)])
    small = base.resize((320, 240), Image.Resampling.BICUBIC)
    d = ImageDraw.Draw(small)
    for _ in range(12):
        x, y, r = rng.randrange(320), rng.randrange(240), rng.randrange(8, 60)
        d.ellipse((x - r, y - r, x + r, y + r), fill=tuple(rng.randrange(256) for _ in range(3)))
    small = small.filter(ImageFilter.GaussianBlur(2))
    im = small.resize((w, h), Image.Resampling.BICUBIC)
    tile = Image.frombytes("L", (97, 89), rng.randbytes(97 * 89)).convert("RGB")
    grain = Image.new("RGB", (w, h))
    for x in range(0, w, 97):
        for y in range(0, h, 89):
            grain.paste(tile, (x, y))
    return Image.blend(im, grain, 0.06)


def camera_exif(orientation=1):
    exif = Image.Exif()
    exif[0x0112] = orientation                     # Orientation
    exif[0x010F] = "FoxCam"                        # Make
    exif[0x0110] = "FoxCam One"                    # Model
    exif[0x0132] = DATE                            # DateTime
    ifd = exif.get_ifd(0x8769)                     # Exif IFD
    ifd[0x9003] = DATE                             # DateTimeOriginal
    ifd[0xA431] = SERIAL                           # BodySerialNumber
    gps = exif.get_ifd(0x8825)                     # GPS IFD
    gps[1] = "N"
    gps[2] = GPS
    gps[3] = "E"
    gps[4] = (2.0, 17.0, 40.0)
    return exif


XMP = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
       b'<rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="48,51.48N" '
       b'exif:BodySerialNumber="' + SERIAL.encode() + b'"/></rdf:RDF></x:xmpmeta>')


def _s15(v):
    return struct.pack(">i", round(v * 65536))


def _xyz(x, y, z):
    return b"XYZ \0\0\0\0" + _s15(x) + _s15(y) + _s15(z)


def swapped_profile():
    """A matrix/TRC RGB display profile (ICC v2) with sRGB's red and green primaries swapped."""
    red, green, blue = (0.4361, 0.2225, 0.0139), (0.3851, 0.7169, 0.0971), (0.1431, 0.0606, 0.7141)
    desc_text = b"swapped red and green\0"
    desc = b"desc\0\0\0\0" + struct.pack(">I", len(desc_text)) + desc_text + b"\0" * 12 + b"\0" * 67
    curve = b"curv\0\0\0\0" + struct.pack(">IH", 1, 0x0233) + b"\0\0"       # gamma 2.2
    tags = [(b"desc", desc), (b"wtpt", _xyz(0.9642, 1.0, 0.8249)), (b"rXYZ", _xyz(*green)),
            (b"gXYZ", _xyz(*red)), (b"bXYZ", _xyz(*blue)), (b"rTRC", curve), (b"gTRC", curve),
            (b"bTRC", curve), (b"cprt", b"text\0\0\0\0public domain\0\0\0")]
    offset = 128 + 4 + 12 * len(tags)
    table, data = b"", b""
    for sig, body in tags:
        body += b"\0" * (-len(body) % 4)
        table += sig + struct.pack(">II", offset + len(data), len(body))
        data += body
    size = offset + len(data)
    header = (struct.pack(">I", size) + b"lcms" + bytes([2, 0x10, 0, 0]) + b"mntrRGB XYZ "
              + struct.pack(">6H", 2026, 1, 1, 0, 0, 0) + b"acsp" + b"APPL" + b"\0" * 4 + b"\0" * 8
              + b"\0" * 8 + b"\0" * 4 + _s15(0.9642) + _s15(1.0) + _s15(0.8249) + b"lcms" + b"\0" * 16
              + b"\0" * 28)
    assert len(header) == 128
    return header + struct.pack(">I", len(tags)) + table + data
