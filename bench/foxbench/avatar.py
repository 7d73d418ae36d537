"""The avatar URL in the benchmark. What the sidecar must answer a keyed path with Chromium's Accept (the
key's identity, its SVG, in a drawn set; else the manifest's image of the size in the first format whose
Accept pattern matches it), and the bytes a page downloads to show a 64 px avatar, measured through the
full stack (real Nginx + the real jar, HTTPS):

  before  GET / -> 302 -> the legacy 256 px /Renard-N.png of the fox it picked (what every page got
          before the avatar URL; a sidecar that knows it points / at the 256 px ladder image instead,
          so the legacy file of the same fox is fetched in its place)
  after   GET /?s=64&u=KEY with Chromium's Accept -> 302 -> the file it points at (the key's identity,
          an SVG sent gzipped)

Each sample is one fresh TLS connection carrying the two requests (HTTP/1.1 keep-alive, as a page showing
one avatar), with a different key each time (the MD5 of an e-mail address, as in a Gravatar URL).
Counted: every byte of both responses as it arrives on that connection, decrypted: status line, header
lines and the blank line, then the body. Not counted: the requests, the TLS handshake and records, TCP/IP.
"""
import hashlib
import re
import socket
import ssl
from urllib.parse import parse_qs, urlsplit

from imageset.buckets import murmur2, variant_of
from imageset.contract import IDENTITY_SVG, accept_regex

from .load import med
from .settings import AVATAR_SIZE, BYTES_SAMPLES, CHROMIUM_ACCEPT, HOST

COUNTED = ("response bytes of the 302 and of the image, as received over HTTPS/1.1 after decryption: "
           "status line, headers and blank line, then the body; not the requests, TLS or TCP/IP")
BROWSER_HEADERS = {"Accept": CHROMIUM_ACCEPT, "Accept-Encoding": "gzip, deflate, br"}


def expected_format(manifest, accept=CHROMIUM_ACCEPT):
    """The format the spec gives this Accept: the first whose pattern finds a match, else the last."""
    for f in manifest.formats:
        if not f.accept_regex or re.search(f.accept_regex, accept, re.I):
            return f.ext
    return manifest.formats[-1].ext


def expected_size(manifest, path):
    """The ladder size a benchmarked avatar path must get: its s= snapped up to the ladder (the top above)."""
    m = re.search(r"[?&]s=(\d+)", path)
    asked = int(m.group(1)) if m else AVATAR_SIZE
    return next((s for s in manifest.sizes if s >= asked), manifest.sizes[-1])


def identity(manifest, path, accept=CHROMIUM_ACCEPT):
    """The identity a keyed path gets in a drawn set (/?u=KEY or /avatar/HASH), or None."""
    parts = urlsplit(path)
    key = parse_qs(parts.query).get("u", [""])[0] or parts.path.removeprefix("/avatar/").strip("/")
    if not (manifest.variants and key):
        return None
    svg = re.search(accept_regex(IDENTITY_SVG), accept, re.I) is not None
    key = key.encode()
    return manifest.identity(manifest.keyed_fox(murmur2(key)), variant_of(key, manifest.variants.count),
                             expected_size(manifest, path), svg)


def location_problem(manifest, path, location, accept=CHROMIUM_ACCEPT):
    """None when location (a URL or a path) is what path must get with accept: its identity, or the
    manifest's image of its size in the format accept gets; else what is wrong with it."""
    size, want_identity, path = expected_size(manifest, path), identity(manifest, path, accept), urlsplit(location or "").path
    if want_identity:
        return None if path == want_identity else f"Location {path} is not {want_identity}, the key's identity"
    e, want = manifest.entry(path), expected_format(manifest, accept)
    if e is None:
        return f"Location {location!r} is not a file of the manifest"
    if e.kind != "image" or (e.size, e.fmt) != (size, want):
        return (f"Location {path} is a {e.size} px {e.fmt} ({e.kind}), not the {size} px {want} it asks for "
                f"(a jar without the avatar URL?)")
    return None


def key(i):
    return hashlib.md5(f"avatar-{i}@example.org".encode()).hexdigest()


class Connection:
    """One TLS connection to the stack speaking HTTP/1.1 keep-alive, counting each response's bytes."""

    def __init__(self, port, host):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE   # the stack's throw-away CA, on loopback
        self.host, self.buf = host, b""
        self.sock = ctx.wrap_socket(socket.create_connection((HOST, port), timeout=10), server_hostname=host)

    def _recv(self):
        data = self.sock.recv(65536)
        if not data:
            raise RuntimeError("the connection closed in the middle of a response")
        self.buf += data

    def get(self, path, headers):
        """(status, headers lower-cased, header bytes, body bytes) of one GET."""
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\n" +
                           "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n").encode())
        while b"\r\n\r\n" not in self.buf:
            self._recv()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        fields = dict((k.strip().lower(), v.strip()) for k, _, v in (ln.partition(":") for ln in lines[1:]))
        if "content-length" not in fields:
            raise RuntimeError(f"GET {path}: no Content-Length ({lines[0]})")
        n = int(fields["content-length"])
        while len(self.buf) < n:
            self._recv()
        self.buf = self.buf[n:]
        return int(lines[0].split()[1]), fields, len(head) + 4, n

    def close(self):
        self.sock.close()


def served(manifest, path):
    """(what the file is, which picture, its size on disk) of a path the avatar URL names: an image of
    the manifest, or an identity (an SVG stored gzipped: sent so to a client that takes gzip)."""
    e = manifest.entry(path)
    if e:
        return f"{e.size} px {e.fmt}", e.fox, (manifest.directory / e.path).stat().st_size
    svg = path.endswith(".svg")
    stored = manifest.directory / (path.lstrip("/") + (".gz" if svg else ""))
    return ("SVG identity" if svg else f"{path.rsplit('-', 1)[1][:-4]} px png identity"), path, stored.stat().st_size


def sample(ls, manifest, path, legacy):
    """One page showing one avatar: the 302 of path, then its file (with legacy: the legacy file of the
    same fox). Returns (redirect bytes, file bytes, (what, picture) or None, problem or None)."""
    c = Connection(ls.https_port, ls.host)
    try:
        st, h, hb, bb = c.get(path, BROWSER_HEADERS)
        if st != 302:
            return hb + bb, 0, None, f"GET {path}: {st}, not 302"
        target = urlsplit(h.get("location", "")).path
        problem = None if legacy else location_problem(manifest, path, h["location"])
        if legacy:
            e = manifest.entry(target)
            if e is None:
                return hb + bb, 0, None, f"GET {path}: Location {target!r} is not a file of the manifest"
            target = "/" + next(x for x in manifest.legacy if x.fox == e.fox).path
        elif problem:
            return hb + bb, 0, None, problem
        what, picture, size_on_disk = served(manifest, target)
        ist, ih, ihb, ibb = c.get(target, BROWSER_HEADERS)
        if ist != 200 or ibb != size_on_disk:
            problem = problem or f"GET {target}: {ist}, {ibb} bytes of body ({size_on_disk} on disk)"
        return hb + bb, ihb + ibb, (what, picture), problem
    finally:
        c.close()


def measure(ls, manifest, samples=BYTES_SAMPLES):
    """Both ways, `samples` pages each: the medians and what was fetched (the raw results' avatar_bytes)."""
    out = {"samples": samples, "counted": COUNTED, "accept": CHROMIUM_ACCEPT, "size": AVATAR_SIZE, "problems": []}
    for way, legacy in (("before", True), ("after", False)):
        got = [sample(ls, manifest, "/" if legacy else f"/?s={AVATAR_SIZE}&u={key(i)}", legacy)
               for i in range(samples)]
        out["problems"] += sorted({p for *_, p in got if p})[:5]
        files = [f for _, _, f, _ in got if f]
        out[way] = {"redirect": med([r for r, *_ in got]), "image": med([i for _, i, *_ in got]),
                    "total": med([r + i for r, i, *_ in got]), "foxes": len({p for _, p in files}),
                    "images": sorted({w for w, _ in files})}
    return out
