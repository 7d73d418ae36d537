"""One picture from someone's folder made into avatar renders: the photo half of the image pipeline.

    from photo import Refused, load_square, encode_photo
    square = load_square("holiday.jpg", pad=False)   # RGB or RGBA, square, sRGB, no metadata
    encode_photo(fmt, square.resize((64, 64), Image.LANCZOS))   # the bytes of a contract.FORMATS entry

images/draw.py's renders are flat drawn art, and encode.encode's settings are tuned for that (palette
PNG and lossless palette WebP, AV1 screen-content tools). Photos are the opposite (millions of
colours, smooth gradients, noise), so they get their own encoder profile here (encode_photo), beside
the art one, measured on photo-like pictures (see PHOTO_SETTINGS).

What load_square does to a picture: docs/own-pictures.md. Whatever a file holds, it answers a
square or raises Refused with a one-line reason, and prints nothing (Pillow's warnings are silenced,
its DecompressionBombWarning is the refusal); a FIFO is never waited on, a bomb gets no memory, an
animation's other frames are never read. Deterministic: every encoder runs single-threaded.
"""
import io
import os
import stat
import warnings

from PIL import Image, ImageCms, ImageFile, PngImagePlugin, UnidentifiedImageError

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

# A PNG's compressed text (zTXt, iTXt) and colour profile (iCCP) chunks are inflated when it is
# opened, before any pixel: refused when one inflates past PNG_TEXT_CHUNK (Pillow's default, 1 MiB:
# an ICC profile or a camera's XMP is a few KB to a few hundred) or all of them past
# PNG_TEXT_MEMORY (Pillow's default is 64 MiB; we drop the text anyway). A 64 KB file whose text
# inflates to gigabytes costs at most these.
PNG_TEXT_CHUNK = 1 << 20
PNG_TEXT_MEMORY = 16 << 20

# Pillow's limits, set deliberately (they are process-wide). Its bomb check runs at open, from the
# header: it warns (DecompressionBombWarning) above MAX_IMAGE_PIXELS and raises above twice that;
# load_square makes the warning an error, so both are refused, in one line, with nothing printed.
Image.MAX_IMAGE_PIXELS = MAX_PIXELS
ImageFile.LOAD_TRUNCATED_IMAGES = False        # a truncated file is refused, never padded with grey
PngImagePlugin.MAX_TEXT_CHUNK = PNG_TEXT_CHUNK
PngImagePlugin.MAX_TEXT_MEMORY = PNG_TEXT_MEMORY

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
    """The bytes of an RGB or RGBA render in fmt (a contract.FORMATS entry): no metadata."""
    if fmt.ext not in PHOTO_SETTINGS:
        raise ValueError(f"no photo encoder for {fmt.ext}")
    out = io.BytesIO()
    im.save(out, _PILLOW[fmt.ext], **PHOTO_SETTINGS[fmt.ext])
    return out.getvalue()


def open_regular(path):
    """path opened for reading (a binary file object) if it is a regular file, else Refused. Opened
    without blocking: a FIFO put where a picture was is refused, never waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except PermissionError:
        raise Refused("cannot be read: permission denied")
    except OSError as e:
        raise Refused(f"cannot be read: {e.strerror or e}")
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise Refused(f"{kind_of(mode)}, not a picture file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def kind_of(mode):
    """What a file that is not a regular file or a directory is, in words."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


BOMB = f"decodes to more than {MAX_PIXELS // 1_000_000} megapixels (a decompression bomb?)"


def _why(e):
    """The one-line reason for an exception Pillow raised on a picture."""
    if isinstance(e, (Image.DecompressionBombError, Image.DecompressionBombWarning)):
        return BOMB
    if isinstance(e, ValueError) and "MAX_TEXT_CHUNK" in str(e):
        return (f"a PNG text or colour-profile chunk inflates to more than {PNG_TEXT_CHUNK >> 20} MB "
                "(a decompression bomb?)")
    if isinstance(e, ValueError) and "MAX_TEXT_MEMORY" in str(e):
        return (f"the PNG's text chunks inflate to more than {PNG_TEXT_MEMORY >> 20} MB in all "
                "(a decompression bomb?)")
    if isinstance(e, MemoryError):
        return "needs more memory than this machine gives (a decompression bomb?)"
    if isinstance(e, UnidentifiedImageError):
        return "not a picture in a format we read (" + ", ".join(READ_FORMATS) + ")"
    detail = " ".join(str(e).split()) or type(e).__name__
    return f"corrupt or truncated picture: {detail}"


def load_square(path, pad=False, largest=512):
    """The picture at path as (square, animated): a square RGB/RGBA image in sRGB, pixels only (see
    the module doc), and whether the picture has more than one frame (only the first is used).

    largest: the biggest rung wanted (lets JPEGs decode at a reduced scale). Raises Refused."""
    with warnings.catch_warnings():
        # Pillow warns on stderr about what it can read anyway (corrupt EXIF, palette transparency...):
        # not our user's business. Its bomb warning is a refusal.
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        with open_regular(path) as f:
            if os.fstat(f.fileno()).st_size == 0:
                raise Refused("empty file")
            try:
                im = Image.open(f, formats=READ_FORMATS)
            except Exception as e:
                raise Refused(_why(e)) from None
            with im:
                w, h = im.size
                if w * h > MAX_PIXELS:
                    raise Refused(f"{w}x{h} is {w * h / 1e6:.0f} megapixels, more than {MAX_PIXELS // 1_000_000} "
                                  "(a decompression bomb?)")
                if min(w, h) < MIN_SIDE:
                    raise Refused(f"{w}x{h} is too small for an avatar: the shorter side must be at least {MIN_SIDE} px")
                try:
                    square = _square(im, pad, largest)
                except Exception as e:
                    raise Refused(_why(e)) from None
                try:
                    # Whether a second frame exists (GIF: one frame header read; the others: the
                    # header's count). Never counted by walking every frame.
                    animated = bool(getattr(im, "is_animated", False))
                except Exception:
                    animated = True                   # a broken second frame: the first one is used
                return square, animated


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
    if im.mode == "F":
        # Floating-point grey: 0..1 (the usual), or 0..255 if any value is above 1.
        if im.getextrema()[1] <= 1.0:
            im = im.point(lambda v: v * 255)
        im = im.convert("L")
    elif im.mode.startswith("I;16") or im.mode == "I":
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
