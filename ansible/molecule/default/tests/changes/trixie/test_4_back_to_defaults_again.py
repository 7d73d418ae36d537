"""After the changes (HTTP/3 off and on, the access log full, off and back, a taken /metrics port
and back), the playbook with every setting at its default once more changes nothing: no toggle
leaves the host somewhere a default run does not converge."""


def test_the_next_converge_after_the_changes_reports_changed_0(again):
    assert again.unchanged, again.excerpt()


def test_a_whole_run_runs_the_java_service_play(again, app_play_tasks):
    """The other side of test_1's proxy-only check: a run without --skip-tags fox_avatar_app shows the
    Java service play's tasks where that check looks for them."""
    assert app_play_tasks(again), again.excerpt()


def test_the_last_run_is_whole_the_monitoring_role_included(again, monitoring_play_tasks):
    """The stage skips the monitoring role in its other runs: this one, back to the defaults, runs it
    too, and changes nothing there either."""
    assert any("fox_avatar_monitoring" in task for task in monitoring_play_tasks(again)), again.excerpt()
