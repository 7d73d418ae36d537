"""The SVG canvas: the raster canvas's primitives (geometry.Canvas) written as SVG elements, so
one drawing makes both the vector picture and the raster ones. Design units 0..100 are the
viewBox; the fox's space is a group scaled about (50, AY) by K."""
import gzip

from .geometry import AY, K


def _n(v):
    """A coordinate, to 0.1 design unit (0.5 px at 512 px)."""
    s = f"{v:.1f}".rstrip("0").rstrip(".")
    return "0" if s in ("", "-0") else s


def _pt(p):
    return f"{_n(p[0])} {_n(p[1])}"


def path_data(pts):
    """SVG path data of a Shape (its curves) or of a plain list of points (a polygon)."""
    cmds = getattr(pts, "cmds", None)
    if not cmds:
        return "M" + " ".join(_pt(p) for p in pts) + "Z"
    out, last = "", None
    for op, ps in cmds:
        coords = " ".join(_pt(p) for p in ps)
        out += (" " + coords) if op == last and op != "M" else op + coords
        last = op
    return out + "Z"


class _Mask:
    def __init__(self, d):
        self.d, self.id = d, None


class SvgCanvas:
    def __init__(self, bg, size=None):
        self.parts = [f'<rect width="100" height="100" fill="{bg}"/>']
        self.clips = 0

    def fox_space(self, on):
        self.parts.append(f'<g transform="matrix({_n(K)} 0 0 {_n(K)} {_n(50 * (1 - K))} {_n(AY * (1 - K))})">'
                          if on else "</g>")

    def poly(self, pts, fill):
        self.parts.append(f'<path d="{path_data(pts)}" fill="{fill}"/>')

    def grown(self, pts, w, fill):
        """The polygon grown by w all round (round joins)."""
        self.parts.append(f'<path d="{path_data(pts)}" fill="{fill}" stroke="{fill}" stroke-width="{_n(2 * w)}" '
                          'stroke-linejoin="round"/>')

    def ellipse(self, cx, cy, rx, ry, fill):
        if rx == ry:
            self.parts.append(f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(rx)}" fill="{fill}"/>')
        else:
            self.parts.append(f'<ellipse cx="{_n(cx)}" cy="{_n(cy)}" rx="{_n(rx)}" ry="{_n(ry)}" fill="{fill}"/>')

    def circle(self, cx, cy, r, fill):
        self.ellipse(cx, cy, r, r, fill)

    def ring(self, cx, cy, r, w, fill):
        self.parts.append(f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(r - w / 2)}" fill="none" '
                          f'stroke="{fill}" stroke-width="{_n(w)}"/>')

    def rect(self, x0, y0, x1, y1, fill, radius=0):
        rx = f' rx="{_n(radius)}"' if radius else ""
        self.parts.append(f'<rect x="{_n(x0)}" y="{_n(y0)}" width="{_n(x1 - x0)}" height="{_n(y1 - y0)}"{rx} fill="{fill}"/>')

    def stroke(self, pts, w, fill):
        d = path_data(pts)[:-1]       # open
        self.parts.append(f'<path d="{d}" fill="none" stroke="{fill}" stroke-width="{_n(w)}" '
                          'stroke-linecap="round" stroke-linejoin="round"/>')

    def mask(self, *polys):
        return _Mask("".join(path_data(p) for p in polys))

    def paint(self, mask, fill, clip=None):
        """The mask's shapes in fill, clipped to clip's."""
        shape = f'<path d="{mask.d}" fill="{fill}"/>'
        if clip is None:
            self.parts.append(shape)
            return
        if clip.id is None:
            self.clips += 1
            clip.id = f"c{self.clips}"
            self.parts.append(f'<clipPath id="{clip.id}"><path d="{clip.d}"/></clipPath>')
        self.parts.append(f'<g clip-path="url(#{clip.id})">{shape}</g>')

    def result(self, size=80):
        """The SVG document (UTF-8 bytes): shown at size px unless the page sizes it."""
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 100 100">'
                + "".join(self.parts) + "</svg>\n").encode()


def gz(data):
    """Deterministic gzip (no name, no time) of the kind Nginx's gzip_static serves."""
    return gzip.compress(data, compresslevel=9, mtime=0)
