"""After converge and idempotence (Molecule's steps: the first converge succeeded on the fresh
host, the second reported changed=0): the certificate Pebble issued for the configured name is
served, verified, issued once, and set up for renewal."""
import re

import foxmol
from acme_tls import (HOST, NAME, ARCHIVE, installed_is_lineage, issuer_of, lineage_certificates,
                      lineage_serial, sans_of, serial_of, verify)


def test_nginx_serves_a_certificate_issued_by_pebble():
    assert "Pebble Intermediate CA" in issuer_of(NAME)


def test_served_chain_verifies_against_pebbles_root_for_the_name():
    res = verify(NAME)
    assert res.returncode == 0, res.stderr


def test_certificate_names_exactly_the_configured_name():
    assert sans_of(NAME) == {f"DNS:{NAME}"}


def test_files_nginx_reads_are_the_lineages():
    assert installed_is_lineage()


def test_second_converge_issued_nothing_one_certificate_in_the_lineage():
    assert lineage_certificates() == ["cert1.pem"]


def test_served_serial_is_the_first_and_only_issued_one():
    served = serial_of(NAME)
    assert served and served == lineage_serial()


def test_nginx_served_the_placeholder_before_the_certificate_was_issued():
    """Nginx cannot start without a certificate at the paths it reads: running (and answering
    Pebble's http-01 challenge) before the first certificate existed means the self-signed
    placeholder came first."""
    started = foxmol.host_exec(
        HOST, "sh", "-c", "journalctl -u nginx.service -o short-unix --no-pager | grep -m1 'Started '")
    assert started, "no start of nginx.service in the journal"
    issued = foxmol.host_exec(HOST, "stat", "-c", "%Y", f"{ARCHIVE}/cert1.pem")
    assert float(started.split()[0]) < float(issued), (started, issued)
    challenges = foxmol.host_exec(
        HOST, "sh", "-c", "grep -h 'GET /.well-known/acme-challenge/' /var/log/nginx/fox-avatar/access.log || true")
    # the default (anonymous) access log keeps the route and the status; no token, no User-Agent
    assert any('" 200 ' in line for line in challenges.splitlines()), \
        challenges or "no http-01 challenge in Nginx's access log"


def test_certbot_timer_enabled_and_active(host):
    timer = host.service("certbot.timer")
    assert timer.is_enabled and timer.is_running


def test_certbot_service_renews_with_the_configured_ca_bundle(host):
    env = host.check_output("systemctl show -P Environment certbot.service")
    assert "REQUESTS_CA_BUNDLE=/etc/letsencrypt/fox-avatar-ca-bundle.pem" in env


def test_no_ocsp_stapling_in_the_served_configuration(host):
    config = host.check_output("nginx -T 2>/dev/null")
    assert not re.search(r"(?m)^\s*ssl_stapling\s+on", config)


def test_renewals_are_installed_by_fox_avatar_tls_script_not_by_the_hook(host):
    """The certificate and key are fox_avatar_tls's files: certbot's deploy hook (fox_avatar_acme's)
    names the TLS role's install script and no path of the TLS directory."""
    script = host.file("/usr/local/sbin/fox-avatar-install-certificate")
    assert script.is_file and script.user == "root" and script.mode == 0o755
    assert "/etc/ssl/fox-avatar/fullchain.pem" in script.content_string
    hook = host.file("/etc/letsencrypt/renewal-hooks/deploy/fox-avatar").content_string
    assert "/usr/local/sbin/fox-avatar-install-certificate" in hook
    assert "/etc/ssl/fox-avatar" not in hook, hook
