"""The drawn foxes' encoder: the bytes of a render in each of the set's formats.

    from encode import encode
    encode(FORMATS[0], rgb)   # -> the AVIF bytes of an RGB render (FORMATS: imageset.contract)

images/draw.py renders each fox at each size of the ladder and writes it in each format (encode);
the ladder, the formats and their media types are the image set's contract
(imageset/contract.py), and its writer names the files by content and lists them in
manifest.tsv.

Everything here is deterministic: the pinned Pillow (images/requirements.txt) with its
bundled libwebp and libavif/libaom gives byte-identical files on every run. The settings
were measured on the set (21 foxes, mean bytes per file at 64 px; see each format). At 32 /
64 / 128 / 256 / 512 px: AVIF 0.67 / 1.1 / 2.1 / 3.9 / 7.5 KB, WebP 0.74 / 1.5 / 2.9 / 5.3 /
10.0 KB, PNG 1.7 / 3.2 / 6.0 / 11.3 / 21.6 KB. The 384 and 512 px rungs double the set's bytes (1.46 MB
of files before them, 2.92 MB with them) and, with four times the pixels to draw, make `make images`
take about three times the CPU (18 s before them, 58 s with them, measured back to back).
"""
import io

from PIL import Image

def _palette(rgb, colours):
    """Median cut without dithering: the flat colours stay exact (most pixels are flat
    colour), the anti-aliased edges take the nearest of the rest."""
    return rgb.quantize(colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE,
                        kmeans=1 if colours < 256 else 0)


def encode(fmt, rgb):
    """The bytes of an RGB render in fmt (no metadata, no timestamps)."""
    out = io.BytesIO()
    if fmt.ext == "avif":
        # Lossy AV1 with screen-content tools (palette and intra block copy: made for flat
        # art): at 64 px ~1.1 KB and crisp edges, where the default tuning needs ~1.2 KB
        # (quality 65) for softer ones; quality 50 starts losing the small background dots. 4:4:4: 4:2:0 smears small coloured details (eyes,
        # blush). Speed 6 is within ~5% of speed 4's size at a third of the time; one
        # thread so the encoder cannot vary with the machine.
        rgb.save(out, "AVIF", quality=55, subsampling="4:4:4", speed=6, max_threads=1,
                 codec="aom", advanced=[("tune-content", "screen")])
    elif fmt.ext == "webp":
        # Lossless WebP of a 48-colour palette: ~1.5 KB, edges as clean as the PNG's (the
        # flat colours exact). Lossy WebP is always 4:2:0: ~1.0 KB at quality 75 but the
        # small coloured details bleed; lossless of the PNG's 256 colours is ~2.6 KB.
        # Method 4: methods 5-6 save < 0.1% at 10-100x the time.
        _palette(rgb, 48).save(out, "WEBP", lossless=True, quality=100, method=4)
    elif fmt.ext == "png":
        # 256-colour palette: flat art needs ~2000 colours only at edges, so the error is
        # invisible (mean < 0.5/255) and the files are half the size of RGB PNGs. Stored
        # fast here: images/draw.sh recompresses with optipng (-o2 -strip all).
        _palette(rgb, 256).save(out, "PNG", compress_level=1)
    else:
        raise ValueError(f"no encoder for {fmt.ext}")
    return out.getvalue()
