"""The changes stage (tests/changes/<suite>): the playbook again with other settings, each run
without the monitoring role's tasks (ANSIBLE_SKIP_TAGS=fox_avatar_monitoring, site.yml's tag). The
monitoring settings stay as converged (Nginx keeps its stub_status listener and fallback feed);
what the role does is tests/converged's, and its tasks cost about 35 s per run on this machine.
A run that changes a proxy setting alone skips the Java service's play too (proxy_only: as an
admin changes one, `--skip-tags fox_avatar_app,fox_avatar_monitoring`); the runs that change the
app or the image set are whole but for the monitoring role, and each suite's last run is whole,
the monitoring role's play included (whole: ANSIBLE_SKIP_TAGS emptied)."""
import foxmol
import pytest

foxmol.ENV["ANSIBLE_SKIP_TAGS"] = "fox_avatar_monitoring"


@pytest.fixture(scope="session")
def whole():
    """The environment of a suite's last run: nothing skipped (the stage's ANSIBLE_SKIP_TAGS emptied)."""
    return {"ANSIBLE_SKIP_TAGS": ""}


@pytest.fixture(scope="session")
def proxy_only():
    """The environment of a run that changes a proxy setting alone."""
    return foxmol.PROXY_ONLY


def play_tasks(run, play: str) -> list[str]:
    """The tasks a run's play ran: the TASK lines between its PLAY line and the next one."""
    text = run.text.partition(f"PLAY [{play}]")[2].partition("\nPLAY ")[0]
    return [line for line in text.splitlines() if line.startswith(("TASK [", "RUNNING HANDLER ["))]


@pytest.fixture(scope="session")
def app_play_tasks():
    """The tasks a run's Java service play ran (none in a proxy_only run)."""
    return lambda run: play_tasks(run, "Java service")


@pytest.fixture(scope="session")
def monitoring_play_tasks():
    """The tasks a run's Prometheus play ran (none but in a suite's last, whole run)."""
    return lambda run: play_tasks(run, "Prometheus")
