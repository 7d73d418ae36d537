"""A server left alone renews its self-signed certificate (issue 45), on the converged Debian 12
host: the daily timer fox-avatar-certificate-renewal.timer is enabled and waiting; with a day left
on the certificate, its service signs it again (valid 365 days, the same key, names and extensions)
and reloads Nginx, which then serves it: the master process stays, and new visitors asking all the
while are all answered. The playbook's next run finds that certificate current (changed=0), and the
service does nothing while more than SELFSIGNED_RENEW_DAYS remain. Runs after test_1_selfsigned_policy
(whose converge leaves the playbook's certificate) and before files mode (test_2)."""
import datetime
import socket
import ssl
import threading
import time
from types import SimpleNamespace

import foxmol
import probes
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from probes import SITE

CERT, KEY = "/etc/ssl/fox-avatar/fullchain.pem", "/etc/ssl/fox-avatar/privkey.pem"
UNIT = "fox-avatar-certificate-renewal"


def with_days_left(cert: x509.Certificate, key_pem: str, days: int) -> x509.Certificate:
    """The same certificate (subject, key, extensions) signed again by its key, valid DAYS from now."""
    key = serialization.load_pem_private_key(key_pem.encode(), password=None)
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(cert.subject).issuer_name(cert.subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(days=364 - days))
               .not_valid_after(now + datetime.timedelta(days=days)))
    for ext in cert.extensions:
        builder = builder.add_extension(ext.value, critical=ext.critical)
    return builder.sign(key, hashes.SHA256())


def served(addr: str) -> x509.Certificate:
    return x509.load_der_x509_certificate(probes.served_certificate(addr))


def wait_until(what: str, check, seconds: float = 30):
    deadline = time.monotonic() + seconds
    while not (got := check()):
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        time.sleep(0.2)
    return got


class Visitors(threading.Thread):
    """New visitors one after another until stopped: each a new TLS connection (SNI: the site)
    asking GET / once; .results holds each one's status line or error."""

    def __init__(self, addr: str):
        super().__init__(daemon=True)
        self.addr, self.results, self.stop = addr, [], threading.Event()
        self.ctx = ssl.create_default_context()
        self.ctx.check_hostname, self.ctx.verify_mode = False, ssl.CERT_NONE

    def run(self):
        while not self.stop.is_set():
            try:
                with socket.create_connection((self.addr, 443), timeout=10) as sock, \
                        self.ctx.wrap_socket(sock, server_hostname=SITE) as tls:
                    tls.sendall(f"GET / HTTP/1.1\r\nHost: {SITE}\r\nConnection: close\r\n\r\n".encode())
                    self.results.append(tls.recv(64).split(b"\r\n", 1)[0].decode(errors="replace"))
            except OSError as err:
                self.results.append(f"error: {err!r}")

    def answered(self) -> int:
        return sum(1 for r in self.results if r.startswith("HTTP/1.1 302"))


@pytest.fixture(scope="module")
def renewal(host_name, addr, proxy_only):
    """The playbook's certificate put back with one day left (and served), then the timer's service
    started by hand while new visitors keep asking; then a playbook run."""
    made = probes.certificate(foxmol.host_exec(host_name, "cat", CERT))
    short = with_days_left(made, foxmol.host_exec(host_name, "cat", KEY), 1)
    foxmol.docker("exec", "-i", host_name, "sh", "-c", f"cat >{CERT}",
                  input=short.public_bytes(serialization.Encoding.PEM).decode())
    foxmol.host_exec(host_name, "systemctl", "reload", "nginx")
    wait_until("Nginx serves the certificate with a day left",
               lambda: probes.fingerprint(served(addr)) == probes.fingerprint(short))
    master = foxmol.nginx_pid(host_name)
    visitors = Visitors(addr)
    visitors.start()
    try:
        wait_until("20 visitors answered before the renewal", lambda: visitors.answered() >= 20)
        before = len(visitors.results)
        foxmol.host_exec(host_name, "systemctl", "start", f"{UNIT}.service")
        renewed = wait_until("Nginx serves another certificate after the service ran",
                             lambda: (c := served(addr)) and probes.fingerprint(c) != probes.fingerprint(short) and c)
        after = len(visitors.results)
        wait_until("20 visitors answered after the renewal", lambda: len(visitors.results) >= after + 20)
    finally:
        visitors.stop.set()
        visitors.join(30)
    return SimpleNamespace(made=made, short=short, renewed=renewed, master=master,
                           master_after=foxmol.nginx_pid(host_name), visitors=visitors,
                           before=before, journal=journal(host_name),
                           on_host=probes.certificate(foxmol.host_exec(host_name, "cat", CERT)),
                           run=foxmol.playbook("selfsigned-after-timer", env=proxy_only))


def test_the_timer_is_enabled_and_waits_for_its_daily_run(host_name):
    show = foxmol.host_exec(host_name, "systemctl", "show", f"{UNIT}.timer", "-p", "UnitFileState",
                            "-p", "ActiveState", "-p", "TimersCalendar", "-p", "Unit")
    assert "UnitFileState=enabled" in show and "ActiveState=active" in show, show
    assert "OnCalendar=*-*-* 00:00:00" in show and f"Unit={UNIT}.service" in show, show


def test_the_service_renews_the_certificate_with_a_day_left(renewal):
    assert renewal.on_host.not_valid_after_utc > renewal.short.not_valid_after_utc, renewal.journal
    assert probes.fingerprint(renewal.on_host) == probes.fingerprint(renewal.renewed), renewal.journal
    assert probes.lifetime_days(renewal.renewed) == 365
    assert "signed again for 365 days" in renewal.journal and "reloaded Nginx" in renewal.journal, renewal.journal


def test_the_renewed_certificate_keeps_the_key_names_and_extensions(renewal):
    der = serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    assert renewal.renewed.public_key().public_bytes(*der) == renewal.made.public_key().public_bytes(*der)
    assert renewal.renewed.subject == renewal.made.subject == renewal.renewed.issuer
    assert list(renewal.renewed.extensions) == list(renewal.made.extensions)
    assert renewal.renewed.serial_number != renewal.short.serial_number


def test_nginx_is_reloaded_not_restarted(renewal):
    assert renewal.master_after == renewal.master


def test_every_new_visitor_is_answered_during_the_renewal(renewal):
    results = renewal.visitors.results
    bad = [r for r in results if not r.startswith("HTTP/1.1 302")]
    print(f"{len(results)} visitors, {renewal.before} before the service started")
    assert not bad and renewal.before >= 20 and len(results) >= renewal.before + 20, bad[:5]


def test_the_playbooks_next_run_keeps_the_renewed_certificate(renewal, host_name):
    assert renewal.run.unchanged, renewal.run.excerpt()
    now = probes.certificate(foxmol.host_exec(host_name, "cat", CERT))
    assert probes.fingerprint(now) == probes.fingerprint(renewal.renewed)


def journal(host_name: str) -> str:
    return foxmol.host_exec(host_name, "journalctl", "-u", f"{UNIT}.service", "--no-pager", "-o", "cat")


def test_with_more_days_left_the_service_does_nothing(renewal, host_name):
    said = journal(host_name).count("nothing to do")
    foxmol.host_exec(host_name, "systemctl", "start", f"{UNIT}.service")
    now = probes.certificate(foxmol.host_exec(host_name, "cat", CERT))
    assert probes.fingerprint(now) == probes.fingerprint(renewal.renewed)
    assert journal(host_name).count("nothing to do") == said + 1, journal(host_name)[-600:]
