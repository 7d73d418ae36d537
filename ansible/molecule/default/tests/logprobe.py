"""Personal data in the host's logs: requests that carry known values, from a known client address,
and every log our parts write searched for them (issue 28: private by default).

  Visit(tag)                       the values one round of requests carries (a key, an MD5 and a
                                   SHA-256 e-mail hash, a Referer, a User-Agent), distinct per tag
  visit(host, v, stopped=...)      the round on the host, from CLIENT to Nginx's HTTPS port: with the
                                   sidecar up, then (stopped=True) again while it is stopped (the
                                   fallback answers), started again and waited for; then the
                                   logs flushed and waited for (flush)
  send(host, v), send_stopped(host, v)  one round, with the sidecar up; while it is stopped
  logs(host)                       {source: text}: every file of LOG_DIR (rotated and compressed
                                   ones too) and the journal of the fox-avatar and nginx units
  found(logs, value)               the sources that hold value
  lines(host, name)                the number of lines of LOG_DIR/name (0 when there is none)
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import foxmol
from probes import SITE
from settle import settled

LOG_DIR = "/var/log/nginx/fox-avatar"
CLIENT = "127.0.0.23"    # a loopback address of its own: 127.0.0.1 is also the upstream's, in every line
NETWORK = "127.0.0.0"    # CLIENT truncated to its /24, what the anonymous log keeps
UNITS = ["fox-avatar", "nginx"]


@dataclass(frozen=True)
class Visit:
    tag: str

    @property
    def key(self) -> str:
        return f"fox-logtest-key-{self.tag}"

    @property
    def md5(self) -> str:
        return hashlib.md5(f"logtest-{self.tag}@example.org".encode()).hexdigest()

    @property
    def sha256(self) -> str:
        return hashlib.sha256(f"logtest-{self.tag}@example.org".encode()).hexdigest()

    @property
    def referer(self) -> str:
        return f"https://blog.logtest.example/post-{self.tag}"

    @property
    def user_agent(self) -> str:
        return f"LogTestAgent/{self.tag}"

    @property
    def paths(self) -> list[str]:
        # the key and the hashes where the service takes them, and a key in a path nothing serves
        return [f"/?u={self.key}", f"/avatar/{self.md5}?s=120", f"/avatar/{self.sha256}",
                f"/no/such/{self.key}"]

    def values(self) -> dict[str, str]:
        """What must not be in a default log: name -> value."""
        return {"key": self.key, "MD5 hash": self.md5, "SHA-256 hash": self.sha256,
                "Referer": self.referer, "User-Agent": self.user_agent, "client address": CLIENT}


# Runs on the host (python3 is there): one HTTP/1.1 GET per path over TLS to 127.0.0.1:443 from
# the client address, SNI and Host the site's name; prints the status lines.
_SEND = r"""
import json, socket, ssl, sys
paths, client, site, referer, agent = json.loads(sys.argv[1])
ctx = ssl._create_unverified_context()
for path in paths:
    with socket.create_connection(("127.0.0.1", 443), timeout=15, source_address=(client, 0)) as raw:
        with ctx.wrap_socket(raw, server_hostname=site) as s:
            s.sendall((f"GET {path} HTTP/1.1\r\nHost: {site}\r\nReferer: {referer}\r\n"
                       f"User-Agent: {agent}\r\nConnection: close\r\n\r\n").encode())
            data = b""
            while chunk := s.recv(65536):
                data += chunk
    print(path.split("?")[0][:24], data.split(b"\r\n", 1)[0].decode())
"""

_HEALTHY = r"""
import sys, time, urllib.request
end = time.monotonic() + 60
while True:
    try:
        urllib.request.urlopen("http://127.0.0.1:8080/healthz", timeout=2)
        break
    except OSError:
        if time.monotonic() > end:
            sys.exit("the sidecar did not answer /healthz within 60 s")
        time.sleep(0.3)
"""


def send(host: str, v: Visit) -> str:
    out = foxmol.host_exec(host, "python3", "-c", _SEND,
                           json.dumps([v.paths, CLIENT, SITE, v.referer, v.user_agent]))
    print(out)
    return out


def visit(host: str, v: Visit, stopped: bool = True) -> str:
    """The round with the sidecar up; then, stopped=True, while it is stopped (the fallback)."""
    out = send(host, v)
    if stopped:
        out += "\n(sidecar stopped)\n" + send_stopped(host, v)
    flush(host)
    return out


def flush(host: str) -> None:
    """Nginx buffers the access log (buffer=4k flush=1s): a reopen (what logrotate's postrotate
    does) writes the buffers out; then LOG_DIR is read until it stops changing (tools/settle.py)."""
    settled(lambda: foxmol.host_exec(host, "sh", "-c", f"stat -c '%n %s' {LOG_DIR}/* 2>/dev/null || true"),
            flush=lambda: foxmol.host_exec(host, "nginx", "-s", "reopen"), what=f"the files of {LOG_DIR}")


def send_stopped(host: str, v: Visit) -> str:
    """The round while the sidecar is stopped (the fallback answers); started again and waited for."""
    foxmol.host_exec(host, "systemctl", "stop", "fox-avatar")
    try:
        return send(host, v)
    finally:
        foxmol.host_exec(host, "systemctl", "start", "fox-avatar")
        foxmol.host_exec(host, "python3", "-c", _HEALTHY)


def logs(host: str) -> dict[str, str]:
    """Every file of LOG_DIR (zcat -f: rotated, compressed ones too), and the units' journal."""
    files = foxmol.host_exec(host, "sh", "-c", f"ls {LOG_DIR}").split()
    found = {f"{LOG_DIR}/{name}": foxmol.host_exec(host, "zcat", "-f", f"{LOG_DIR}/{name}")
             for name in files}
    for unit in UNITS:
        found[f"journalctl -u {unit}"] = foxmol.host_exec(
            host, "journalctl", "-u", unit, "--no-pager", "-o", "short")
    return found


def found(texts: dict[str, str], value: str) -> list[str]:
    return [source for source, text in texts.items() if value in text]


def lines(host: str, name: str) -> int:
    return int(foxmol.host_exec(host, "sh", "-c", f"cat {LOG_DIR}/{name} 2>/dev/null | wc -l"))
