"""fox_avatar_nginx_access_log on the Debian 13 host (after HTTP/3 off and on: every other setting
its default): `full` logs the key, the hashes, the Referer, the User-Agent and the full client
address (the access and fallback logs); `off` writes no access line and still no personal data;
back to the default, a new round of values is nowhere in our logs or the journal again. Each mode
is a release, Nginx reloaded. (On Debian 13 rather than 12 to even out the two runs' length: each
converge here costs about 40 s.)"""
from types import SimpleNamespace

import foxmol
import logprobe
import pytest
from logprobe import LOG_DIR, NETWORK


def converge(name, mode=None):
    return foxmol.playbook(name, extra_vars={"fox_avatar_nginx_access_log": mode} if mode else {})


@pytest.fixture(scope="module")
def full(host_name):
    run = converge("access-log-full", "full")
    v = logprobe.Visit("full-8d41b0")
    answers = logprobe.visit(host_name, v)
    return SimpleNamespace(run=run, visit=v, answers=answers, logs=logprobe.logs(host_name))


def test_access_log_full_converge_succeeds_with_a_reload(full):
    assert full.run.clean and full.run.handler_changed("fox_avatar.deploy.fox_avatar_nginx : Reload Nginx"), full.run.excerpt()


@pytest.mark.parametrize("what", list(logprobe.Visit("").values()))
def test_access_log_full_records(full, what):
    value = full.visit.values()[what]
    assert f"{LOG_DIR}/access.log" in logprobe.found(full.logs, value), f"{what} {value!r} not logged"


def test_access_log_full_fallback_log_records_the_key(full):
    assert f"{LOG_DIR}/fallback.log" in logprobe.found(full.logs, full.visit.key)


@pytest.fixture(scope="module")
def off(host_name, full):
    run = converge("access-log-off", "off")
    v = logprobe.Visit("off-c7e2f9")
    before = {name: logprobe.lines(host_name, name) for name in ("access.log", "fallback.log")}
    answers = logprobe.visit(host_name, v)
    after = {name: logprobe.lines(host_name, name) for name in ("access.log", "fallback.log")}
    return SimpleNamespace(run=run, visit=v, answers=answers, before=before, after=after,
                           logs=logprobe.logs(host_name))


def test_access_log_off_converge_succeeds(off):
    assert off.run.clean, off.run.excerpt()


def test_access_log_off_writes_no_access_or_fallback_line(off):
    assert off.after == off.before, off.answers


def test_access_log_off_logs_none_of_the_values(off):
    logged = {what: logprobe.found(off.logs, value) for what, value in off.visit.values().items()
              if what != "client address"}   # full mode's lines hold the address already
    assert all(not sources for sources in logged.values()), logged


@pytest.fixture(scope="module")
def default(host_name, off):
    run = converge("access-log-default")
    v = logprobe.Visit("back-3e95aa")
    answers = logprobe.visit(host_name, v)
    return SimpleNamespace(run=run, visit=v, answers=answers, logs=logprobe.logs(host_name))


def test_access_log_back_to_default_converge_succeeds(default):
    assert default.run.clean, default.run.excerpt()


@pytest.mark.parametrize("what", [w for w in logprobe.Visit("").values() if w != "client address"])
def test_access_log_back_to_default_logs_no(default, what):
    value = default.visit.values()[what]
    assert logprobe.found(default.logs, value) == [], f"{what} {value!r} logged"


def test_access_log_back_to_default_records_the_clients_network(default):
    assert f'{NETWORK} - - ' in default.logs[f"{LOG_DIR}/access.log"].splitlines()[-1]
