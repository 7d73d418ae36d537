"""Background patterns (the "random" ones use a fixed-seed LCG, so the output is deterministic)."""
import math

from .geometry import Path, rot_rect, star_pts


# --------------------------------------------------------------- background --
def background(cv, pattern, c2, seed):
    if pattern == "dots":
        dots(cv, c2, -4, 10, 1.8)
    elif pattern == "stripes":
        stripes(cv, c2, 14, 6)
    elif pattern == "rays":
        rays(cv, c2, 24)
    elif pattern == "rings":
        rings(cv, c2, 75, 12, 4)
    elif pattern == "checker":
        checker(cv, c2, 8)
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


def dots(cv, c2, start, step, r):
    """Rows of dots, every other row shifted by half a step."""
    for j, y in enumerate(range(start, 100 + step, step)):
        for x in range(start + (step // 2 if j % 2 else 0), 100 + step, step):
            cv.circle(x, y, r, c2)


def stripes(cv, c2, period, width):
    for k in range(-100, 200, period):
        cv.poly([(k, 0), (k + width, 0), (k + width - 100, 100), (k - 100, 100)], c2)


def rays(cv, c2, n):
    """Every other of n wedges around (50, 55)."""
    for i in range(0, n, 2):
        a0, a1 = math.radians(i * 360 / n), math.radians((i + 1) * 360 / n)
        cv.poly([(50, 55), (50 + 120 * math.cos(a0), 55 + 120 * math.sin(a0)),
                 (50 + 120 * math.cos(a1), 55 + 120 * math.sin(a1))], c2)


def rings(cv, c2, outer, step, width):
    for r in range(outer, 0, -step):
        cv.ring(50, 55, r, width, c2)


def checker(cv, c2, n):
    for i in range(n):
        for j in range(n):
            if (i + j) % 2 == 0:
                cv.rect(i * 100 / n, j * 100 / n, (i + 1) * 100 / n, (j + 1) * 100 / n, c2)


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
    cv.poly(p.pts.map(t), fill)
    if vein:
        cv.stroke([t(-size * 0.8, 0), t(size * 0.7, 0)], 0.5, vein)

