"""Design space, Bezier paths and the supersampled canvas (images/draw.py's drawing primitives).

Coordinates are in a 0..100 design space (x right, y down). While the fox is
drawn (fox_space(True)), points are scaled about (50, AY) by K so the fox sits
inside the inscribed circle; the background is drawn untransformed.
"""
import math

from PIL import Image, ImageChops, ImageDraw

SS = 4              # supersampling factor: a canvas of size px is drawn at SS * size and downsampled

# ------------------------------------------------------------------ helpers --
def rgb(h):
    h = h.lstrip("#")
    return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))


# The fox is drawn in design units and then scaled by K about (50, AY), so it
# sits inside the inscribed circle; the background is drawn untransformed.
K, AY = 0.9, 62.0
_fox = False


def fox_space(on):
    """Draw in the fox's scaled space (True) or the background's (False)."""
    global _fox
    _fox = on


def tx(x, y):
    if _fox:
        return 50 + (x - 50) * K, AY + (y - AY) * K
    return x, y


def sc(v):
    return v * K if _fox else v


class Shape(list):
    """A polygon's points (what the raster canvas fills) and, for a shape built from curves, its
    path commands [(op, ((x, y), ...)), ...] with op M, L, C or Q (what the SVG canvas writes)."""

    def __init__(self, pts, cmds=None):
        super().__init__(pts)
        self.cmds = cmds

    def map(self, f):
        """The shape with every point (x, y) moved to f(x, y)."""
        return Shape([f(*p) for p in self], self.cmds and [(op, tuple(f(*p) for p in ps)) for op, ps in self.cmds])


class Path:
    """Polyline builder with cubic/quadratic Bezier segments (design units)."""

    def __init__(self, x, y):
        self._pts = [(x, y)]
        self._cmds = [("M", ((x, y),))]

    @property
    def pts(self):
        return Shape(self._pts, self._cmds)

    def L(self, x, y):
        self._pts.append((x, y))
        self._cmds.append(("L", ((x, y),)))
        return self

    def C(self, x1, y1, x2, y2, x, y, n=32):
        x0, y0 = self._pts[-1]
        for i in range(1, n + 1):
            t = i / n
            m = 1 - t
            self._pts.append((m ** 3 * x0 + 3 * m * m * t * x1 + 3 * m * t * t * x2 + t ** 3 * x,
                              m ** 3 * y0 + 3 * m * m * t * y1 + 3 * m * t * t * y2 + t ** 3 * y))
        self._cmds.append(("C", ((x1, y1), (x2, y2), (x, y))))
        return self

    def Q(self, x1, y1, x, y, n=24):
        x0, y0 = self._pts[-1]
        for i in range(1, n + 1):
            t = i / n
            m = 1 - t
            self._pts.append((m * m * x0 + 2 * m * t * x1 + t * t * x,
                              m * m * y0 + 2 * m * t * y1 + t * t * y))
        self._cmds.append(("Q", ((x1, y1), (x, y))))
        return self

    def sym(self):
        """Left half drawn from the top centre down to the bottom centre ->
        closed symmetric outline (mirror about x = 50)."""
        back = []      # the mirrored half, walked back up: each segment reversed
        for (op, pts), (_, prev) in zip(reversed(self._cmds[1:]), reversed(self._cmds[:-1])):
            ctrl = [(100 - x, y) for x, y in reversed(pts[:-1])]
            back.append((op, tuple(ctrl) + ((100 - prev[-1][0], prev[-1][1]),)))
        return Shape(self._pts + [(100 - x, y) for x, y in reversed(self._pts)], self._cmds + back)


def mirror(pts):
    cmds = getattr(pts, "cmds", None)
    return Shape([(100 - x, y) for x, y in pts],
                 cmds and [(op, tuple((100 - x, y) for x, y in p)) for op, p in cmds])


class Canvas:
    """A size x size px image, drawn at SS times that and downsampled by result().
    bg None: a transparent (RGBA) layer, to be composited."""

    def __init__(self, bg, size):
        self.size = size
        self.s = size * SS                    # drawing canvas (px)
        self.u = self.s / 100.0               # drawing px per design unit
        self.im = Image.new("RGBA", (self.s, self.s), (0, 0, 0, 0)) if bg is None else \
            Image.new("RGB", (self.s, self.s), rgb(bg))
        self.d = ImageDraw.Draw(self.im)

    def fox_space(self, on):
        fox_space(on)

    def px(self, pts):
        u = self.u
        return [(a * u, b * u) for a, b in (tx(x, y) for x, y in pts)]

    # plain shapes
    def poly(self, pts, fill):
        self.d.polygon(self.px(pts), fill=rgb(fill))

    def grown(self, pts, w, fill):
        """The polygon grown by w all round (round joins)."""
        self.poly(pts, fill)
        self.stroke(list(pts) + [pts[0]], 2 * w, fill)

    def ellipse(self, cx, cy, rx, ry, fill):
        cx, cy, u = *tx(cx, cy), self.u
        rx, ry = sc(rx), sc(ry)
        self.d.ellipse([(cx - rx) * u, (cy - ry) * u, (cx + rx) * u, (cy + ry) * u], fill=rgb(fill))

    def circle(self, cx, cy, r, fill):
        self.ellipse(cx, cy, r, r, fill)

    def ring(self, cx, cy, r, w, fill):
        cx, cy, u = *tx(cx, cy), self.u
        r, w = sc(r), sc(w)
        self.d.ellipse([(cx - r) * u, (cy - r) * u, (cx + r) * u, (cy + r) * u],
                       outline=rgb(fill), width=max(1, round(w * u)))

    def rect(self, x0, y0, x1, y1, fill, radius=0):
        (x0, y0), (x1, y1), u = tx(x0, y0), tx(x1, y1), self.u
        self.d.rounded_rectangle([x0 * u, y0 * u, x1 * u, y1 * u], radius=sc(radius) * u, fill=rgb(fill))

    def stroke(self, pts, w, fill):
        """Polyline with round joins and caps."""
        self.d.line(self.px(pts), fill=rgb(fill), width=max(1, round(sc(w) * self.u)), joint="curve")
        for x, y in (pts[0], pts[-1]):
            self.circle(x, y, w / 2, fill)

    # masks, for shapes clipped to other shapes
    def mask(self, *polys):
        m = Image.new("L", (self.s, self.s), 0)
        md = ImageDraw.Draw(m)
        for p in polys:
            md.polygon(self.px(p), fill=255)
        return m

    def paint(self, mask, fill, clip=None):
        if clip is not None:
            mask = ImageChops.multiply(mask, clip)
        self.im.paste(rgb(fill) + ((255,) if self.im.mode == "RGBA" else ()), (0, 0), mask)

    def result(self):
        """The served size (RGB, or RGBA for a layer), downsampled for anti-aliasing."""
        return self.im.resize((self.size, self.size), Image.LANCZOS)


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

