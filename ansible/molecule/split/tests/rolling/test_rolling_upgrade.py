"""A rolling upgrade under load: site.yml rolls a new jar out to the app hosts
while wrk loads the proxy for the whole run.

The new jar is today's with one more entry (same code, another checksum), installed as a release's
jar is (docs/ansible.md, "Install a release"): fox_avatar_app_jar_url and fox_avatar_app_jar_checksum,
the jar served by a local HTTP server on the control machine's loopback (Python's http.server, for
this module), downloaded and checked by the pre-flight, no built jar involved. Two loads, each wrk in
10-s rounds until the run is over (every status counted by bench/wrk-report.lua; the site's name
in Host): "fresh", a new connection (TCP + TLS) per request, as a page embedding the avatar makes;
"reused", 8 keep-alive connections. Each reload makes Nginx's old workers close their idle
keep-alive connections, and a request the client sent in that instant meets a closed connection (a
socket error, which browsers retry: RFC 9112 9.3.1); so "reused" may see at most one read error per
connection and reload, and nothing else. The loads are paced (wrk-report.lua's delay=10: 10 ms
between a connection's requests, as the Swarm test's), so they take a few percent of the machine
from the scenarios that run beside this one (tests/ansible/molecule.sh), and run at the normal CPU
priority: at the lowest, beside other runs, wrk starved for whole 10-s rounds (a round that
answered nothing, with no error).
"""
from __future__ import annotations

import functools
import hashlib
import http.server
import json
import re
import shutil
import subprocess
import threading
import time
import urllib.request
import zipfile
from dataclasses import dataclass, field

import pytest

import foxmol
from conftest import inventory_hosts, pool, report

APPS = inventory_hosts()["apps"]
LOADS = {"fresh": ["-c2", "-H", "Connection: close"], "reused": ["-c8"]}
PACE_MS = 10   # between a connection's requests: at most 200 fresh and 800 kept-alive requests a second
# The rolling restart: fox_avatar_app's restart handler (its tasks/restart.yml). The marks and reloads
# are fox_avatar_pool's tasks/mark.yml, which the handler includes as tasks (a handler cannot include
# a role), so Ansible names them after fox_avatar_app.
RELOAD = "fox_avatar.deploy.fox_avatar_app : Reload Nginx on those proxies"
MARK = "fox_avatar.deploy.fox_avatar_app : Mark the host down in the upstream pools, or take the mark off"
RESTART = "fox_avatar.deploy.fox_avatar_app : Restart the service"
HEADING = r"^(?:TASK|RUNNING HANDLER) \["
FALLBACK_LOG = "/var/log/nginx/fox-avatar/fallback.log"


@dataclass
class Load:
    """One wrk load in 10-s rounds: each round's (start, end, WRKJSON result)."""
    name: str
    args: list[str]
    rounds: list[tuple[float, float, dict]] = field(default_factory=list)
    output: list[str] = field(default_factory=list)

    def run(self, url: str, site: str, stop: threading.Event) -> None:
        while not stop.is_set():
            start = time.monotonic()
            res = subprocess.run(["wrk", "-t1", *self.args, "-d10s", "-H", f"Host: {site}",
                                  "-s", str(foxmol.REPO / "bench" / "wrk-report.lua"), url, "--", "count", f"delay={PACE_MS}"],
                                 capture_output=True, text=True, check=False)
            self.output.append(res.stdout + res.stderr)
            found = re.search(r"^WRKJSON (.*)$", res.stdout, re.M)
            self.rounds.append((start, time.monotonic(), json.loads(found[1]) if found else {}))

    def total(self, key: str) -> int:
        return sum(result.get(key, 0) for _, _, result in self.rounds)

    def errors(self, *keys: str) -> dict[str, int]:
        return {key: self.total(key) for key in keys}


@dataclass
class Upgrade:
    jar_sha256: str
    before_app_pid: dict[str, str]
    after_app_pid: dict[str, str]
    after_jar_sha256: dict[str, str]
    before_nginx_pid: str
    after_nginx_pid: str
    before_fallback: str
    after_fallback: str
    after_pool: dict[str, str]
    loads: dict[str, Load]
    run: foxmol.Run
    run_start: float
    run_end: float


def fallback_lines(proxy: str) -> str:
    return foxmol.host_exec(proxy, "sh", "-c", f"cat {FALLBACK_LOG} 2>/dev/null | wc -l")


def wait_until_answering(address: str, timeout: float = 120) -> None:
    """The app service at ADDRESS answers /healthz (the shared suite stopped and started it)."""
    deadline, last = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://{address}:8080/healthz", timeout=5) as res:
                if res.status == 200:
                    return
        except OSError as e:
            last = e
        time.sleep(1)
    raise AssertionError(f"the service at {address}:8080 does not answer /healthz: {last}")


def next_jar(directory) -> tuple[str, str]:
    """The new jar (today's + one zip entry), under a release's name in directory; its name and SHA-256."""
    jar = directory / "avatar-0.0.2.jar"
    shutil.copyfile(foxmol.REPO / "app" / "target" / "avatar.jar", jar)
    with zipfile.ZipFile(jar, "a") as z:
        z.writestr("META-INF/fox-avatar-rolling-upgrade-test.txt", "not the deployed jar\n")
    return jar.name, hashlib.sha256(jar.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def next_vars():
    """The settings that deploy the new jar by URL and checksum, and its SHA-256; the HTTP server
    serves it for the module's runs (the run again finds it downloaded and fetches nothing)."""
    served = foxmol.workdir("rolling", "release")
    name, sha = next_jar(served)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield ({"fox_avatar_app_jar_url": f"http://127.0.0.1:{server.server_address[1]}/{name}",
                "fox_avatar_app_jar_checksum": f"sha256:{sha}",
                "fox_avatar_app_jar_cache_dir": str(foxmol.workdir("rolling", "cache"))}, sha)
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def upgrade(proxy, proxy_addr, apps, app_address, site, next_vars) -> Upgrade:
    extra_vars, sha = next_vars
    assert shutil.which("wrk"), "no wrk (Debian's package wrk: tests/ansible/molecule.sh installs it)"
    for app in apps:
        wait_until_answering(app_address[app])
    before_app_pid = {app: foxmol.app_pid(app) for app in apps}
    before_nginx_pid, before_fallback = foxmol.nginx_pid(proxy), fallback_lines(proxy)
    loads, stop = {name: Load(name, args) for name, args in LOADS.items()}, threading.Event()
    threads = [threading.Thread(target=load.run, args=(f"https://{proxy_addr}/", site, stop))
               for load in loads.values()]
    for t in threads:
        t.start()
    try:
        time.sleep(3)
        run_start = time.monotonic()
        run = foxmol.start_playbook("rolling-upgrade", extra_vars=extra_vars,
                                    env={"ANSIBLE_CALLBACKS_ENABLED": "ansible.posix.profile_tasks"}).wait()
        run_end = time.monotonic()
        time.sleep(3)
    finally:
        stop.set()
        for t in threads:
            t.join()
    for load in loads.values():
        (foxmol.workdir("logs") / f"wrk-{load.name}.log").write_text("\n".join(load.output))
    up = Upgrade(
        jar_sha256=sha, before_app_pid=before_app_pid,
        after_app_pid={app: foxmol.app_pid(app) for app in apps},
        after_jar_sha256={app: foxmol.host_exec(app, "sha256sum", "/opt/fox-avatar/avatar.jar").split()[0]
                          for app in apps},
        before_nginx_pid=before_nginx_pid, after_nginx_pid=foxmol.nginx_pid(proxy),
        before_fallback=before_fallback, after_fallback=fallback_lines(proxy), after_pool=pool(proxy),
        loads=loads, run=run, run_start=run_start, run_end=run_end)
    out = " ".join(f"{host} {seconds:.1f} s" for host, seconds in time_out_of_pool(run.text).items())
    report(f"rolling upgrade under load: {run.seconds:.0f} s for the run with {len(apps)} app hosts; "
           f"each host out of the pool for: {out or '?'}")
    for load in loads.values():
        report(f"wrk {load.name} during the upgrade: {len(load.rounds)} rounds, {load.total('requests')} "
               f"requests, {load.total('not302')} not 302, socket errors: "
               f"{load.errors('connect', 'read', 'write', 'timeout')}")
    return up


@pytest.fixture(scope="module")
def next_run(upgrade, next_vars) -> foxmol.Run:
    run = foxmol.playbook("rolling-upgrade-again", extra_vars=next_vars[0])
    report(f"the same run again, with nothing to do: {run.seconds:.0f} s")
    return run


def rolling_order(log: str) -> list[str]:
    """The drain marks and restarts in the order they ran, each followed by the host it changed:
    ["down", host, "restart", host, "back", host, ...]."""
    out, mark = [], None
    for line in log.splitlines():
        task = re.match(HEADING + r"(.*)\]", line)
        if task:
            title = task[1]
            mark = ("restart" if title == RESTART else
                    title.rpartition("| ")[2] if title.startswith(MARK + " | ") else None)
            if mark:
                out.append(mark)
        elif mark and (changed := re.match(r"^changed: \[([^] ]+)", line)):
            out.append(changed[1])
            mark = None
    return out


def time_out_of_pool(log: str) -> dict[str, float]:
    """Each app host's time from its "down" mark to its "back" mark (profile_tasks prints the run's
    elapsed time under each task's title; the host is the one the mark changed)."""
    out, down, mark, elapsed = {}, {}, None, None
    for line in log.splitlines():
        title = re.match(HEADING + rf"{re.escape(MARK)} \| (down|back)\]", line)
        if title:
            mark, elapsed = title[1], None
        elif line.startswith(("TASK ", "RUNNING HANDLER ", "PLAY ")):
            mark = None
        elif mark and elapsed is None and (t := re.search(r"(\d+):(\d+):(\d+\.\d+) \*+ *$", line)):
            elapsed = int(t[1]) * 3600 + int(t[2]) * 60 + float(t[3])
        elif mark and elapsed is not None and (changed := re.match(r"^changed: \[([^] ]+)", line)):
            if mark == "down":
                down[changed[1]] = elapsed
            elif changed[1] in down:
                out[changed[1]] = elapsed - down[changed[1]]
            mark = None
    return out


def test_the_upgrade_run_succeeds(upgrade):
    assert upgrade.run.clean, upgrade.run.excerpt()


@pytest.mark.parametrize("load", LOADS)
def test_the_load_ran_for_the_whole_run(upgrade, load):
    rounds = upgrade.loads[load].rounds
    assert rounds and rounds[0][0] < upgrade.run_start and rounds[-1][1] > upgrade.run_end, \
        "wrk's rounds do not cover the run"
    assert all(result.get("requests", 0) > 0 for _, _, result in rounds), \
        f"a wrk round answered nothing: {[r for _, _, r in rounds]}"


@pytest.mark.parametrize("load", LOADS)
def test_every_answer_was_a_302(upgrade, load):
    assert upgrade.loads[load].total("not302") == 0


def test_fresh_connections_saw_no_socket_error(upgrade):
    assert upgrade.loads["fresh"].errors("connect", "read", "write", "timeout") == \
        {"connect": 0, "read": 0, "write": 0, "timeout": 0}


def test_reused_connections_saw_no_connect_write_or_timeout_error(upgrade):
    assert upgrade.loads["reused"].errors("connect", "write", "timeout") == {"connect": 0, "write": 0, "timeout": 0}


def test_reused_connections_saw_read_errors_only_at_the_reloads(upgrade):
    """At most one per keep-alive connection (8) and reload."""
    reloads = len(re.findall(HEADING + rf"{re.escape(RELOAD)}\]", upgrade.run.text, re.M))
    assert upgrade.loads["reused"].total("read") <= 8 * reloads


def test_no_fallback_answer(upgrade):
    assert upgrade.after_fallback == upgrade.before_fallback


def test_one_app_host_at_a_time_drained_restarted_and_back_in_inventory_order(upgrade, apps):
    assert rolling_order(upgrade.run.text) == [step for app in apps for step in
                                               ("down", app, "restart", app, "back", app)]


@pytest.mark.parametrize("app", APPS)
def test_each_app_host_was_restarted(upgrade, app):
    assert upgrade.after_app_pid[app] not in ("", "0", upgrade.before_app_pid[app])


@pytest.mark.parametrize("app", APPS)
def test_each_app_host_runs_the_new_jar(upgrade, app):
    assert upgrade.after_jar_sha256[app] == upgrade.jar_sha256


def test_nginx_was_reloaded_never_restarted(upgrade):
    assert upgrade.run.handler_changed(RELOAD)
    assert upgrade.after_nginx_pid == upgrade.before_nginx_pid


def test_both_app_hosts_are_back_in_the_pool(upgrade, apps, app_address):
    assert upgrade.after_pool == {f"{app}.conf": f"server {app_address[app]}:8080;" for app in apps}


def test_the_next_run_reports_changed_0(next_run):
    assert next_run.unchanged, next_run.excerpt()
