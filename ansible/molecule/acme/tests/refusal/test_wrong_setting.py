"""A wrong setting (no contact email): site.yml's pre-flight play refuses it with one line
naming the setting and the host, before anything changes."""
import re

import pytest

import foxmol
from acme_tls import BOTH_NAMES, HOST


@pytest.fixture(scope="module")
def run():
    return foxmol.playbook("converge-no-email", extra_vars={**BOTH_NAMES, "fox_avatar_acme_email": ""})


def test_no_contact_email_fails_the_converge(run):
    assert not run.clean, run


def test_the_error_is_one_line_naming_fox_avatar_acme_email(run):
    lines = [line for line in run.text.splitlines() if "fox_avatar_acme_email (" in line]
    assert any(re.search(rf"fox_avatar_acme_email \({re.escape(HOST)}\): '' is not an email address", line)
               for line in lines), run


def test_nothing_changed(run):
    assert run.recap and all(r["changed"] == 0 for r in run.recap.values()), run
