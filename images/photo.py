"""One picture from someone's folder made into avatar renders: the photo half of the image pipeline.

    from photo import Refused, load_square, encode_photo
    square = load_square("holiday.jpg", pad=False)   # RGB or RGBA, square, sRGB, no metadata
    encode_photo(fmt, square.resize((64, 64), Image.LANCZOS))   # the bytes of a ladder.FORMATS entry

images/draw.py's renders are flat drawn art, and ladder.encode's settings are tuned for that (palette
PNG and lossless palette WebP, AV1 screen-content tools). Photos are the opposite (millions of
colours, smooth gradients, noise), so they get their own encoder profile here (encode_photo), beside
the art one, measured on photo-like pictures (see PHOTO_SETTINGS).

What a camera leaves in a photo is dealt with in load_square, in this order:
  1. refuse what is not a picture we read (by content, not by file name), a picture whose header
     says it decodes to more than MAX_PIXELS (before anything is decoded: a decompression bomb gets
     no memory), or one whose shorter side is below MIN_SIDE;
  2. an animated picture (GIF, WebP, AVIF, APNG) gives its first frame;
  3. JPEGs are decoded at the smallest DCT scale (1/2, 1/4, 1/8) that still covers the largest
     rung (draft mode): the same output quality at a fraction of the time and memory;
  4. the EXIF orientation is applied (the pixels are turned, the tag dropped);
  5. an embedded ICC profile converts the colours to sRGB (LittleCMS, perceptual intent);
     CMYK and greyscale become RGB;
  6. transparency is kept (RGBA) if any pixel is not opaque, else the picture is RGB;
  7. a centred square is cut from a non-square picture (pad=True: the picture is kept whole,
     centred on a transparent square instead);
  8. a fresh image is built from the pixels alone: no EXIF, XMP, ICC, comment or date survives,
     and the encoders are never given any.
Everything is deterministic (same file, same Pillow: same bytes); every encoder runs single-threaded.
"""
import io

from PIL import Image, ImageCms, ImageOps, UnidentifiedImageError

# Refused below this many pixels on the shorter side: the ladder's smallest rungs (32, 48) and the
# common 64 px avatar must all come from real pixels, never upscaled.
MIN_SIDE = 64
# Refused above this many pixels (width x height, from the header, before decoding): 100 MP holds
# every phone and camera photo up to 100 megapixels (12-50 MP is usual); a file claiming more is
# treated as a decompression bomb. Decoding 100 MP takes about 300 MB (RGB).
MAX_PIXELS = 100_000_000
# The formats read, by content (Pillow's plugins; the file name's extension does not matter). Kept to
# what cameras, phones and the web produce: no EPS/PDF (Ghostscript), no exotic plugin.
READ_FORMATS = ("JPEG", "PNG", "WEBP", "AVIF", "GIF", "TIFF", "BMP")

# Pillow's own bomb check, raised at open: ours comes first with a clearer message, this is a backstop.
Image.MAX_IMAGE_PIXELS = MAX_PIXELS

_SRGB = ImageCms.createProfile("sRGB")

# The photo profile. Measured on photo-like pictures (tests/images/photos.py: soft gradients, shapes,
# grain; 6 at 64 px, 3 at 256 px, mean bytes per file, single thread), the choices in brackets:
#   AVIF  lossy, default tuning (the art profile's screen-content tools help flat colour only),
#         [4:2:0] 970 / 2873 B vs 4:4:4 1051 / 3212 (+8-12 %: photos have no 1-px colour detail to
#         keep sharp); [quality 60] vs 50: 806 / 2443, 70: 1172 / 3441 (60 is libavif's usual photo
#         setting; 50 is visibly soft at 256 px); [speed 6] vs 4: 1-4 % smaller at 8x the time.
#   WebP  lossy [quality 80] 948 / 3388 B (75: 820 / 2994, 85: 1084 / 3937); [method 4] vs 6: 2 %
#         smaller at 2x the time; lossless is 5-13x larger on photos. Alpha is kept losslessly
#         (alpha_quality 100): the edges of cut-out pictures stay clean.
#   PNG   truecolour (RGB or RGBA, 8 bits: a palette posterises gradients), [zlib 9 + optimize]
#         6148 / 64213 B vs level 6: 1-5 % smaller, 5x the time; still cheap at these sizes. PNG is
#         the answer to clients that take neither AVIF nor WebP, not the size to beat.
PHOTO_SETTINGS = {
    "avif": dict(quality=60, subsampling="4:2:0", speed=6, max_threads=1, codec="aom"),
    "webp": dict(quality=80, method=4, alpha_quality=100),
    "png": dict(optimize=True, compress_level=9),
}
_PILLOW = {"avif": "AVIF", "webp": "WEBP", "png": "PNG"}


class Refused(Exception):
    """A picture we do not make an avatar of; str() is the reason, one line."""


def encode_photo(fmt, im):
    """The bytes of an RGB or RGBA render in fmt (a ladder.FORMATS entry): no metadata."""
    if fmt.ext not in PHOTO_SETTINGS:
        raise ValueError(f"no photo encoder for {fmt.ext}")
    out = io.BytesIO()
    im.save(out, _PILLOW[fmt.ext], **PHOTO_SETTINGS[fmt.ext])
    return out.getvalue()


def load_square(path, pad=False, largest=512):
    """The picture at path as a square RGB/RGBA image in sRGB, pixels only (see the module doc).

    largest: the biggest rung wanted (lets JPEGs decode at a reduced scale). Raises Refused."""
    try:
        im = Image.open(path, formats=READ_FORMATS)
    except Image.DecompressionBombError:
        raise Refused(f"decodes to more than {MAX_PIXELS // 1_000_000} megapixels (a decompression bomb?)")
    except UnidentifiedImageError:
        raise Refused("not a picture in a format we read (" + ", ".join(READ_FORMATS) + ")")
    except OSError as e:
        raise Refused(f"cannot be read: {e}")
    with im:
        w, h = im.size
        if w * h > MAX_PIXELS:
            raise Refused(f"{w}x{h} is {w * h / 1e6:.0f} megapixels, more than {MAX_PIXELS // 1_000_000} "
                          "(a decompression bomb?)")
        if min(w, h) < MIN_SIDE:
            raise Refused(f"{w}x{h} is too small for an avatar: the shorter side must be at least {MIN_SIDE} px")
        try:
            return _square(im, pad, largest)
        except Image.DecompressionBombError:
            raise Refused(f"decodes to more than {MAX_PIXELS // 1_000_000} megapixels (a decompression bomb?)")
        except (OSError, ValueError, SyntaxError, EOFError) as e:
            raise Refused(f"corrupt or truncated picture: {e}")


def frames(path):
    """How many frames the picture at path has (1 unless animated)."""
    with Image.open(path, formats=READ_FORMATS) as im:
        return getattr(im, "n_frames", 1)


def _square(im, pad, largest):
    im.seek(0)                                    # the first frame of an animation
    if im.format == "JPEG":
        # Decode at 1/2, 1/4 or 1/8 scale while both sides still cover the largest rung.
        im.draft(im.mode, (largest, largest))
    exif = im.getexif()
    icc = im.info.get("icc_profile")
    orientation = exif.get(0x0112, 1)
    im.load()
    im = _to_srgb(im, icc)
    if orientation != 1:
        # exif_transpose reads the tag from the image; ours is a fresh copy without it.
        im = _orient(im, orientation)
    w, h = im.size
    side = max(w, h) if pad else min(w, h)
    if pad:
        square = Image.new("RGBA", (side, side), (0, 0, 0, 0))
        square.paste(im.convert("RGBA"), ((side - w) // 2, (side - h) // 2))
        im = square
    elif w != h:
        left, top = (w - side) // 2, (h - side) // 2
        im = im.crop((left, top, left + side, top + side))
    if im.mode == "RGBA" and im.getchannel("A").getextrema()[0] == 255:
        im = im.convert("RGB")                    # opaque after all: no alpha channel to carry
    # Pixels only: a new image has no info, EXIF, ICC or XMP to pass on.
    clean = Image.new(im.mode, im.size)
    clean.paste(im)
    return clean


def _orient(im, orientation):
    method = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
              4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
              6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
              8: Image.Transpose.ROTATE_90}.get(orientation)
    return im.transpose(method) if method is not None else im


def _has_alpha(im):
    return im.mode in ("RGBA", "LA", "PA", "La", "RGBa") or "transparency" in im.info


def _to_srgb(im, icc):
    """RGB or RGBA in sRGB: the embedded profile (if any) converted, every mode normalised."""
    if im.mode.startswith("I;16") or im.mode in ("I", "F"):
        im = im.convert("I").point(lambda v: v / 256).convert("L")   # 16-bit grey: top 8 bits
    alpha = None
    if _has_alpha(im):
        rgba = im.convert("RGBA")
        alpha = rgba.getchannel("A")
        colour = rgba.convert("RGB") if im.mode not in ("LA", "La") else im.convert("L")
    elif im.mode in ("CMYK", "L", "RGB"):
        colour = im
    else:
        colour = im.convert("RGB")
    if icc:
        try:
            src = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            colour = ImageCms.profileToProfile(colour, src, _SRGB, outputMode="RGB",
                                               renderingIntent=ImageCms.Intent.PERCEPTUAL)
        except (ImageCms.PyCMSError, OSError, ValueError):
            # A broken or mismatched profile (e.g. an RGB profile on a greyscale picture): the
            # pixels are taken as sRGB, as every browser does with a profile it cannot use.
            colour = colour.convert("RGB")
    colour = colour.convert("RGB")
    if alpha is not None:
        colour.putalpha(alpha)
    return colour
