"""The front door as a browser meets it while compose changes the stack: one avatar after another,
each request on a new HTTPS connection, every redirect followed to the image, which must be served
(`200`, its format's Content-Type and magic bytes, the whole body).

    with RequestLoop(port, ca_file) as loop:
        compose("up", "-d", "--wait", ...)
    print(loop.summary())      # requests, ok, fallback, refused, failed, wrong, gap_ms, ...

The loop asks, in turn: a random avatar, a keyed one (`u=`), the Gravatar form, and a file a keyed
redirect named earlier in the run, as a browser that cached that redirect asks it again (after a set
change: an earlier set's name, which `@retired` sends into the current set). Each avatar is one of:
  ok        every hop answered, ending on a served image; among them `fallback`, the avatar URL
            answered by Nginx's fallback, and `retired`, an earlier set's file sent into this one
  refused   the connection was refused (nothing listens on the published port)
  failed    any other error: reset, closed before an answer, TLS, timeout
  wrong     answered, but not a 302 (or 302s) to a served image: a 404, a 502, a wrong type

`python tests/compose/request_loop.py PORT CA_FILE -- COMMAND...` runs COMMAND under the loop and
prints the summary (the measurements of docs/compose.md, "Upgrades and set changes").
"""
import hashlib
import http.client
import json
import socket
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[2] / "tools")]
from imageset.contract import FORMATS  # noqa: E402  (imageset/)
from settle import until  # noqa: E402  (tools/)

MEDIA = {f.ext: f.media for f in FORMATS}
MAGIC = {"avif": lambda b: b[4:12] in (b"ftypavif", b"ftypavis"),
         "webp": lambda b: b[:4] == b"RIFF" and b[8:12] == b"WEBP",
         "png": lambda b: b[:8] == b"\x89PNG\r\n\x1a\n"}
ACCEPT = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"   # Chromium's, for an <img>
KEYS = 16


class RequestLoop(threading.Thread):
    def __init__(self, port, ca_file, host="localhost", addr="127.0.0.1", timeout=5):
        super().__init__(daemon=True)
        self.port, self.host, self.addr, self.timeout = int(port), host, addr, timeout
        self.ctx = ssl.create_default_context(cafile=ca_file)
        self.results = []        # (start, end, kind, detail), one per avatar
        self.cached = {}         # key -> the file its first redirect named, as a browser keeps it
        self._done = threading.Event()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self._done.set()
        self.join()

    def run(self):
        n = 0
        while not self._done.is_set():
            start = time.time()   # wall clock: compared with Docker's timestamps
            kind, detail = self.avatar(n)
            self.results.append((start, time.time(), kind, detail))
            n += 1

    def avatar(self, n):
        key = f"loop-{n // 4 % KEYS}"
        path = [f"/?s=64&n={n}", f"/?s=64&u={key}", f"/avatar/{hashlib.md5(key.encode()).hexdigest()}?s=80",
                self.cached.get(key, "/?s=96")][n % 4]
        nginx = ""   # Nginx's own 302 (it carries a small page; the sidecar's has no body)
        try:
            for _hop in range(3):
                status, headers, body = self.get(path)
                if status == 302:
                    if b"<html>" in body:
                        nginx = nginx or ("retired" if path.startswith("/a/") else "fallback")
                    location = headers.get("location", "")
                    if not location.startswith("/"):
                        return "wrong", f"{path}: 302 to {location!r}"
                    if n % 4 == 1 and path.startswith("/?"):
                        self.cached.setdefault(key, location)   # a browser keeps it (max-age: an hour)
                    path = location
                    continue
                if status != 200:
                    return "wrong", f"{path}: {status}"
                ext = path.rsplit(".", 1)[-1]
                if ext not in MEDIA or headers.get("content-type") != MEDIA[ext] or not MAGIC[ext](body) \
                        or len(body) != int(headers.get("content-length", -1)):
                    return "wrong", f"{path}: {headers.get('content-type')}, {len(body)} bytes"
                return "ok", nginx
            return "wrong", f"{path}: more than 2 redirects"
        except ConnectionRefusedError:
            return "refused", path
        except (OSError, http.client.HTTPException) as e:
            return "failed", f"{path}: {type(e).__name__}: {e}"

    def get(self, path):
        conn = http.client.HTTPSConnection(self.host, self.port, timeout=self.timeout, context=self.ctx)
        sock = socket.create_connection((self.addr, self.port), self.timeout)
        try:
            conn.sock = self.ctx.wrap_socket(sock, server_hostname=self.host)
            conn.request("GET", path, headers={"Accept": ACCEPT})
            r = conn.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        finally:
            sock.close()
            conn.close()

    def wait_warm(self, timeout=60):
        """Until the loop has had an answer of each kind of avatar and holds every key's redirect in its
        cache (what a change is then measured against); AssertionError after timeout seconds."""
        until(lambda: len(self.cached) == KEYS and sum(r[2] == "ok" for r in self.results) >= 4,
              f"the request loop's {KEYS} cached redirects ({len(self.cached)}; {self.summary()})", timeout)

    def outages(self):
        """The runs of avatars that were not ok, one after another: [(start, end, kinds)], start the
        first one's start, end the last one's end (seconds since the epoch), kinds their counts."""
        runs, run = [], None
        for start, end, kind, _detail in self.results:
            if kind == "ok":
                run = None
                continue
            if run is None:
                run = [start, end, {}]
                runs.append(run)
            run[1] = end
            run[2][kind] = run[2].get(kind, 0) + 1
        return [tuple(r) for r in runs]

    def summary(self):
        """Counts per kind; gap_ms, the longest outage: from the end of the ok avatar before it to the
        start of the ok one after it (the front door out of order), 0 if none."""
        counts = {k: 0 for k in ("ok", "fallback", "retired", "refused", "failed", "wrong")}
        for _start, _end, kind, detail in self.results:
            counts[kind] += 1
            if kind == "ok" and detail:
                counts[detail] += 1
        gap, examples = 0.0, [f"{kind}: {detail}" for _s, _e, kind, detail in self.results if kind != "ok"][:5]
        for first, last, _kinds in self.outages():
            before = max((e for _s, e, kind, _d in self.results if kind == "ok" and e <= first), default=first)
            after = min((s for s, _e, kind, _d in self.results if kind == "ok" and s >= last), default=last)
            gap = max(gap, after - before)
        span = self.results[-1][1] - self.results[0][0] if self.results else 0
        return dict(requests=len(self.results), **counts, gap_ms=round(gap * 1000),
                    seconds=round(span, 1), examples=examples)


def main(argv):
    port, ca_file, sep, *command = argv
    assert sep == "--" and command, __doc__
    with RequestLoop(port, ca_file) as loop:
        time.sleep(2)          # a baseline before the command
        t0 = time.time()
        done = subprocess.run(command)
        took = time.time() - t0
        time.sleep(3)          # ... and after it
    print(json.dumps(dict(loop.summary(), command_s=round(took, 1), rc=done.returncode)))
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
