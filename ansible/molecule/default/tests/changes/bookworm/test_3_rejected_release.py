"""A release `nginx -t` rejects, then a good one, on the Debian 12 host in files mode:
the rejected run fails loudly and never goes live (same release,
same Nginx master, still serving); the next good run (a changed value) switches to a new release
with a reload, keeps the replaced one as `previous` and removes the rejected one."""
import re
from types import SimpleNamespace

import foxmol
import probes
import pytest

LIVE, RELEASES = "/etc/nginx/fox-avatar", "/etc/nginx/fox-avatar-releases"


def live(host_name):
    return foxmol.host_exec(host_name, "readlink", LIVE)


@pytest.fixture(scope="module")
def before(host_name):
    state = SimpleNamespace(live=live(host_name), pid=foxmol.nginx_pid(host_name))
    print(f"live release: {state.live}; Nginx master PID {state.pid}")
    assert state.live and state.pid not in ("", "0"), state
    return state


@pytest.fixture(scope="module")
def rejected(host_name, addr, files_mode, before, proxy_only):
    """The run with a server name nginx -t rejects, and what the host looks like right after."""
    run = foxmol.playbook("rejected-release", env=proxy_only, extra_vars={
        **files_mode["vars"], "fox_avatar_nginx_server_names": ["avatar.test;bogus_directive"]})
    ca = files_mode["ca"]
    return SimpleNamespace(
        run=run, live=live(host_name), pid=foxmol.nginx_pid(host_name),
        nginx_t=probes.host_rc(host_name, "nginx", "-t", "-q"),
        code=probes.https_code(addr, ca, "/"), image=probes.https_code(addr, ca, "/Renard-1.png"))


def test_rejected_release_fails_the_run(rejected):
    assert not rejected.run.clean, rejected.run.excerpt()


def test_rejected_release_failure_says_nginx_t_rejected_it_and_the_live_release_stays(rejected, before):
    assert re.search(rf"nginx -t rejected the new configuration .*; {re.escape(before.live)} stays live",
                     rejected.run.text), rejected.run.excerpt()


def test_rejected_release_leaves_the_previous_release_live(rejected, before):
    assert rejected.live == before.live


def test_rejected_release_leaves_a_tree_nginx_t_accepts(rejected):
    assert rejected.nginx_t == 0


def test_rejected_release_does_not_restart_nginx(rejected, before):
    assert rejected.pid == before.pid


def test_nginx_keeps_serving_after_the_rejected_release(rejected):
    assert (rejected.code, rejected.image) == ("302", "200")


@pytest.fixture(scope="module")
def good(host_name, addr, files_mode, rejected, proxy_only):
    """The next run with a good change (the images' cache lifetime), and the host right after."""
    run = foxmol.playbook("good-release", "--diff", env=proxy_only,
                          extra_vars={**files_mode["vars"], "fox_avatar_nginx_images_max_age": 3600})
    ca = files_mode["ca"]
    releases = foxmol.host_exec(host_name, "find", RELEASES, "-mindepth", "1", "-maxdepth", "1",
                                "-type", "d").split()
    print(foxmol.host_exec(host_name, "ls", "-l", RELEASES))
    return SimpleNamespace(
        run=run, live=live(host_name), pid=foxmol.nginx_pid(host_name), releases=sorted(releases),
        previous=foxmol.host_exec(host_name, "readlink", f"{RELEASES}/previous", check=False),
        cache_control=probes.header(addr, ca, "/Renard-1.png", "Cache-Control"),
        code=probes.https_code(addr, ca, "/"))


def test_good_release_converge_succeeds(good):
    assert good.run.clean, good.run.excerpt()


def test_good_release_makes_a_new_release_live(good, before):
    assert good.live and good.live != before.live


def test_good_release_reloads_nginx(good):
    assert good.run.handler_changed("fox_avatar.deploy.fox_avatar_nginx : Reload Nginx"), good.run.excerpt()


def test_good_release_does_not_restart_nginx(good, before):
    assert good.pid == before.pid


def test_good_release_serves_the_new_value(good):
    assert "max-age=3600" in (good.cache_control or ""), good.cache_control


def test_good_release_still_redirects(good):
    assert good.code == "302"


def test_good_release_keeps_the_replaced_release_as_previous(good, before):
    assert good.previous == before.live


def test_good_release_keeps_only_the_live_and_the_previous_release(good, before):
    assert good.releases == sorted([good.live, before.live])
