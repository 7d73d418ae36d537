"""files mode with a provided certificate on the converged Debian 12 host:
Nginx serves exactly that certificate, HTTPS verifies against its CA, a second converge
changes nothing, and the self-signed certificate's renewal (its timer, units and script) is
gone. The host stays in files mode for the changes after this one (conftest files_mode)."""
import foxmol
import probes
import pytest


@pytest.fixture(scope="module")
def files_converge(files_mode, proxy_only):
    return foxmol.playbook("files-mode", "--diff", env=proxy_only, extra_vars=files_mode["vars"])


def test_files_mode_converge_succeeds(files_converge):
    assert files_converge.clean, files_converge.excerpt()


def test_nginx_serves_exactly_the_provided_certificate(files_converge, files_mode, addr):
    provided = probes.certificate(files_mode["cert"].read_bytes())
    assert probes.fingerprint(probes.served_certificate(addr)) == probes.fingerprint(provided)


def test_https_verifies_against_the_provided_ca(files_converge, files_mode, addr):
    assert probes.https_code(addr, files_mode["ca"], "/") == "302"


def test_files_mode_second_converge_reports_changed_0(files_converge, files_mode, proxy_only):
    run = foxmol.playbook("files-mode-again", env=proxy_only, extra_vars=files_mode["vars"])
    assert run.unchanged, run.excerpt()


def test_files_mode_has_no_self_signed_renewal(files_converge, host_name):
    unit = "/etc/systemd/system/fox-avatar-certificate-renewal"
    gone = ["/usr/local/sbin/fox-avatar-renew-certificate", f"{unit}.timer", f"{unit}.service"]
    assert [p for p in gone if probes.host_rc(host_name, "test", "-e", p) == 0] == []
    assert probes.host_rc(host_name, "systemctl", "is-active", "--quiet", "fox-avatar-certificate-renewal.timer") != 0
