"""The keyed identities: each drawn fox on a variant background (palette colour x pattern), the fox
set apart by a white outline. The outline is what touches the background, so one rule holds for
every fox and variant: white against each background colour and its pattern colour >= 3:1 (WCAG
1.4.11); tests/images/test_identities.py checks it, and that the colours stay apart under
colour-vision deficiencies (Machado 2009, CIEDE2000: drawing/colour.py)."""
from PIL import Image

from .background import checker, dots, rays, rings, stripes
from .colour import linear
from .fox import draw_fox
from .geometry import Canvas, Path, star_pts
from .svg import SvgCanvas
from .traits import FOXES, FURS

# Background colours (a max-min search over sRGB for the distance under normal vision and simulated
# protanopia, deuteranopia and tritanopia). The order and the count of colours and patterns make a
# key's variant: changing either moves keys to other backgrounds.
PALETTE = ("#126C51", "#0000FC", "#009099", "#752D7E", "#906CFC", "#D82463", "#872D00", "#AB7E00")
OUTLINE = "#FFFFFF"
SILHOUETTE = ("#E4E4E4", "#7A7A7A")     # d=mp: a grey fox on light grey (3.4:1)
OUTLINE_WIDTH = 3.0          # design units (about 1 px at 32 px)


def shade(hex_colour, k=0.4):
    """The pattern colour: the colour darkened (k times its linear light)."""
    out = []
    for c in linear(hex_colour):
        c *= k
        c = 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055
        out.append(round(c * 255))
    return "#%02X%02X%02X" % tuple(out)


def zigzag(cv, c2):
    for base in range(0, 110, 22):
        p = Path(-10, base)
        for x in range(-10, 110, 20):
            p.L(x + 10, base - 8).L(x + 20, base)
        p.L(110, base + 9)
        for x in range(110, -10, -20):
            p.L(x - 10, base + 1).L(x - 20, base + 9)
        cv.poly(p.pts, c2)


def stars(cv, c2):
    for x, y in ((14, 14), (86, 14), (12, 86), (88, 86), (6, 50), (94, 50)):
        cv.poly([(round(a), round(b)) for a, b in star_pts(x, y, 10, 4.2)], c2)


# Patterns, in variant order, big enough to see around the fox at 32 px: (canvas, pattern colour).
PATTERNS = {
    "plain": lambda cv, c2: None,
    "dots": lambda cv, c2: dots(cv, c2, 0, 20, 5),
    "stripes": lambda cv, c2: stripes(cv, c2, 20, 9),
    "rays": lambda cv, c2: rays(cv, c2, 16),
    "rings": lambda cv, c2: rings(cv, c2, 82, 16, 7),
    "checker": lambda cv, c2: checker(cv, c2, 4),
    "halo": lambda cv, c2: cv.ring(50, 52, 41, 12, c2),
    "stars": stars,
    "split": lambda cv, c2: cv.poly([(0, 100), (100, 0), (100, 100)], c2),
    "zigzag": zigzag,
}
VARIANTS = len(PALETTE) * len(PATTERNS)


def variant(v):
    """(colour, pattern) of variant v (0..VARIANTS-1)."""
    return PALETTE[v % len(PALETTE)], list(PATTERNS)[v // len(PALETTE)]


class Outlined:
    """A canvas wrapper that draws each shape grown by w in one colour: the fox's outline."""

    def __init__(self, cv, w, colour):
        self.cv, self.w, self.c = cv, w, colour

    def poly(self, pts, fill):
        self.cv.grown(pts, self.w, self.c)

    def ellipse(self, cx, cy, rx, ry, fill):
        self.cv.ellipse(cx, cy, rx + self.w, ry + self.w, self.c)

    def circle(self, cx, cy, r, fill):
        self.ellipse(cx, cy, r, r, fill)

    def ring(self, cx, cy, r, w, fill):
        self.cv.ring(cx, cy, r + self.w, w + 2 * self.w, self.c)

    def rect(self, x0, y0, x1, y1, fill, radius=0):
        self.cv.rect(x0 - self.w, y0 - self.w, x1 + self.w, y1 + self.w, self.c, radius + self.w)

    def stroke(self, pts, w, fill):
        self.cv.stroke(pts, w + 2 * self.w, self.c)

    def mask(self, *polys):
        return None

    def paint(self, mask, fill, clip=None):
        pass                      # fills inside shapes already grown


def draw_variant(cv, v):
    """Variant v's pattern (on a canvas of its colour)."""
    colour, pattern = variant(v)
    PATTERNS[pattern](cv, shade(colour))


def draw_outlined_fox(cv, fox):
    """Fox number fox (1-based) in its white outline."""
    fur, _, _, _, expression, acc = FOXES[fox - 1]
    cv.fox_space(True)
    try:
        draw_fox(Outlined(cv, OUTLINE_WIDTH, OUTLINE), FURS[fur], expression, acc, dark_bg=True, face_too=False)
        draw_fox(cv, FURS[fur], expression, acc, dark_bg=True)
    finally:
        cv.fox_space(False)


def draw_silhouette(cv):
    """The first fox's outline filled in one grey, no face (on a canvas of SILHOUETTE[0])."""
    fur, _, _, _, expression, _ = FOXES[0]
    cv.fox_space(True)
    try:
        draw_fox(Outlined(cv, 0, SILHOUETTE[1]), FURS[fur], expression, [], dark_bg=True, face_too=False)
    finally:
        cv.fox_space(False)


def svg(fox, v):
    cv = SvgCanvas(variant(v)[0])
    draw_variant(cv, v)
    draw_outlined_fox(cv, fox)
    return cv.result()


def raster(fox, v, size, layer=None):
    """The identity as an RGB image (layer: the fox's, drawn once per size)."""
    bg = Canvas(variant(v)[0], size)
    draw_variant(bg, v)
    if layer is None:
        layer = fox_layer(fox, size)
    return Image.alpha_composite(bg.result().convert("RGBA"), layer).convert("RGB")


def fox_layer(fox, size):
    cv = Canvas(None, size)
    draw_outlined_fox(cv, fox)
    return cv.result()
