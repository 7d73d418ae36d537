"""A /metrics port another process holds, on the converged Debian 13 host (issue 35; conftest:
port-taken, then back): the run that moves fox_avatar_app_metrics_port onto it fails with one line
naming that variable and the service's own reason (the address and --metrics-port, not the free
avatar port), the front door still answers (the fallback), and the next run with the port back
converges and the service answers again."""


def foxmol_host(run):
    """The scenario's one host, as the run's recap names it."""
    return next(iter(run.recap))


def test_a_taken_metrics_port_fails_the_run(port_taken):
    assert port_taken.run.rc != 0 and not port_taken.run.clean, port_taken.run.excerpt()


def test_the_failure_names_the_variable_and_the_taken_address(port_taken):
    run = port_taken.run
    text = " ".join(run.text.split())   # the message as one line, however the callback wrapped it
    assert f"fox_avatar_app_metrics_port ({foxmol_host(run)}): the service does not answer" in text, run.excerpt()
    assert f"avatar: cannot listen on 127.0.0.1:{port_taken.port} (--metrics-port): Address already in use" in text, \
        run.excerpt()


def test_the_front_door_still_answers_while_the_service_is_down(port_taken):
    assert port_taken.front == "302"


def test_the_port_back_converges_and_the_service_answers(back):
    assert back.run.clean, back.run.excerpt()
    assert back.health.strip() == "ok"
