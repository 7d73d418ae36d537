"""What a visitor of the owner's other sites gets (prepare.yml: Debian's default site, blog.test on
80 and 443 with its own certificate): for blog.test, a name no site claims, and a bare address, on
80 and 443, the status, Location, Content-Type and body, and on 443 the certificate served for that
name and the protocol ALPN picks."""
from __future__ import annotations

import hashlib
import http.client
import socket
import ssl

NAMES = ["blog.test", "unknown-name.test", ""]


def _tls(addr: str, name: str, alpn: list[str]) -> ssl.SSLSocket:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.set_alpn_protocols(alpn)
    return ctx.wrap_socket(socket.create_connection((addr, 443), timeout=15), server_hostname=name or None)


def answer(addr: str, name: str, port: int) -> dict:
    conn = http.client.HTTPConnection(addr, port, timeout=15)
    out: dict = {}
    if port == 443:
        with _tls(addr, name, ["h2", "http/1.1"]) as probe:
            out["certificate"] = hashlib.sha256(probe.getpeercert(binary_form=True)).hexdigest()
            out["alpn"] = probe.selected_alpn_protocol()
        conn.sock = _tls(addr, name, ["http/1.1"])
    conn.request("GET", "/", headers={"Host": name or addr})
    res = conn.getresponse()
    body = res.read()
    conn.close()
    out.update(status=res.status, location=res.getheader("Location"), content_type=res.getheader("Content-Type"),
               body=hashlib.sha256(body).hexdigest())
    return out


def snapshot(addr: str) -> dict:
    return {f"{name or '(an address)'} :{port}": answer(addr, name, port) for name in NAMES for port in (80, 443)}


def differences(before: dict, now: dict) -> str:
    return "\n".join(f"{key}: before {before.get(key)}, now {now.get(key)}"
                     for key in sorted(set(before) | set(now)) if before.get(key) != now.get(key))
