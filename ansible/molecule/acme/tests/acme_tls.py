"""The acme scenario's names, and what its tests read from the host and from outside it: the
certificate Nginx serves for a name (SNI), checked like a client does, and the lineage certbot keeps.
Names follow molecule.yml (FOX_MOLECULE_PREFIX); Pebble's root is the one prepare.yml fetched."""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import foxmol

PREFIX = os.environ.get("FOX_MOLECULE_PREFIX") or "foxmol"
HOST = f"{PREFIX}-acme-host"
NETWORK = f"{PREFIX}-acme-net"
NAME = "avatar.test"
NAME2 = "www.avatar.test"
BOTH_NAMES = {"fox_avatar_tls_domains": [NAME, NAME2]}
LINEAGE = "/etc/letsencrypt/live/fox-avatar"
ARCHIVE = "/etc/letsencrypt/archive/fox-avatar"


def pebble_root() -> Path:
    """Pebble's root (it makes a new one at every start; prepare.yml fetched it)."""
    path = Path(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "pebble", "pebble-root.pem")
    assert "BEGIN CERTIFICATE" in path.read_text(), f"no Pebble root in {path} (prepare.yml)"
    return path


def host_addr() -> str:
    return foxmol.host_ip(HOST, NETWORK)


def served(name: str) -> str:
    """PEM of the leaf certificate Nginx serves for NAME (SNI), from the control machine."""
    hello = subprocess.run(["openssl", "s_client", "-connect", f"{host_addr()}:443", "-servername", name],
                           input="", capture_output=True, text=True, check=False).stdout
    return subprocess.run(["openssl", "x509"], input=hello, capture_output=True, text=True,
                          check=False).stdout


def x509(pem: str, *args: str) -> str:
    """`openssl x509 -noout ARGS` of a PEM certificate; its output."""
    return subprocess.run(["openssl", "x509", "-noout", *args], input=pem, capture_output=True,
                          text=True, check=False).stdout.strip()


def serial_of(name: str) -> str:
    return x509(served(name), "-serial").partition("=")[2]


def sans_of(name: str) -> set[str]:
    """The subjectAltName entries of the served certificate, e.g. {'DNS:avatar.test'}."""
    ext = x509(served(name), "-ext", "subjectAltName").splitlines()[1:]
    return {part.strip() for line in ext for part in line.split(",") if part.strip()}


def issuer_of(name: str) -> str:
    return x509(served(name), "-issuer")


def verify(name: str) -> subprocess.CompletedProcess:
    """GET https://NAME/ at the host, the chain verified against Pebble's root for NAME (curl:
    chain and host name); returncode 0 when it verifies."""
    return subprocess.run(["curl", "-sS", "-o", "/dev/null", "--cacert", str(pebble_root()),
                           "--resolve", f"{name}:443:{host_addr()}", f"https://{name}/"],
                          capture_output=True, text=True, check=False)


def lineage_certificates() -> list[str]:
    """The certificates in the lineage's archive (cert1.pem, cert2.pem, ...)."""
    out = foxmol.host_exec(HOST, "sh", "-c", f"ls {ARCHIVE}/ | grep '^cert[0-9]*\\.pem$' || true")
    return sorted(out.split())


def lineage_serial() -> str:
    """The serial of the lineage's current certificate (live/cert.pem), read on the host."""
    return x509(foxmol.host_exec(HOST, "cat", f"{LINEAGE}/cert.pem"), "-serial").partition("=")[2]


def installed_is_lineage() -> bool:
    """The paths Nginx reads hold the lineage's current chain and key."""
    return foxmol.docker("exec", HOST, "sh", "-c",
                         f"cmp -s {LINEAGE}/fullchain.pem /etc/ssl/fox-avatar/fullchain.pem && "
                         f"cmp -s {LINEAGE}/privkey.pem /etc/ssl/fox-avatar/privkey.pem && echo same",
                         check=False) == "same"


def wait_serial_change(name: str, old: str, seconds: float = 15) -> str:
    """Up to SECONDS for Nginx to serve another serial than OLD for NAME; the serial served last."""
    end, serial = time.monotonic() + seconds, ""
    while time.monotonic() < end:
        serial = serial_of(name)
        if serial and serial != old:
            break
        time.sleep(0.5)
    return serial
