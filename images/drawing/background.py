"""Background patterns (the "random" ones use a fixed-seed LCG, so the output is deterministic)."""
import math

from .geometry import Path, rot_rect, star_pts


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

