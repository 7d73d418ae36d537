"""What this scenario's tests look at, from outside the host (HTTP/3, Alt-Svc, the TLS group, the
certificate served):

  h3_get(network, ca, addr)        "<status> <HTTP version>" of GET / with Debian 13's curl --http3-only
  alt_svc(addr, ca)                the Alt-Svc header of GET / over HTTPS (TCP), or None
  https_code(addr, ca, path)       the status of one HTTPS GET (TCP), verified against ca
  header(addr, ca, path, name)     one header of that answer, or None
  tls_group(network, ca, addr, groups)  the TLS 1.3 group the host picks from Debian 13's offer
  classic_group(addr)              the group this machine's OpenSSL (Debian 12: 3.0) gets
  host_rc(host_name, *cmd)         a command's exit code on the host
  udp_443(host)                    the host's UDP listeners on port 443 (testinfra host)
  served_certificate(addr)         the certificate the host serves for the site (DER)
  certificate(pem) / fingerprint(der_or_cert)  cryptography's view; SHA-256 hex
"""
from __future__ import annotations

import re
import socket
import ssl
import subprocess
from pathlib import Path

import foxmol
from cryptography import x509
from cryptography.hazmat.primitives import hashes

SITE = "avatar.test"   # fox_avatar_tls_domains in molecule.yml
# Debian 13's Nginx with HTTP/3 on: a QUIC listener on UDP 443 for every address (IPv4 and IPv6)
QUIC_LISTENERS = ["udp://0.0.0.0:443", "udp://:::443"]
GROUP = re.compile(r"^(?:Negotiated TLS1\.3 group|Peer Temp Key): ([^,\s]+)", re.M)


def h3_get(network: str, ca: Path, addr: str) -> str:
    """'302 3' when the host answers GET / over HTTP/3 (curl --http3-only, Debian 13's curl)."""
    out = foxmol.trixie_client(
        network, ca, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{http_version}",
        "--http3-only", "--max-time", "10", "--cacert", "/ca.pem", "--resolve", f"{SITE}:443:{addr}",
        f"https://{SITE}/")
    return (out.stdout + out.stderr).strip()


def alt_svc(addr: str, ca: Path) -> str | None:
    return header(addr, ca, "/", "Alt-Svc")


def https_code(addr: str, ca: Path, path: str = "/") -> str:
    return foxmol.https(addr, SITE, path, ca)[0]


def header(addr: str, ca: Path, path: str, name: str) -> str | None:
    """One response header of GET PATH over HTTPS (TCP), or None."""
    code, head = foxmol.https(addr, SITE, path, ca)
    assert head, f"GET {path} over HTTPS: no answer ({code})"
    found = [line.split(":", 1)[1].strip() for line in head.splitlines()
             if line.lower().startswith(name.lower() + ":")]
    return found[0] if found else None


def tls_group(network: str, ca: Path, addr: str, groups: str) -> str:
    """The group the host picks when Debian 13's openssl (3.5) offers groups (e.g.
    'X25519MLKEM768:X25519'); '' when no handshake."""
    out = foxmol.trixie_client(
        network, ca, "sh", "-c",
        'openssl s_client -connect "$1:443" -servername "$2" -groups "$3" -CAfile /ca.pem </dev/null 2>&1',
        "sh", addr, SITE, groups)
    found = GROUP.findall(out.stdout)
    return found[0] if found else ""


def classic_group(addr: str) -> str:
    """The group this machine's own OpenSSL (Debian 12's 3.0: no ML-KEM) negotiates."""
    out = subprocess.run(["openssl", "s_client", "-connect", f"{addr}:443", "-servername", SITE],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30,
                         check=False)
    found = re.findall(r"^Server Temp Key: ([^,\s]+)", out.stdout, re.M)
    return found[0] if found else ""


def openssl_version() -> str:
    return subprocess.run(["openssl", "version"], capture_output=True, text=True,
                          check=False).stdout.split()[1]


def host_rc(host_name: str, *cmd: str) -> int:
    """The exit code of a command on the host (docker exec)."""
    return subprocess.run(["docker", "exec", host_name, *cmd], capture_output=True,
                          check=False).returncode


def udp_443(host) -> list[str]:
    """The host's UDP listeners on 443, one entry per address (testinfra's host)."""
    return sorted({s for s in host.socket.get_listening_sockets()
                   if s.startswith("udp://") and s.endswith(":443")})


def served_certificate(addr: str) -> bytes:
    """The certificate the host presents for the site (SNI), unverified: DER."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    with socket.create_connection((addr, 443), timeout=15) as sock, \
            ctx.wrap_socket(sock, server_hostname=SITE) as tls:
        return tls.getpeercert(binary_form=True)


def certificate(pem: str | bytes) -> x509.Certificate:
    return x509.load_pem_x509_certificate(pem.encode() if isinstance(pem, str) else pem)


def fingerprint(cert: bytes | x509.Certificate) -> str:
    if isinstance(cert, bytes):
        cert = x509.load_der_x509_certificate(cert)
    return cert.fingerprint(hashes.SHA256()).hex()


def lifetime_days(cert: x509.Certificate) -> int:
    return (cert.not_valid_after_utc - cert.not_valid_before_utc).days


# What a real run leaves on the host (tests/fresh: none of it on a fresh host, nor after check mode).
OUR_PACKAGES = ["nginx", "default-jre-headless", "prometheus", "prometheus-nginx-exporter", "mtail",
                "prometheus-blackbox-exporter"]
OUR_PATHS = ["/etc/systemd/system/fox-avatar.service", "/etc/ssl/fox-avatar", "/etc/nginx/fox-avatar",
             "/etc/nginx/fox-avatar-releases", "/opt/fox-avatar", "/etc/logrotate.d/fox-avatar",
             "/var/log/nginx/fox-avatar", "/etc/default/prometheus-nginx-exporter", "/etc/mtail",
             "/etc/prometheus", "/etc/systemd/system/fox-avatar-certificate-renewal.timer",
             "/usr/local/sbin/fox-avatar-renew-certificate"]
