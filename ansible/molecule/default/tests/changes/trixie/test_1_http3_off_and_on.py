"""HTTP/3 off and back on, on the converged Debian 13 host (conftest: runs proxy-1 and proxy-2):
with fox_avatar_nginx_http3=false no QUIC listener, no Alt-Svc, no HTTP/3, and HTTPS over TCP
still answers; back to the default, HTTP/3 again after a reload (the same Nginx master). That the
next converge changes nothing is test_4's."""
import probes

ALT_SVC = 'h3=":443"; ma=86400'


def test_http3_off_converge_succeeds(proxy_1):
    assert proxy_1.run.clean, proxy_1.run.excerpt()


def test_http3_off_leaves_no_quic_listener(proxy_1):
    assert proxy_1.http3.udp == []


def test_http3_off_sends_no_alt_svc(proxy_1):
    assert proxy_1.http3.alt is None


def test_http3_off_answers_nothing_over_http3(proxy_1):
    assert proxy_1.http3.h3 != "302 3"


def test_http3_off_https_over_tcp_still_answers_302(proxy_1):
    assert proxy_1.http3.code == "302"


def test_http3_back_on_converge_succeeds(proxy_2):
    assert proxy_2.run.clean, proxy_2.run.excerpt()


def test_http3_back_on_listens_for_quic_again(proxy_2):
    assert proxy_2.http3.udp == probes.QUIC_LISTENERS


def test_http3_back_on_answers_302_over_http3_with_alt_svc(proxy_2):
    assert (proxy_2.http3.h3, proxy_2.http3.alt) == ("302 3", ALT_SVC)


def test_http3_off_and_on_reload_nginx_never_restart_it(proxy_2, nginx_pid_before):
    assert nginx_pid_before not in ("", "0") and proxy_2.pid == nginx_pid_before


def test_the_proxy_runs_leave_the_app_alone(proxy_1, proxy_2, app_play_tasks):
    """--skip-tags fox_avatar_app: the Java service's play ran no task (the pre-flight, tagged
    always, still checked the app's settings)."""
    for run in (proxy_1.run, proxy_2.run):
        assert app_play_tasks(run) == [], run.excerpt()
