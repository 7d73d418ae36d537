"""The bytes a page downloads to show a 64 px avatar through the full stack: `/` then the legacy 256 px PNG
of the fox it picked, or the avatar URL then the file it names; one fresh TLS connection per sample."""
import hashlib
import socket
import ssl
from urllib.parse import urlsplit

from .common import AVATAR_SIZE, CHROMIUM_ACCEPT, HOST, SMOKE, med

COUNTED = ("response bytes of the 302 and of the image, as received over HTTPS/1.1 after decryption: "
           "status line, headers and blank line, then the body; not the requests, TLS or TCP/IP")
BROWSER_HEADERS = {"Accept": CHROMIUM_ACCEPT, "Accept-Encoding": "gzip, deflate, br"}


def expected_format(manifest):
    """The format the sidecar gives Chromium's Accept: the first whose media type it lists, else the last."""
    listed = {t.split(";")[0].strip().lower() for t in CHROMIUM_ACCEPT.split(",")}
    return next((f.ext for f in manifest.formats[:-1] if f.media_type in listed), manifest.formats[-1].ext)


class Connection:
    """One TLS connection to the stack speaking HTTP/1.1 keep-alive, counting each response's bytes."""

    def __init__(self, port, host):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE   # the stack's throw-away CA, on loopback
        self.host, self.buf = host, b""
        self.sock = ctx.wrap_socket(socket.create_connection((HOST, port), timeout=10), server_hostname=host)

    def _recv(self):
        if not (data := self.sock.recv(65536)):
            raise RuntimeError("the connection closed in the middle of a response")
        self.buf += data

    def get(self, path):
        """(status, headers lower-cased, bytes of the response, of its body)."""
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\n" +
                           "".join(f"{k}: {v}\r\n" for k, v in BROWSER_HEADERS.items()) + "\r\n").encode())
        while b"\r\n\r\n" not in self.buf:
            self._recv()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        fields = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
        n = int(fields.get("content-length", -1))
        if n < 0:
            raise RuntimeError(f"GET {path}: no Content-Length ({lines[0]})")
        while len(self.buf) < n:
            self._recv()
        self.buf = self.buf[n:]
        return int(lines[0].split()[1]), fields, len(head) + 4 + n, n


def served(manifest, path):
    """(what the file is, which picture) of a path the avatar URL names: an image of the manifest, or an identity."""
    if e := manifest.entry(path):
        return f"{e.size} px {e.fmt}", e.fox
    return ("SVG identity" if path.endswith(".svg") else f"{path.rsplit('-', 1)[1][:-4]} px png identity"), path


def sample(ls, manifest, path, legacy):
    """One page showing one avatar: (302 bytes, file bytes, (what, picture) or None, problem or None)."""
    c = Connection(ls.https_port, ls.host)
    try:
        st, h, redirect, _ = c.get(path)
        target = urlsplit(h.get("location", "")).path
        if legacy and manifest.entry(target):   # the legacy file of the fox `/` picked
            target = "/" + next(x for x in manifest.legacy if x.fox == manifest.entry(target).fox).path
        if st != 302:
            return redirect, 0, None, f"GET {path}: {st}, not 302"
        ist, _, image, _ = c.get(target)
        return redirect, image, served(manifest, target), None if ist == 200 else f"GET {target}: {ist}, not 200"
    finally:
        c.sock.close()


def measure(ls, manifest):
    """Both ways, BYTES_SAMPLES pages each: the medians and what was fetched (the raw results' avatar_bytes)."""
    samples = 21 if SMOKE else 210
    out = {"samples": samples, "counted": COUNTED, "accept": CHROMIUM_ACCEPT, "size": AVATAR_SIZE, "problems": []}
    for way, legacy in (("before", True), ("after", False)):
        got = [sample(ls, manifest, "/" if legacy else f"/?s={AVATAR_SIZE}&u="
                      + hashlib.md5(f"avatar-{i}@example.org".encode()).hexdigest(), legacy) for i in range(samples)]
        out["problems"] += sorted({p for *_, p in got if p})[:5]
        files = [f for _, _, f, _ in got if f]
        out[way] = {"redirect": med([r for r, *_ in got]), "image": med([i for _, i, *_ in got]),
                    "total": med([r + i for r, i, *_ in got]), "foxes": len({p for _, p in files}),
                    "images": sorted({w for w, _ in files})}
    return out
