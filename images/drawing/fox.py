"""The fox: head, body and tail shapes, the face and its expressions, the accessories."""
import math

from .background import leaf_shape
from .geometry import Path, mirror, star_pts


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


def draw_fox(cv, f, expression, acc, dark_bg, face_too=True):
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

    if face_too:
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


