"""The owner's other sites on the Debian 12 host (prepare.yml: Debian's Nginx and default site, the
owner's blog.test with its own certificate on 80 and 443, no default_server on 443): what a visitor
of each gets, compared before the first converge, after it and after the idempotence run (issue 44).

  NAMES                    blog.test, a name no site claims, and none (an IP address: no SNI, the
                           address as Host)
  snapshot(addr)           {"<name> :80" | "<name> :443": answer}, each answer a dict: the status, the
                           Location and Content-Type, the body's SHA-256 and first words; on 443 also
                           the certificate served for that SNI (its SHA-256 and subject) and the
                           protocol ALPN picks from h2 and http/1.1
  save(snap) / load()      in the ephemeral directory (the stages are separate pytest runs)
  differences(before, now) one line per answer that changed, "" when none did
"""
from __future__ import annotations

import hashlib
import http.client
import json
import socket
import ssl

import foxmol
from cryptography import x509

NAMES = ["blog.test", "unknown-name.test", ""]


def _tls(addr: str, name: str, alpn: list[str]) -> ssl.SSLSocket:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.set_alpn_protocols(alpn)
    sock = socket.create_connection((addr, 443), timeout=15)
    return ctx.wrap_socket(sock, server_hostname=name or None)


def answer(addr: str, name: str, port: int) -> dict:
    """What GET / with Host NAME (the address when none) gets on PORT (443: TLS with SNI NAME)."""
    conn = http.client.HTTPConnection(addr, port, timeout=15)
    out: dict = {}
    if port == 443:
        with _tls(addr, name, ["h2", "http/1.1"]) as probe:
            der = probe.getpeercert(binary_form=True)
            out["alpn"] = probe.selected_alpn_protocol()
        cert = x509.load_der_x509_certificate(der)
        out["certificate"] = hashlib.sha256(der).hexdigest()
        out["subject"] = cert.subject.rfc4514_string()
        conn.sock = _tls(addr, name, ["http/1.1"])
    conn.request("GET", "/", headers={"Host": name or addr})
    res = conn.getresponse()
    body = res.read()
    conn.close()
    out.update(status=res.status, location=res.getheader("Location"),
               content_type=res.getheader("Content-Type"), body=hashlib.sha256(body).hexdigest(),
               words=body.decode(errors="replace").split()[:8])
    return out


def snapshot(addr: str) -> dict:
    return {f"{name or '(an address)'} :{port}": answer(addr, name, port) for name in NAMES for port in (80, 443)}


def _file():
    return foxmol.workdir("owner") / "before.json"


def save(snap: dict) -> None:
    _file().write_text(json.dumps(snap, indent=1, sort_keys=True))


def load() -> dict:
    assert _file().is_file(), f"no {_file()}: tests/fresh/bookworm takes it before the first converge"
    return json.loads(_file().read_text())


def differences(before: dict, now: dict) -> str:
    return "\n".join(f"{key}: before {before.get(key)}, now {now.get(key)}"
                     for key in sorted(set(before) | set(now)) if before.get(key) != now.get(key))
