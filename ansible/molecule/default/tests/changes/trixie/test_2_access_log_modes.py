"""fox_avatar_nginx_access_log on the Debian 13 host (conftest: proxy-1 full, proxy-2 off, back to
the default): `full` logs the key, the hashes, the Referer, the User-Agent and the full client
address (the access and fallback logs); `off` writes no access line and still no personal data;
back to the default, a new round of values is nowhere in our logs or the journal again. Each mode
is a release, Nginx reloaded."""
import logprobe
import pytest
from logprobe import LOG_DIR, NETWORK


def test_access_log_full_converge_succeeds_with_a_reload(proxy_1):
    assert proxy_1.run.clean and proxy_1.run.handler_changed("fox_avatar.deploy.fox_avatar_nginx : Reload Nginx"), \
        proxy_1.run.excerpt()


@pytest.mark.parametrize("what", list(logprobe.Visit("").values()))
def test_access_log_full_records(proxy_1, what):
    value = proxy_1.visit.values()[what]
    assert f"{LOG_DIR}/access.log" in logprobe.found(proxy_1.logs, value), f"{what} {value!r} not logged"


def test_access_log_full_fallback_log_records_the_key(proxy_1):
    assert f"{LOG_DIR}/fallback.log" in logprobe.found(proxy_1.logs, proxy_1.visit.key)


def test_access_log_off_converge_succeeds_with_a_reload(proxy_2):
    assert proxy_2.run.clean and proxy_2.run.handler_changed("fox_avatar.deploy.fox_avatar_nginx : Reload Nginx"), \
        proxy_2.run.excerpt()


def test_access_log_off_writes_no_access_or_fallback_line(proxy_2):
    assert proxy_2.after == proxy_2.before, proxy_2.answers


def test_access_log_off_logs_none_of_the_values(proxy_2):
    logged = {what: logprobe.found(proxy_2.logs, value) for what, value in proxy_2.visit.values().items()
              if what != "client address"}   # full mode's lines hold the address already
    assert all(not sources for sources in logged.values()), logged


def test_access_log_back_to_default_converge_succeeds(back):
    assert back.run.clean, back.run.excerpt()


@pytest.mark.parametrize("what", [w for w in logprobe.Visit("").values() if w != "client address"])
def test_access_log_back_to_default_logs_no(back, what):
    value = back.visit.values()[what]
    assert logprobe.found(back.logs, value) == [], f"{what} {value!r} logged"


def test_access_log_back_to_default_records_the_clients_network(back):
    assert f'{NETWORK} - - ' in back.logs[f"{LOG_DIR}/access.log"].splitlines()[-1]
