"""A set of own pictures on the Debian 12 host in files mode:
`make images SRC=... OUT=...` (tests/stack/custom_set.py), then fox_avatar_images_src: Nginx reloaded
(same master PID), the set served and only it, every size and format, the fallback agrees with the
sidecar, and the fox set's files (which redirects cached before the change name) redirect into the
own set; then the fox set again, and the own set's files redirect into it."""
from types import SimpleNamespace

import foxmol
import probes
import pytest
from probes import SITE
from imageset import read_manifest
from stack.custom_set import REPO, assert_retired_names_redirect, assert_serves_the_custom_set, make_custom_set
from stack.stacks import ExternalStack

# the good release (test_3) set this; keeping it, the own set changes the images alone
KEEP = {"fox_avatar_nginx_images_max_age": 3600}


@pytest.fixture(scope="module")
def own_set():
    work = foxmol.workdir("own")
    work.chmod(0o755)
    return make_custom_set(work)


def test_make_images_makes_a_set(own_set):
    assert (own_set / "manifest.tsv").is_file()


@pytest.fixture(scope="module")
def own_converge(host_name, files_mode, own_set):
    pid = foxmol.nginx_pid(host_name)
    run = foxmol.playbook("own-pictures", extra_vars={**files_mode["vars"], **KEEP,
                                                      "fox_avatar_images_src": str(own_set)})
    return SimpleNamespace(run=run, pid_before=pid, pid_after=foxmol.nginx_pid(host_name))


def test_own_pictures_converge_succeeds(own_converge):
    assert own_converge.run.clean, own_converge.run.excerpt()


def test_own_pictures_reload_nginx(own_converge):
    assert own_converge.run.handler_changed("fox_avatar.deploy.fox_avatar_nginx : Reload Nginx"), own_converge.run.excerpt()


def test_own_pictures_do_not_restart_nginx(own_converge):
    assert own_converge.pid_before not in ("", "0") and own_converge.pid_after == own_converge.pid_before


def host_stack(host_name, addr, files_mode, images_dir):
    return ExternalStack({
        "AVATAR_HOST": SITE, "AVATAR_ADDR": addr, "AVATAR_CA": str(files_mode["ca"]),
        "AVATAR_IMAGES_DIR": str(images_dir),
        "AVATAR_APP_STOP": f"docker exec {host_name} systemctl stop fox-avatar",
        "AVATAR_APP_START": f"docker exec {host_name} systemctl start fox-avatar"})


def test_host_serves_the_own_set_only_every_size_and_format_and_the_fallback_agrees(
        own_converge, host_name, addr, files_mode, own_set):
    assert_serves_the_custom_set(host_stack(host_name, addr, files_mode, own_set))


def test_redirects_cached_before_the_own_set_never_lead_to_a_404(own_converge, host_name, addr, files_mode, own_set):
    assert_retired_names_redirect(host_stack(host_name, addr, files_mode, own_set), read_manifest(REPO / "images"))


@pytest.fixture(scope="module")
def fox_set_again(own_converge, files_mode, whole):
    """The suite's last run: whole, the monitoring role included."""
    return foxmol.playbook("fox-set-again", extra_vars={**files_mode["vars"], **KEEP}, env=whole)


def test_back_to_the_fox_set_converge_succeeds(fox_set_again):
    assert fox_set_again.clean, fox_set_again.excerpt()


def test_the_fox_set_is_served_again(fox_set_again, addr, files_mode):
    assert probes.https_code(addr, files_mode["ca"], "/Renard-1.png") == "200"


def test_the_last_run_is_whole_the_monitoring_role_included(fox_set_again, monitoring_play_tasks):
    assert any("fox_avatar_monitoring" in task for task in monitoring_play_tasks(fox_set_again)), \
        fox_set_again.excerpt()


def test_redirects_cached_before_the_fox_set_came_back_never_lead_to_a_404(
        fox_set_again, host_name, addr, files_mode, own_set):
    assert_retired_names_redirect(host_stack(host_name, addr, files_mode, REPO / "images"), read_manifest(own_set))
