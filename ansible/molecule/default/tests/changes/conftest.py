"""The changes stage (tests/changes/<suite>): the playbook again with other settings, each run
without the monitoring role's tasks (ANSIBLE_SKIP_TAGS=fox_avatar_monitoring, site.yml's tag). The
monitoring settings stay as converged (Nginx keeps its stub_status listener and fallback feed);
what the role does is tests/converged's, and its tasks cost about 35 s per run on this machine.
A run that changes a proxy setting alone skips the Java service's play too (proxy_only: as an
admin changes one, `--skip-tags fox_avatar_app,fox_avatar_monitoring`); the runs that change the
app or the image set, and each suite's last run, are whole."""
import foxmol
import pytest

foxmol.ENV["ANSIBLE_SKIP_TAGS"] = "fox_avatar_monitoring"


@pytest.fixture(scope="session")
def proxy_only():
    """The environment of a run that changes a proxy setting alone."""
    return foxmol.PROXY_ONLY


@pytest.fixture(scope="session")
def app_play_tasks():
    """The tasks a run's Java service play ran (none in a proxy_only run): the TASK lines between
    its PLAY line and the next one."""
    def tasks(run) -> list[str]:
        play = run.text.partition("PLAY [Java service]")[2].partition("\nPLAY ")[0]
        return [line for line in play.splitlines() if line.startswith(("TASK [", "RUNNING HANDLER ["))]
    return tasks
