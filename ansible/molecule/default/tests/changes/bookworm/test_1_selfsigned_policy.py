"""The self-signed certificate policy on the converged Debian 12 host (nginx/README.md "The self-signed certificate"): ECDSA P-256, valid 365 days, for
the site; one with 20 days left (same key and names) is made again at the next converge, and Nginx
is reloaded and serves it. Runs first of the changes: files mode (test_2) replaces the certificate."""
import datetime
from types import SimpleNamespace

import foxmol
import probes
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from probes import SITE

CERT, KEY = "/etc/ssl/fox-avatar/fullchain.pem", "/etc/ssl/fox-avatar/privkey.pem"


@pytest.fixture(scope="module")
def generated(host_name):
    return probes.certificate(foxmol.host_exec(host_name, "cat", CERT))


def test_selfsigned_key_is_ecdsa_p256(generated):
    key = generated.public_key()
    assert isinstance(key, ec.EllipticCurvePublicKey) and key.curve.name == "secp256r1", key


def test_selfsigned_certificate_is_valid_365_days(generated):
    assert probes.lifetime_days(generated) == 365


def test_selfsigned_certificate_is_for_the_site(generated):
    names = generated.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert SITE in names.get_values_for_type(x509.DNSName)


def short_lived(key_pem: str, days: int) -> x509.Certificate:
    """A self-signed certificate for the site with the host's own key, valid for DAYS from now."""
    key = serialization.load_pem_private_key(key_pem.encode(), password=None)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, SITE)])
    now = datetime.datetime.now(datetime.timezone.utc)
    return (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=days))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(SITE)]), critical=False)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, key_cert_sign=False, crl_sign=False,
                                         encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(key, hashes.SHA256()))


@pytest.fixture(scope="module")
def renewal(host_name, generated, proxy_only):
    """A certificate with 20 days left put in place (and served), then a converge."""
    short = short_lived(foxmol.host_exec(host_name, "cat", KEY), 20)
    foxmol.docker("exec", "-i", host_name, "sh", "-c", f"cat >{CERT}",
                  input=short.public_bytes(serialization.Encoding.PEM).decode())
    foxmol.host_exec(host_name, "systemctl", "reload", "nginx")
    run = foxmol.playbook("selfsigned-renewal", env=proxy_only)
    renewed = probes.certificate(foxmol.host_exec(host_name, "cat", CERT))
    return SimpleNamespace(run=run, short=short, renewed=renewed)


def test_converge_after_a_certificate_with_20_days_left_succeeds(renewal):
    assert renewal.run.clean, renewal.run.excerpt()


def test_certificate_with_20_days_left_is_made_again_valid_365_days(renewal):
    assert probes.fingerprint(renewal.renewed) != probes.fingerprint(renewal.short)
    assert probes.lifetime_days(renewal.renewed) == 365


def test_nginx_is_reloaded_for_the_new_certificate(renewal):
    assert renewal.run.handler_changed("fox_avatar.deploy.fox_avatar_nginx : Reload Nginx"), renewal.run.excerpt()


def test_nginx_serves_the_new_certificate(renewal, addr):
    assert probes.fingerprint(probes.served_certificate(addr)) == probes.fingerprint(renewal.renewed)
