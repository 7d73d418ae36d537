"""One more name (www.avatar.test): the converge re-issues the same lineage for both names,
Nginx serves it, reloaded and not restarted."""
import pytest

import foxmol
from acme_tls import (BOTH_NAMES, HOST, NAME, NAME2, lineage_certificates, sans_of, serial_of,
                      verify)


@pytest.fixture(scope="module")
def before():
    return {"serial": serial_of(NAME), "nginx": foxmol.nginx_pid(HOST)}


@pytest.fixture(scope="module")
def run(before):
    # a proxy setting: the run skips the Java service's play, as an admin's would (foxmol.PROXY_ONLY)
    return foxmol.playbook("converge-more-names", "--diff", extra_vars=BOTH_NAMES, env=foxmol.PROXY_ONLY)


def test_converge_with_a_new_name_succeeds(run):
    assert run.clean, run


def test_the_new_name_reissued_the_certificate(run):
    assert any(r["changed"] > 0 for r in run.recap.values()), run
    assert f"Requested a certificate for {NAME}, {NAME2}: names" in run.text, run


def test_nginx_serves_a_new_certificate(run, before):
    assert before["serial"]
    assert serial_of(NAME2) not in ("", before["serial"])


def test_certificate_names_both(run):
    assert sans_of(NAME2) == {f"DNS:{NAME}", f"DNS:{NAME2}"}


def test_served_chain_verifies_against_pebbles_root_for_the_new_name(run):
    res = verify(NAME2)
    assert res.returncode == 0, res.stderr


def test_still_one_lineage_now_two_certificates_in_it(run):
    assert foxmol.host_exec(HOST, "ls", "/etc/letsencrypt/live").split() == ["README", "fox-avatar"]
    assert lineage_certificates() == ["cert1.pem", "cert2.pem"]


def test_nginx_was_reloaded_not_restarted(run, before):
    assert run.handler_changed("fox_avatar.deploy.fox_avatar_nginx : Reload Nginx"), run
    assert foxmol.nginx_pid(HOST) == before["nginx"]
