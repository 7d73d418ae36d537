"""The monitoring files as the tools that read them see them: the alert rules through Debian's
promtool (check, and their unit tests, which a careless edit of a rule must fail), the blackbox
modules through blackbox_exporter --config.check, the mtail program compiled by mtail."""
import shutil
import subprocess

import pytest

from monitoring.conftest import BLACKBOX, BLACKBOX_CONFIG, MTAIL, MTAIL_PROGS, RULES, RULES_TESTS, need


def run(*args):
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def test_the_rules_pass_promtool_and_their_unit_tests(promtool):
    for args in (("check", "rules", RULES), ("test", "rules", RULES_TESTS)):
        r = run(promtool, *map(str, args))
        assert r.returncode == 0, r.stdout + r.stderr


# A rule changed the way a careless edit would: its unit tests must notice.
BREAKS = [
    ("FoxAvatarSidecarDown", ' or absent(up{job="fox-avatar-app"})', ""),
    ("FoxAvatarFallbackAnswering", "[5m])) > 0", "[5m])) > 1"),
    ("FoxAvatarSidecarErrors", "> 0.01", "> 0.1"),
    ("FoxAvatarLatencyHigh", ',route!="health"', ""),
    ("FoxAvatarCertificateExpiresSoon", "< 14 * 86400", "< 7 * 86400"),
    ("FoxAvatarProbeFailing", "probe_success{job=\"fox-avatar-probe\"} == 0", "probe_success == 0 unless probe_success"),
    ("FoxAvatarExporterDown", ' or nginx_up{job="fox-avatar-nginx"} == 0', ""),
    ("FoxAvatarConnectionsRefused", "[10m])) >= 1", "[10m])) >= 10"),
]


@pytest.mark.parametrize("alert,old,new", BREAKS, ids=[b[0] for b in BREAKS])
def test_a_broken_rule_fails_its_unit_tests(promtool, tmp_path, alert, old, new):
    rules = RULES.read_text()
    assert rules.count(old) == 1, f"{old!r} is not once in the rules any more: update this test"
    (tmp_path / RULES.name).write_text(rules.replace(old, new))
    shutil.copy(RULES_TESTS, tmp_path)
    r = run(promtool, "test", "rules", str(tmp_path / RULES_TESTS.name))
    assert r.returncode != 0 and f"alertname: {alert}," in r.stdout + r.stderr, r.stdout + r.stderr


def test_the_blackbox_modules_pass_the_exporters_check_which_reads_every_field(tmp_path):
    need(BLACKBOX)
    assert run(BLACKBOX, "--config.check", f"--config.file={BLACKBOX_CONFIG}").returncode == 0
    bad = tmp_path / "blackbox.yml"
    bad.write_text(BLACKBOX_CONFIG.read_text().replace("follow_redirects: false", "follow_redirect: false"))
    assert run(BLACKBOX, "--config.check", f"--config.file={bad}").returncode != 0


def test_the_mtail_program_compiles(tmp_path):
    need(MTAIL)
    r = run(MTAIL, "-compile_only", "-progs", str(MTAIL_PROGS), "-logtostderr", "-port", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    (tmp_path / "broken.mtail").write_text((MTAIL_PROGS / "fox-avatar.mtail").read_text().replace("++", "+"))
    assert run(MTAIL, "-compile_only", "-progs", str(tmp_path), "-logtostderr", "-port", "0").returncode != 0
