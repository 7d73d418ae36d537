"""The Nginx image's start (nginx/compose/docker-entrypoint.sh), in the official Nginx image's form:
the files of /docker-entrypoint.d/ run only when the command is Nginx serving (or testing its
configuration); any other command runs as it is, with no setting at all. For Nginx, a missing
setting is still one line naming it, exit 2.

Runs the image of the project tests/compose/run.sh started (its helpers:
compose_helpers.py), with `docker run --rm` and nothing of compose: no setting, no mount.
"""
import subprocess

import pytest

from compose_helpers import NEEDED, containers, inspect, pytestmark  # noqa: F401


def nginx_image():
    (nginx,) = containers("nginx")
    return inspect(nginx)["Config"]["Image"]


def run(*command):
    return subprocess.run(["docker", "run", "--rm", nginx_image(), *command], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("command, says", [
    (["nginx", "-V"], "nginx version: nginx/1.26."),
    (["nginx", "-v"], "nginx version: nginx/1.26."),
    (["bash", "-c", "echo started"], "started"),
])
def test_a_command_other_than_nginx_serving_runs_with_no_setting(command, says):
    done = run(*command)
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert says in done.stdout + done.stderr
    assert "nginx-entrypoint:" not in done.stderr, done.stderr


@pytest.mark.parametrize("command", [[], ["nginx", "-g", "daemon off;"], ["nginx", "-t"]])
def test_nginx_without_its_settings_is_refused_in_one_line_naming_the_first(command):
    """The image's own command (none given), the same spelled out, and the configuration test
    (it needs the site file rendered from the settings)."""
    done = run(*command)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.splitlines() == [
        "nginx-entrypoint: AVATAR_HTTPS_PORT: not set (docker-compose.yml sets it: start Nginx with compose)"]
