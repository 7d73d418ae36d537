"""A forced renewal inside the host, as certbot.timer runs it (certbot.service's environment, the
CA bundle drop-in): the deploy hook has fox_avatar_tls's script install the new certificate, and
Nginx is reloaded by itself; the next converge (a proxy setting's run: foxmol.PROXY_ONLY) changes
nothing and keeps it."""
import subprocess

import pytest

import foxmol
from acme_tls import (BOTH_NAMES, HOST, LINEAGE, NAME, installed_is_lineage, issuer_of, serial_of, verify,
                      wait_serial_change)

RENEW = ("env $(systemctl show -P Environment certbot.service) "
         "certbot renew --force-renewal --no-random-sleep-on-renew")


@pytest.fixture(scope="module")
def renewal():
    before = {"serial": serial_of(NAME), "nginx": foxmol.nginx_pid(HOST)}
    res = subprocess.run(["docker", "exec", HOST, "sh", "-c", RENEW], capture_output=True,
                         text=True, check=False)
    log = res.stdout + res.stderr
    (foxmol.workdir("logs") / "certbot-renew.log").write_text(log)
    after = wait_serial_change(NAME, before["serial"])
    return {"rc": res.returncode, "log": log, "before": before, "after": after}


@pytest.fixture(scope="module")
def converge_after(renewal):
    served = serial_of(NAME)
    return served, foxmol.playbook("converge-after-renewal", extra_vars=BOTH_NAMES, env=foxmol.PROXY_ONLY)


def test_certbot_renew_force_renewal_succeeds(renewal):
    assert renewal["rc"] == 0, renewal["log"][-3000:]


def test_the_deploy_hook_ran(renewal):
    assert "fox-avatar deploy hook: installed" in renewal["log"], renewal["log"][-3000:]


def test_fox_avatar_tls_script_wrote_the_files_nginx_reads(renewal):
    assert (f"fox-avatar-install-certificate: installed the certificate from {LINEAGE}/fullchain.pem"
            f" at /etc/ssl/fox-avatar/fullchain.pem and reloaded Nginx") in renewal["log"], renewal["log"][-3000:]


def test_nginx_serves_the_renewed_certificate_without_a_manual_reload(renewal):
    assert renewal["before"]["serial"]
    assert renewal["after"] not in ("", renewal["before"]["serial"])


def test_renewed_certificate_is_pebbles_and_verifies_for_the_name(renewal):
    assert "Pebble Intermediate CA" in issuer_of(NAME)
    res = verify(NAME)
    assert res.returncode == 0, res.stderr


def test_files_nginx_reads_are_the_renewed_lineages(renewal):
    assert installed_is_lineage()


def test_nginx_was_reloaded_not_restarted(renewal):
    assert foxmol.nginx_pid(HOST) == renewal["before"]["nginx"]


def test_certbot_timer_still_enabled_and_active(renewal, host):
    timer = host.service("certbot.timer")
    assert timer.is_enabled and timer.is_running


def test_converge_after_a_renewal_changes_nothing(converge_after):
    assert converge_after[1].unchanged, converge_after[1]


def test_converge_after_a_renewal_keeps_the_renewed_certificate(converge_after):
    assert converge_after[0] and serial_of(NAME) == converge_after[0]
