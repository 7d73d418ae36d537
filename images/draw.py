#!/usr/bin/env python3
"""Draw the fox avatar set: Renard-1.png ... Renard-21.png.

    python3 images/draw.py [OUTDIR]        (default: the directory of this script)

Flat-vector foxes drawn with Pillow at 4x and downsampled (LANCZOS) for
anti-aliasing, stored as 256-colour palette PNGs. Every variation comes from
the fixed FOXES table below (the "random" backgrounds use a fixed-seed LCG),
so the output is deterministic: same Pillow version -> byte-identical PNGs (no
timestamps, no metadata). images/draw.sh runs this, then optipng.

To change the set: edit FOXES (add a row = a new Renard-N.png), run
`make images`, look at the result, commit images/ and docs/foxes.png.

Coordinates are in a 0..100 design space (x right, y down); the fox is
symmetric about x = 50 and stays inside the inscribed circle, so avatars
cropped to a circle still show the whole fox.
"""
import math
import os
import sys

from PIL import Image, ImageChops, ImageDraw

SIZE = 256          # served size (px)
SS = 4              # supersampling factor
S = SIZE * SS
U = S / 100.0       # pixels per design unit

# ---------------------------------------------------------------- palettes --
# fur: head; dark: body + ear backs; tip: ear tips; inner: inner ear;
# white: cheek/chin/muzzle fur; bib: chest; eye: pupil; iris: optional ring
# (light eyes read better on dark fur); mark: optional forehead marking.
FURS = {
    "red":      dict(fur="#EC7A2C", dark="#C85A1E", tip="#3A2420", inner="#FDE3CC",
                     white="#FFF8EF", bib="#F3E5D5", eye="#2A1A16"),
    "arctic":   dict(fur="#F4F6F9", dark="#DDE3EC", tip="#DDE3EC", inner="#F7C3C8",
                     white="#FFFFFF", bib="#E9EEF4", eye="#2B2B38"),
    "silver":   dict(fur="#A3ACB7", dark="#7A838F", tip="#2D3038", inner="#EEE9EE",
                     white="#FBFBFD", bib="#E4E6EA", eye="#1E1F24", iris="#E9B43C"),
    "black":    dict(fur="#35302F", dark="#231F1F", tip="#151212", inner="#7C6A66",
                     white="#F6F1EC", bib="#DCD5CF", eye="#120F0F", iris="#F2A93B"),
    "fennec":   dict(fur="#EED09F", dark="#DDB37A", tip="#DDB37A", inner="#F7B8A4",
                     white="#FFFAF1", bib="#F5E9D6", eye="#2A1E18", big_ears=True),
    "cross":    dict(fur="#D9752F", dark="#5A3A2C", tip="#2C211D", inner="#F9DCC4",
                     white="#FFF6EB", bib="#EFE2D3", eye="#24170F", mark="#4A3127"),
    "marble":   dict(fur="#F4F2F0", dark="#9D98A3", tip="#5E5A64", inner="#F4C9C2",
                     white="#FFFFFF", bib="#E8E5E2", eye="#23212A", mark="#8F8A96",
                     iris="#6EA6D8"),
    "grey":     dict(fur="#8F9195", dark="#C4773D", tip="#2B2A2D", inner="#EFE6DC",
                     white="#FCFAF7", bib="#EEE6DC", eye="#1E1B1A", iris="#E0A040",
                     mark="#2F2D30"),
    "golden":   dict(fur="#F6AE3F", dark="#DC8A27", tip="#5A3517", inner="#FFEACD",
                     white="#FFF9EE", bib="#F6E6CF", eye="#2E1D10"),
    "platinum": dict(fur="#F1E5D4", dark="#DCCAB2", tip="#BFA68A", inner="#F5C2B4",
                     white="#FFFDF9", bib="#EFE5D8", eye="#22232B", iris="#78A9D6"),
    "blue":     dict(fur="#6F625C", dark="#564943", tip="#2E2724", inner="#B9A49A",
                     white="#F2ECE7", bib="#D8CEC7", eye="#15110F", iris="#F0B445"),
    "crimson":  dict(fur="#CF4B2B", dark="#A3361F", tip="#2A1714", inner="#FBD9C8",
                     white="#FFF5EE", bib="#F0DED3", eye="#241311"),
}

# ---------------------------------------------------------------- the set ---
# Row N is Renard-N.png: (fur, background, pattern, pattern colour,
# expression, accessories). Expressions: happy, joyful (^ ^), sleepy, wink,
# surprised, tongue, cool (for sunglasses).
FOXES = [
    ("red",      "#4FB3A9", "dots",     "#64C2B8", "happy",     []),
    ("arctic",   "#4C7BD0", "snow",     "#7FA3E4", "sleepy",    ["scarf_red"]),
    ("silver",   "#F08A4B", "stripes",  "#F49C63", "cool",      ["sunglasses"]),
    ("black",    "#6E4FB8", "rays",     "#7B5CC6", "surprised", ["crown"]),
    ("fennec",   "#F4C04A", "dunes",    "#E9A93A", "happy",     ["flower_pink"]),
    ("cross",    "#5DAE5B", "rings",    "#6DBC6A", "wink",      ["headphones"]),
    ("red",      "#F29CB7", "checker",  "#F5AEC4", "tongue",    ["bowtie_blue"]),
    ("marble",   "#E2B33C", "grid",     "#E8C05A", "happy",     ["glasses"]),
    ("grey",     "#A7D28D", "halo",     "#BCDDA7", "joyful",    ["leaf"]),
    ("golden",   "#3F6FB6", "confetti", "#4C7CC3", "joyful",    ["party_hat"]),
    ("red",      "#8E2F4A", "stripes",  "#9C3B57", "happy",     ["top_hat", "bowtie_gold"]),
    ("blue",     "#243A6B", "stars",    "#F6D365", "wink",      ["star"]),
    ("fennec",   "#2E9C9A", "waves",    "#3AAAA7", "cool",      ["sunglasses"]),
    ("black",    "#B9D7EA", "snow",     "#E4F0F8", "sleepy",    ["scarf_stripe"]),
    ("silver",   "#B79BDB", "dots",     "#C4ACE3", "happy",     ["flower_yellow"]),
    ("cross",    "#F2D15C", "rays",     "#F5DA77", "tongue",    ["crown"]),
    ("red",      "#FFD23F", "grid",     "#FFDC66", "surprised", ["glasses"]),
    ("arctic",   "#EE6B5E", "halo",     "#F28377", "wink",      ["bowtie_blue"]),
    ("platinum", "#7E5BB5", "stripes",  "#8A68C0", "happy",     ["headphones"]),
    ("crimson",  "#9CC9A6", "leaves",   "#86B892", "sleepy",    ["leaf"]),
    ("golden",   "#3B4A5A", "confetti", "#4A5B6C", "tongue",    ["bandana"]),
]


# ------------------------------------------------------------------ helpers --
def rgb(h):
    h = h.lstrip("#")
    return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))


# The fox is drawn in design units and then scaled by K about (50, AY), so it
# sits inside the inscribed circle; the background is drawn untransformed.
K, AY = 0.9, 62.0
_fox = False


def tx(x, y):
    if _fox:
        return 50 + (x - 50) * K, AY + (y - AY) * K
    return x, y


def sc(v):
    return v * K if _fox else v


def px(pts):
    return [(a * U, b * U) for a, b in (tx(x, y) for x, y in pts)]


class Path:
    """Polyline builder with cubic/quadratic Bezier segments (design units)."""

    def __init__(self, x, y):
        self.pts = [(x, y)]

    def L(self, x, y):
        self.pts.append((x, y))
        return self

    def C(self, x1, y1, x2, y2, x, y, n=32):
        x0, y0 = self.pts[-1]
        for i in range(1, n + 1):
            t = i / n
            m = 1 - t
            self.pts.append((m ** 3 * x0 + 3 * m * m * t * x1 + 3 * m * t * t * x2 + t ** 3 * x,
                             m ** 3 * y0 + 3 * m * m * t * y1 + 3 * m * t * t * y2 + t ** 3 * y))
        return self

    def Q(self, x1, y1, x, y, n=24):
        x0, y0 = self.pts[-1]
        for i in range(1, n + 1):
            t = i / n
            m = 1 - t
            self.pts.append((m * m * x0 + 2 * m * t * x1 + t * t * x,
                             m * m * y0 + 2 * m * t * y1 + t * t * y))
        return self

    def sym(self):
        """Left half drawn from the top centre down to the bottom centre ->
        closed symmetric outline (mirror about x = 50)."""
        return self.pts + [(100 - x, y) for x, y in reversed(self.pts)]


def mirror(pts):
    return [(100 - x, y) for x, y in pts]


class Canvas:
    def __init__(self, bg):
        self.im = Image.new("RGB", (S, S), rgb(bg))
        self.d = ImageDraw.Draw(self.im)

    # plain shapes
    def poly(self, pts, fill):
        self.d.polygon(px(pts), fill=rgb(fill))

    def ellipse(self, cx, cy, rx, ry, fill):
        cx, cy = tx(cx, cy)
        rx, ry = sc(rx), sc(ry)
        self.d.ellipse([(cx - rx) * U, (cy - ry) * U, (cx + rx) * U, (cy + ry) * U], fill=rgb(fill))

    def circle(self, cx, cy, r, fill):
        self.ellipse(cx, cy, r, r, fill)

    def ring(self, cx, cy, r, w, fill):
        cx, cy = tx(cx, cy)
        r, w = sc(r), sc(w)
        self.d.ellipse([(cx - r) * U, (cy - r) * U, (cx + r) * U, (cy + r) * U],
                       outline=rgb(fill), width=max(1, round(w * U)))

    def rect(self, x0, y0, x1, y1, fill, radius=0):
        (x0, y0), (x1, y1) = tx(x0, y0), tx(x1, y1)
        self.d.rounded_rectangle([x0 * U, y0 * U, x1 * U, y1 * U], radius=sc(radius) * U, fill=rgb(fill))

    def stroke(self, pts, w, fill):
        """Polyline with round joins and caps."""
        self.d.line(px(pts), fill=rgb(fill), width=max(1, round(sc(w) * U)), joint="curve")
        for x, y in (pts[0], pts[-1]):
            self.circle(x, y, w / 2, fill)

    # masks, for shapes clipped to other shapes
    @staticmethod
    def mask(*polys):
        m = Image.new("L", (S, S), 0)
        md = ImageDraw.Draw(m)
        for p in polys:
            md.polygon(px(p), fill=255)
        return m

    def paint(self, mask, fill, clip=None):
        if clip is not None:
            mask = ImageChops.multiply(mask, clip)
        self.im.paste(rgb(fill), (0, 0), mask)

    def result(self):
        # downsample for anti-aliasing, then reduce to a 256-colour palette:
        # flat art needs ~2000 colours only at edges, so the error is invisible
        # (mean < 0.5/255) and the served files are half the size of RGB PNGs.
        im = self.im.resize((SIZE, SIZE), Image.LANCZOS)
        return im.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


def star_pts(cx, cy, r_out, r_in, n=5, rot=-90):
    pts = []
    for i in range(2 * n):
        r = r_out if i % 2 == 0 else r_in
        a = math.radians(rot + i * 180 / n)
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts


def rot_rect(cx, cy, w, h, deg):
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return [(cx + x * c - y * s, cy + x * s + y * c)
            for x, y in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))]


# --------------------------------------------------------------- background --
def background(cv, pattern, c2, seed):
    if pattern == "dots":
        for j, y in enumerate(range(-4, 108, 10)):
            for x in range(-4 + (5 if j % 2 else 0), 108, 10):
                cv.circle(x, y, 1.8, c2)
    elif pattern == "stripes":
        for k in range(-100, 200, 14):
            cv.poly([(k, 0), (k + 6, 0), (k + 6 - 100, 100), (k - 100, 100)], c2)
    elif pattern == "rays":
        for i in range(0, 24, 2):
            a0, a1 = math.radians(i * 15), math.radians((i + 1) * 15)
            cv.poly([(50, 55), (50 + 120 * math.cos(a0), 55 + 120 * math.sin(a0)),
                     (50 + 120 * math.cos(a1), 55 + 120 * math.sin(a1))], c2)
    elif pattern == "rings":
        for r in range(75, 0, -12):
            cv.ring(50, 55, r, 4, c2)
    elif pattern == "checker":
        for i in range(8):
            for j in range(8):
                if (i + j) % 2 == 0:
                    cv.rect(i * 12.5, j * 12.5, (i + 1) * 12.5, (j + 1) * 12.5, c2)
    elif pattern == "grid":
        for k in range(5, 100, 10):
            cv.rect(k - 0.5, 0, k + 0.5, 100, c2)
            cv.rect(0, k - 0.5, 100, k + 0.5, c2)
    elif pattern == "halo":
        cv.circle(50, 52, 44, c2)
    elif pattern == "snow":
        rnd = _Lcg(seed)
        for _ in range(46):
            x, y, r = rnd.uniform(0, 100), rnd.uniform(0, 100), rnd.uniform(0.6, 1.8)
            cv.circle(x, y, r, c2)
    elif pattern == "stars":
        rnd = _Lcg(seed)
        for _ in range(22):
            x, y = rnd.uniform(3, 97), rnd.uniform(3, 97)
            if rnd.uniform(0, 1) < 0.3:
                cv.poly(star_pts(x, y, 2.2, 0.9, rot=-90 + rnd.uniform(0, 60)), c2)
            else:
                cv.circle(x, y, rnd.uniform(0.4, 0.9), c2)
    elif pattern == "confetti":
        rnd = _Lcg(seed)
        colours = ["#F6D365", "#FF7A8A", "#7FE0C8", "#FFFFFF", "#B9A3FF"]
        for i in range(40):
            x, y = rnd.uniform(0, 100), rnd.uniform(0, 100)
            cv.poly(rot_rect(x, y, 3.2, 1.4, rnd.uniform(0, 180)), colours[i % len(colours)])
    elif pattern == "dunes":
        for base, col in ((70, c2), (84, "#DE9630")):
            p = Path(-5, 101).L(-5, base)
            for x in range(0, 115, 30):
                p.Q(x + 10, base - 8, x + 20, base)
                p.Q(x + 25, base + 4, x + 30, base)
            p.L(110, 101)
            cv.poly(p.pts, col)
    elif pattern == "waves":
        for base in range(8, 110, 14):
            p = Path(-5, base + 5).L(-5, base)
            for x in range(-5, 110, 20):
                p.Q(x + 5, base - 4, x + 10, base)
                p.Q(x + 15, base + 4, x + 20, base)
            p.L(110, base + 5)
            for x in range(110, -10, -20):
                p.Q(x - 5, base + 9, x - 10, base + 5)
                p.Q(x - 15, base + 1, x - 20, base + 5)
            cv.poly(p.pts, c2)
    elif pattern == "leaves":
        rnd = _Lcg(seed)
        for _ in range(16):
            x, y, a = rnd.uniform(0, 100), rnd.uniform(0, 100), rnd.uniform(0, 360)
            leaf_shape(cv, x, y, 4.5, a, c2, None)


class _Lcg:
    """Tiny deterministic generator (independent of Python's random module)."""

    def __init__(self, seed):
        self.s = (seed * 2654435761 + 12345) & 0xFFFFFFFF

    def uniform(self, a, b):
        self.s = (self.s * 1664525 + 1013904223) & 0xFFFFFFFF
        return a + (b - a) * (self.s / 2 ** 32)


def leaf_shape(cv, cx, cy, size, deg, fill, vein):
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)

    def t(x, y):
        return (cx + x * c - y * s, cy + x * s + y * c)

    p = Path(-size, 0).Q(0, -size * 0.8, size, 0).Q(0, size * 0.8, -size, 0)
    cv.poly([t(x, y) for x, y in p.pts], fill)
    if vein:
        cv.stroke([t(-size * 0.8, 0), t(size * 0.7, 0)], 0.5, vein)


# --------------------------------------------------------------------- fox --
HEAD = (Path(50, 29)
        .C(41, 29, 32, 32, 28, 39)
        .C(25, 45, 21, 53, 15, 60)      # down the side to the cheek tuft
        .L(22.5, 61.5)
        .L(18.5, 66.5)                  # second small tuft
        .C(27, 72, 40, 79, 50, 83)      # jaw to chin
        .sym())

# lower face: cheeks + muzzle; clipped to the head
MASK = (Path(50, 70)
        .C(48.5, 64, 45, 58.5, 39, 57.5)
        .C(31, 56.5, 22, 58, 12, 62)
        .L(12, 95).L(50, 95)
        .sym())

BODY = (Path(50, 76)
        .C(37, 76, 24, 83, 20, 101)
        .L(18, 110).L(50, 110)
        .sym())

BIB = (Path(50, 78)
       .C(42, 80, 37, 88, 38, 101)
       .L(38, 110).L(50, 110)
       .sym())

# bushy tail curling up on the right, white tip
TAIL = (Path(60, 110)
        .C(82, 111, 100, 98, 97, 82)
        .C(96, 77, 93, 72, 89, 68)
        .C(88.5, 76, 86, 85, 74, 90)
        .C(68, 93, 63, 95, 60, 98).pts)

EYE_Y = 50.5
EYE_X = 38.5


def ear(big):
    """Left ear outline, inner ear and dark tip region."""
    if big:   # fennec: huge ears
        outer = Path(22, 49).C(15, 36, 11, 20, 13, 7).C(26, 12, 38, 20, 46, 31).pts
        inner = Path(25.5, 43).C(20, 33, 16.5, 22, 17.5, 13).C(26, 16.5, 34, 23, 40.5, 32).pts
    else:
        outer = Path(25, 46).C(21, 36, 18, 24, 19, 10).C(30, 15, 40, 23, 46, 31).pts
        inner = Path(28, 40).C(25.5, 33, 23.5, 24, 23.5, 17).C(30, 21, 36, 26, 40.5, 32).pts
    return outer, inner


def draw_fox(cv, f, expression, acc, dark_bg):
    big = f.get("big_ears", False)
    outer, inner = ear(big)

    # tail, body and chest
    cv.poly(TAIL, f["fur"])
    cv.paint(cv.mask(TAIL), f["white"], cv.mask([(80, 60), (100, 60), (100, 80), (80, 75)]))
    cv.poly(BODY, f["dark"])
    cv.poly(BIB, f["bib"])
    if "scarf_red" in acc:
        scarf(cv, "#E0393E", None)
    if "scarf_stripe" in acc:
        scarf(cv, "#3F7FD9", "#FFFFFF")
    if "bandana" in acc:
        bandana(cv)

    # ears (behind the head)
    for side in (outer, mirror(outer)):
        cv.poly(side, f["fur"])
    tip_clip = cv.mask([(0, 0), (100, 0), (100, 19 if not big else 13), (0, 23 if not big else 17)])
    cv.paint(cv.mask(outer, mirror(outer)), f["tip"], tip_clip)
    cv.poly(inner, f["inner"])
    cv.poly(mirror(inner), f["inner"])

    # head
    cv.poly(HEAD, f["fur"])
    head = cv.mask(HEAD)
    if "mark" in f:   # forehead stripe / eye patches
        stripe = Path(50, 28.5).C(45.5, 28.5, 45, 38, 50, 57).C(55, 38, 54.5, 28.5, 50, 28.5).pts
        cv.paint(cv.mask(stripe), f["mark"], head)
    cv.paint(cv.mask(MASK), f["white"], head)

    if "flower_pink" in acc:
        flower(cv, 71, 34, "#FF7FA8", "#FFD84D")
    if "flower_yellow" in acc:
        flower(cv, 71, 34, "#FFD84D", "#E8742A")

    face(cv, f, expression, dark_bg)

    # accessories in front
    if "glasses" in acc:
        for x in (EYE_X, 100 - EYE_X):
            cv.ring(x, EYE_Y, 7.2, 1.6, "#2B2B33")
        cv.stroke([(EYE_X + 7, EYE_Y - 1), (50, EYE_Y - 2.5), (100 - EYE_X - 7, EYE_Y - 1)], 1.5, "#2B2B33")
        cv.stroke([(EYE_X - 7, EYE_Y - 1.5), (27, EYE_Y - 4)], 1.4, "#2B2B33")
        cv.stroke([(100 - EYE_X + 7, EYE_Y - 1.5), (73, EYE_Y - 4)], 1.4, "#2B2B33")
    if "sunglasses" in acc:
        for x in (EYE_X, 100 - EYE_X):
            lens = Path(x - 8, EYE_Y - 4).L(x + 8, EYE_Y - 4).C(x + 8, EYE_Y + 4, x + 5, EYE_Y + 6.5, x, EYE_Y + 6.5) \
                .C(x - 5, EYE_Y + 6.5, x - 8, EYE_Y + 4, x - 8, EYE_Y - 4).pts
            cv.poly(lens, "#1D1E24")
            cv.poly([(x - 5.5, EYE_Y - 2.5), (x - 3, EYE_Y - 2.5), (x - 6, EYE_Y + 2.5), (x - 6.5, EYE_Y + 0.5)], "#5C6270")
        cv.stroke([(EYE_X + 7, EYE_Y - 3.5), (100 - EYE_X - 7, EYE_Y - 3.5)], 1.8, "#1D1E24")
        cv.stroke([(EYE_X - 7.5, EYE_Y - 3.2), (26.5, EYE_Y - 6)], 1.6, "#1D1E24")
        cv.stroke([(100 - EYE_X + 7.5, EYE_Y - 3.2), (73.5, EYE_Y - 6)], 1.6, "#1D1E24")
    if "crown" in acc:
        c = Path(38, 33).L(37, 20).L(43.5, 26).L(50, 17).L(56.5, 26).L(63, 20).L(62, 33).pts
        cv.poly(c, "#F7C531")
        cv.rect(37.5, 30, 62.5, 33.5, "#E0A91F", radius=0.8)
        for x, y, col in ((37, 20, "#F7C531"), (50, 17, "#F7C531"), (63, 20, "#F7C531")):
            cv.circle(x, y, 1.6, col)
        cv.circle(50, 27, 1.8, "#E8415A")
        cv.circle(43.5, 29, 1.2, "#3FA7E0")
        cv.circle(56.5, 29, 1.2, "#3FA7E0")
    if "top_hat" in acc:
        cv.rect(39, 12, 61, 30, "#26232A", radius=1.5)
        cv.rect(39, 24, 61, 28, "#C8384E")
        cv.rect(33, 28.5, 67, 32.5, "#26232A", radius=2)
    if "party_hat" in acc:
        hat = [(40.5, 32), (59.5, 32), (50, 10)]
        cv.poly(hat, "#FF6F91")
        clip = cv.mask(hat)
        for y0 in (15, 23):
            cv.paint(cv.mask([(0, y0), (100, y0 - 3), (100, y0 + 1), (0, y0 + 4)]), "#FFE066", clip)
        cv.circle(50, 10, 2.6, "#FFE066")
    if "leaf" in acc:
        leaf_shape(cv, 53, 26, 9, -35, "#4E9F4A", "#2F7A34")
        cv.stroke([(45.8, 31.2), (43.5, 33)], 1.0, "#2F7A34")
    if "star" in acc:
        cv.poly(star_pts(68, 35, 6.5, 2.9, rot=-80), "#FFD23F")
        cv.circle(68, 35, 1.1, "#FFF3B0")
    if "headphones" in acc:
        band = Path(19, 50).C(18, 28, 33, 19, 50, 19).C(67, 19, 82, 28, 81, 50).pts
        cv.stroke(band, 3, "#2D2F3A")
        for x in (17.5, 82.5):
            cv.rect(x - 4.5, 45, x + 4.5, 61, "#2D2F3A", radius=3.5)
            cv.rect(x - 2.5, 47, x + 2.5, 59, "#FF5C7A", radius=2)
    if "bowtie_blue" in acc:
        bowtie(cv, "#3F7FD9", "#2F63B0")
    if "bowtie_gold" in acc:
        bowtie(cv, "#F2C12E", "#D09A12")


def face(cv, f, ex, dark_bg):
    eye, white = f["eye"], "#FFFFFF"
    iris = f.get("iris")

    def open_eye(x, y, r=1.0):
        if iris:
            cv.ellipse(x, y, 3.9 * r, 4.4 * r, iris)
            cv.ellipse(x, y + 0.3, 2.3 * r, 3.2 * r, eye)
        else:
            cv.ellipse(x, y, 3.6 * r, 4.2 * r, eye)
        cv.circle(x + 1.3 * r, y - 1.6 * r, 1.3 * r, white)
        if r > 1:
            cv.circle(x - 1.4 * r, y + 1.7 * r, 0.6 * r, white)

    def happy_eye(x, y):   # ^ shape
        cv.stroke(Path(x - 4, y + 1.2).Q(x, y - 4, x + 4, y + 1.2).pts, 1.7, eye)

    def closed_eye(x, y):  # sleepy: u shape
        cv.stroke(Path(x - 4, y - 0.2).Q(x, y + 3.8, x + 4, y - 0.2).pts, 1.5, eye)

    lx, rx, y = EYE_X, 100 - EYE_X, EYE_Y
    if ex in ("happy", "tongue", "cool"):
        open_eye(lx, y)
        open_eye(rx, y)
    elif ex == "surprised":
        open_eye(lx, y, 1.2)
        open_eye(rx, y, 1.2)
    elif ex == "joyful":
        happy_eye(lx, y)
        happy_eye(rx, y)
    elif ex == "sleepy":
        closed_eye(lx, y)
        closed_eye(rx, y)
    elif ex == "wink":
        open_eye(lx, y)
        happy_eye(rx, y)

    # cheeks blush for the soft expressions
    if ex in ("joyful", "sleepy", "wink", "tongue"):
        cv.ellipse(31, 61.5, 3.6, 2.2, "#F8B4B4")
        cv.ellipse(69, 61.5, 3.6, 2.2, "#F8B4B4")

    # mouth
    nose_y = 71
    mouth = "#3A2622"
    if ex == "surprised":
        cv.ellipse(50, 79.2, 2.4, 2.8, mouth)
        cv.ellipse(50, 80.4, 1.6, 1.4, "#E86A7A")
        cv.stroke([(50, nose_y + 3), (50, 76)], 0.9, mouth)
    else:
        if ex == "tongue":
            tongue = Path(47, 77.5).L(47, 80).C(47, 84.5, 53, 84.5, 53, 80).L(53, 77.5).pts
            cv.poly(tongue, "#F07A8C")
            cv.stroke([(50, 78.5), (50, 81.5)], 0.6, "#D65A6E")
        cv.stroke([(50, nose_y + 3), (50, 77)], 0.9, mouth)
        cv.stroke(Path(45, 76.2).Q(47.5, 79.2, 50, 77).pts, 0.9, mouth)
        cv.stroke(Path(50, 77).Q(52.5, 79.2, 55, 76.2).pts, 0.9, mouth)

    # nose
    nose = Path(45.2, nose_y - 1.5).C(46, nose_y - 3, 54, nose_y - 3, 54.8, nose_y - 1.5) \
        .C(55.3, nose_y + 0.5, 51.5, nose_y + 3.6, 50, nose_y + 3.6) \
        .C(48.5, nose_y + 3.6, 44.7, nose_y + 0.5, 45.2, nose_y - 1.5).pts
    cv.poly(nose, "#2A1C1A")
    cv.ellipse(48.3, nose_y - 1.1, 1.3, 0.7, "#6A5550")

    if ex == "sleepy":   # z z
        z = "#FFFFFF" if dark_bg else "#2E3A55"
        for x, y0, s in ((83, 34, 5.0), (91, 24, 3.6)):
            cv.stroke([(x, y0), (x + s, y0), (x, y0 + s), (x + s, y0 + s)], 1.3, z)


def scarf(cv, col, stripe):
    band = Path(27, 80).C(38, 86, 62, 86, 73, 80).L(74, 86).C(62, 92, 38, 92, 26, 86).pts
    tail = [(58, 86), (66, 85), (69, 101), (60, 101)]
    cv.poly(tail, col)
    cv.poly(band, col)
    if stripe:
        clip = cv.mask(band, tail)
        for x in range(20, 80, 6):
            cv.paint(cv.mask([(x, 75), (x + 2.5, 75), (x + 2.5 + 6, 101), (x + 6, 101)]), stripe, clip)
    else:
        for y in (96, 99):
            cv.poly([(59.5, y - 0.6), (68.5, y - 0.6), (68.7, y + 0.6), (59.7, y + 0.6)], "#B72A30")


def bandana(cv):
    b = Path(30, 80).C(40, 86, 60, 86, 70, 80).L(50, 99).pts
    cv.poly(b, "#D93A3A")
    clip = cv.mask(b)
    for x, y in ((40, 85), (50, 88), (60, 85), (46, 93), (54, 93), (50, 97)):
        cv.paint(cv.mask([(x - 1, y), (x, y - 1), (x + 1, y), (x, y + 1)]), "#FFFFFF", clip)


def bowtie(cv, col, knot):
    cv.poly([(50, 88), (39, 83), (39, 94)], col)
    cv.poly([(50, 88), (61, 83), (61, 94)], col)
    cv.rect(47.3, 85.3, 52.7, 90.7, knot, radius=1.5)


def flower(cv, x, y, petal, centre):
    for i in range(5):
        a = math.radians(-90 + i * 72)
        cv.circle(x + 4.2 * math.cos(a), y + 4.2 * math.sin(a), 3.6, petal)
    cv.circle(x, y, 2.8, centre)


# --------------------------------------------------------------------- main --
def render(i):
    """Fox number i (1-based) as a palette image."""
    global _fox
    fur, bg, pattern, c2, expression, acc = FOXES[i - 1]
    cv = Canvas(bg)
    background(cv, pattern, c2, seed=i)
    _fox = True
    try:
        draw_fox(cv, FURS[fur], expression, acc, dark_bg=_luma(bg) < 140)
    finally:
        _fox = False
    return cv.result()


def _luma(h):
    r, g, b = rgb(h)
    return 0.299 * r + 0.587 * g + 0.114 * b


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    for i in range(1, len(FOXES) + 1):
        # plain PNG: no text chunks, no timestamp (optipng recompresses it)
        render(i).save(os.path.join(out, f"Renard-{i}.png"), compress_level=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
