"""What the Molecule scenarios' verifiers (ansible/molecule/*/tests, pytest + testinfra) share.

A scenario's tests/conftest.py puts this directory on sys.path and imports what it needs. Molecule
runs the verifier with MOLECULE_INVENTORY_FILE and MOLECULE_EPHEMERAL_DIRECTORY set; everything
here reads them.

  FROM_REPO                       FOX_FROM=repo: this run's playbooks are the README's commands in a
                                  copy of the working tree (fromrepo.py), not the installed tarball's
  playbook(name, *args, extra_vars=..., limit=...)  the real site.yml against the scenario's hosts:
                                  the installed collection's playbook fox_avatar.deploy.site
                                  (ANSIBLE_COLLECTIONS_PATH; ansible/ansible.cfg, from ansible/), or
                                  (FROM_REPO) `make build`, then `cd ansible && ansible-playbook -i
                                  inventory.yml site.yml` as the README writes them, ARGS added; a Run
  ENV                             variables every playbook run of this pytest session gets (a stage's
                                  conftest sets them, e.g. ANSIBLE_SKIP_TAGS)
  PROXY_ONLY                      the env= of a run that changes a proxy setting alone: as an admin
                                  runs one, `--skip-tags fox_avatar_app,fox_avatar_monitoring`
  collection_in_use(run)          where the run's playbook came from, checked to be the one this run
                                  must use: the installed tarball's (ANSIBLE_COLLECTIONS_PATH), or
                                  (FROM_REPO) the copy's ansible/, through the README's commands
  start_playbook(...)             the same in the background: a Pending, .wait() gives the Run
  Run                             rc, log, recap, clean, unchanged, handler_changed(), excerpt()
  docker(*args), host_exec(host, *cmd), host_ip(host), nginx_pid(host), app_pid(host)
  stack_suite(name, site=, addr=, ca=, proxy=, apps=, http3=, pq=, network=[, app_ready=])
                                  the shared HTTP suite (tests/stack, AVATAR_STACK=external) over
                                  HTTPS against a host; a Run-like result (rc, log, excerpt())
  trixie_client(network, ca, *cmd) Debian 13's curl/openssl (tools/docker.sh trixie_client_ready)
                                  in a container on the scenario's network
  https(addr, site, path, ca)     (status, headers) of one HTTPS GET from the control machine
  first_converge()                Molecule's converge step (the first site.yml run after its create),
                                  read from the scenario's Ansible log (FROM_REPO: the first run's own
                                  log, converge-repo.yml's): a Run (recap, lines; rc 0)

Run as a program by the default scenario's playbooks (FOX_FROM=repo):
  foxmol.py prepare-repo HOST     prepare.yml: the copy of the working tree and its inventory.yml
  foxmol.py converge              converge-repo.yml: playbook("converge-N"), N counting from 1; prints
                                  what changed or failed, then a JSON line {"rc", "changed", "log"}
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import fromrepo

REPO = Path(__file__).resolve().parents[3]
ANSIBLE_DIR = REPO / "ansible"
FROM_REPO = os.environ.get("FOX_FROM", "tarball") == "repo"
ENV: dict[str, str] = {}
PROXY_ONLY = {"ANSIBLE_SKIP_TAGS": "fox_avatar_app,fox_avatar_monitoring"}
RECAP = re.compile(
    r"^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


def inventory() -> str:
    """The scenario's inventory directory (its group_vars and host_vars come with it)."""
    return str(Path(os.environ["MOLECULE_INVENTORY_FILE"]).parent)


def workdir(*parts: str) -> Path:
    """A directory in the scenario's ephemeral directory (logs, certificates, vars files)."""
    path = Path(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "verify", *parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass
class Run:
    """One finished command whose output is in a log file (a playbook run, a pytest run)."""
    name: str
    rc: int
    log: Path
    seconds: float

    @property
    def text(self) -> str:
        return self.log.read_text(errors="replace")

    @property
    def recap(self) -> dict[str, dict[str, int]]:
        recap = self.text.partition("PLAY RECAP")[2]
        return {m[1]: dict(zip(("ok", "changed", "unreachable", "failed"), map(int, m.groups()[1:])))
                for m in RECAP.finditer(recap)}

    @property
    def clean(self) -> bool:
        """Exit 0, and failed=0 unreachable=0 for every host in the recap."""
        recap = self.recap
        return self.rc == 0 and bool(recap) and all(
            r["failed"] == 0 and r["unreachable"] == 0 for r in recap.values())

    @property
    def unchanged(self) -> bool:
        """clean, and changed=0 for every host."""
        return self.clean and all(r["changed"] == 0 for r in self.recap.values())

    def handler_changed(self, title: str) -> bool:
        """The handler titled so (e.g. 'fox_avatar.deploy.fox_avatar_nginx : Reload Nginx': the role by its FQCN) ran and reported changed."""
        return self._changed(f"RUNNING HANDLER [{title}]")

    def task_changed(self, title: str) -> bool:
        """The task titled so (the role by its FQCN, as for handler_changed) ran and reported changed."""
        return self._changed(f"TASK [{title}]")

    def _changed(self, heading: str) -> bool:
        lines = self.text.splitlines()
        for i, line in enumerate(lines):
            if line.startswith(heading):
                for nxt in lines[i + 1:]:
                    if nxt.startswith(("TASK ", "RUNNING HANDLER ", "PLAY ")):
                        break
                    if nxt.startswith("changed:"):
                        return True
        return False

    def excerpt(self, lines: int = 60) -> str:
        """What changed or failed (with the task titles), and the recap: for assertion messages."""
        out, title = [], None
        for line in self.text.splitlines():
            if line.startswith(("TASK ", "RUNNING HANDLER ")):
                title = line
            elif line.startswith(("changed", "fatal", "failed", "FAILED", "ERROR", "[ERROR]")):
                if title:
                    out.append(title.rstrip("* "))
                    title = None
                out.append(line)
        recap = self.text.partition("PLAY RECAP")[2].strip()
        return "\n".join([f"--- {self.name}: exit {self.rc}, {self.seconds:.0f} s, log {self.log}",
                          *out[-lines:], "PLAY RECAP " + recap if recap else "(no recap)"])

    def __str__(self) -> str:
        return self.excerpt()


def _playbook_cmd(args, extra_vars, limit) -> list[str]:
    args = [*args, *(["--limit", limit] if limit else []), *(["-e", json.dumps(extra_vars)] if extra_vars else [])]
    if FROM_REPO:   # the README's commands in the copy of the working tree
        return fromrepo.command(*args)
    # the installed collection's playbook (tests/ansible/molecule.sh: ANSIBLE_COLLECTIONS_PATH)
    return ["ansible-playbook", "-i", inventory(), "fox_avatar.deploy.site", *args]


# site.yml's first task says where its playbook is: fox_avatar.deploy: the playbook in DIR
_PLAYBOOK_DIR = re.compile(r"fox_avatar\.deploy: the playbook in (/[^'\"\s]*)")


def collection_in_use(run: Run) -> Path:
    """The directory the run's site.yml came from, checked to be the one this run must use: the
    installed collection's (under ANSIBLE_COLLECTIONS_PATH, which tests/ansible/molecule.sh points at
    the tarball it built and installed), not this repository's ansible/ (which the repository's
    collections/ links to); or, FROM_REPO, the copy of the working tree's ansible/, reached by the README's commands
    as written (the log's first lines), not the installed tarball."""
    found = _PLAYBOOK_DIR.findall(run.text)
    assert found, f"{run.log}: no 'fox_avatar.deploy: the playbook in' line (site.yml's first task)"
    where = Path(found[0])
    installed = [Path(p).resolve() for p in os.environ.get("ANSIBLE_COLLECTIONS_PATH", "").split(":") if p]
    assert installed or FROM_REPO, "ANSIBLE_COLLECTIONS_PATH is not set: run the scenarios with tests/ansible/molecule.sh"
    in_installed = any(where.is_relative_to(p / "ansible_collections/fox_avatar/deploy") for p in installed)
    if FROM_REPO:
        copy = fromrepo.copy_dir().resolve()
        assert where == copy / "ansible" and not in_installed, \
            f"{run.log}: site.yml ran from {where}, not from the copy of the working tree's ansible/ ({copy / 'ansible'})"
        said = [line[2:] for line in run.text.splitlines() if line.startswith("$ ")]
        assert said == [f"cd {copy}", *fromrepo.readme_commands()], \
            f"{run.log}: not the README's commands as written ({fromrepo.readme_commands()}) in the copy: {said}"
        return where
    assert in_installed, f"{run.log}: site.yml ran from {where}, not from the installed collection under {installed}"
    assert not where.is_relative_to(REPO), f"{run.log}: site.yml ran from the repository ({where})"
    return where


def _env(extra: dict | None = None) -> dict:
    if FROM_REPO:   # the user's own: no ANSIBLE_CONFIG, no ANSIBLE_COLLECTIONS_PATH, nor Molecule's
        return fromrepo.user_env({**ENV, **(extra or {})})
    env = dict(os.environ, ANSIBLE_CONFIG=str(ANSIBLE_DIR / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_FORCE_COLOR="0", ANSIBLE_DEPRECATION_WARNINGS="false")
    env.pop("ANSIBLE_LOG_PATH", None)   # Molecule's own runs' log (first_converge): not these runs'
    env.update({**ENV, **(extra or {})})
    return env


class Pending:
    """A playbook run in the background (start_playbook). FROM_REPO, its log starts with the
    working directory and the commands (lines "$ ..."), as a terminal would show them."""

    def __init__(self, name: str, cmd: list[str], env: dict):
        self.name, self.log, self.start = name, workdir("logs") / f"{name}.log", time.monotonic()
        cwd = fromrepo.copy_dir() if FROM_REPO else ANSIBLE_DIR
        self._fh = self.log.open("w")
        if FROM_REPO:
            self._fh.write("".join(f"$ {line}\n" for line in [f"cd {cwd.resolve()}", *cmd[-1].splitlines()]))
            self._fh.flush()
        self.proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=self._fh,
                                     stderr=subprocess.STDOUT)

    def wait(self, timeout: float | None = None) -> Run:
        rc = self.proc.wait(timeout)
        self._fh.close()
        run = Run(self.name, rc, self.log, time.monotonic() - self.start)
        print(f"ansible-playbook {self.name}: exit {rc}, {run.seconds:.0f} s", file=sys.stderr)
        return run


def start_playbook(name: str, *args: str, extra_vars: dict | None = None, limit: str | None = None,
                   env: dict | None = None) -> Pending:
    """site.yml against the scenario's inventory, in the background; name names its log."""
    return Pending(name, _playbook_cmd(args, extra_vars, limit), _env(env))


def playbook(name: str, *args: str, extra_vars: dict | None = None, limit: str | None = None,
             env: dict | None = None) -> Run:
    """site.yml against the scenario's inventory (args: e.g. "--check", "--diff"); waits."""
    return start_playbook(name, *args, extra_vars=extra_vars, limit=limit, env=env).wait()


def docker(*args: str, input: str | bytes | None = None, check: bool = True) -> str:
    """`docker ARGS`; its stdout (stripped)."""
    res = subprocess.run(["docker", *args], input=input, capture_output=True,
                         text=not isinstance(input, bytes), check=False)
    if check and res.returncode != 0:
        raise AssertionError(f"docker {' '.join(args)}: exit {res.returncode}: {res.stderr}")
    out = res.stdout
    return out.decode() if isinstance(out, bytes) else out.strip()


def host_exec(host: str, *cmd: str, check: bool = True) -> str:
    """A command on a test host (docker exec); its stdout."""
    return docker("exec", host, *cmd, check=check)


def host_ip(host: str, network: str | None = None) -> str:
    """The host's address (on network, when given; otherwise its first one)."""
    nets = json.loads(docker("inspect", "-f", "{{json .NetworkSettings.Networks}}", host))
    if network:
        return nets[network]["IPAddress"]
    return next(iter(nets.values()))["IPAddress"]


def host_network(host: str) -> str:
    """The (first) docker network the host is on."""
    return next(iter(json.loads(docker("inspect", "-f", "{{json .NetworkSettings.Networks}}", host))))


def nginx_pid(host: str) -> str:
    return host_exec(host, "systemctl", "show", "-p", "MainPID", "--value", "nginx")


def app_pid(host: str) -> str:
    return host_exec(host, "systemctl", "show", "-p", "MainPID", "--value", "fox-avatar")


def stack_suite(name: str, *, site: str, addr: str, ca: str | Path, proxy: str, apps: list[str],
                http3: bool, pq: bool, network: str, app_ready: str | None = None) -> Run:
    """The shared HTTP suite (tests/stack) against ADDR as SITE over HTTPS, verified against CA;
    the app hosts' services stopped and started through docker exec (the fallback tests); the
    proxy's fallback log read the same way. app_ready: a shell command the start runs after the
    services' start (e.g. wait until each answers), before the suite goes on."""
    stop = " && ".join(f"docker exec {a} systemctl stop fox-avatar" for a in apps)
    start = " && ".join([*(f"docker exec {a} systemctl start fox-avatar" for a in apps),
                         *([app_ready] if app_ready else [])])
    env = dict(os.environ, AVATAR_STACK="external", AVATAR_HOST=site, AVATAR_ADDR=addr,
               AVATAR_HTTPS_PORT="443", AVATAR_HTTP_PORT="80", AVATAR_CA=str(ca),
               AVATAR_APP_STOP=stop, AVATAR_APP_START=start,
               AVATAR_FALLBACK_LOG_CMD=f"docker exec {proxy} cat /var/log/nginx/fox-avatar/fallback.log",
               AVATAR_HTTP3="1" if http3 else "0", AVATAR_PQ="1" if pq else "0",
               AVATAR_CLIENT_NETWORK=network, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tools")]),
               # Every part the suite needs is there in a scenario: a skipped test is a failure, so a
               # verifier cannot pass with the suite skipped (tests/conftest.py), CI or not.
               CI="true")
    log, t = workdir("logs") / f"{name}.log", time.monotonic()
    with log.open("w") as fh:
        rc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rfEs", "-p", "no:cacheprovider",
                             "tests/stack"], cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT,
                            check=False).returncode
    run = Run(name, rc, log, time.monotonic() - t)
    print(f"shared HTTP suite {name}: exit {rc}, {run.seconds:.0f} s", file=sys.stderr)
    return run


def pytest_tail(run: Run, lines: int = 25) -> str:
    """The end of a pytest run's log (its failures and summary), for assertion messages."""
    return f"--- {run.name}: exit {run.rc}, log {run.log}\n" + "\n".join(run.text.splitlines()[-lines:])


_CLIENT: list[str] = []


def trixie_client_image() -> str:
    """local/fox-trixie-client:TAG (tools/docker.sh trixie_client_ready builds it once)."""
    if not _CLIENT:
        out = subprocess.run(["bash", "-c", ". tools/docker.sh && trixie_client_ready"], cwd=REPO,
                             capture_output=True, text=True, check=True).stdout.split()
        _CLIENT.append(out[-1])
    return _CLIENT[0]


def trixie_client(network: str, ca: str | Path, *cmd: str) -> subprocess.CompletedProcess:
    """Debian 13's clients (curl with HTTP/3, OpenSSL 3.5) on the network, the CA as /ca.pem."""
    return subprocess.run(["docker", "run", "--rm", "--network", network, "-v", f"{ca}:/ca.pem:ro",
                           trixie_client_image(), *cmd], capture_output=True, text=True, check=False)


def https(addr: str, site: str, path: str, ca: str | Path, *curl_args: str) -> tuple[str, str]:
    """(status code, response headers) of GET https://SITE/PATH at ADDR, verified against CA."""
    res = subprocess.run(["curl", "-s", "-o", "/dev/null", "-D", "-", "-w", "%{http_code}",
                          "--cacert", str(ca), "--resolve", f"{site}:443:{addr}",
                          f"https://{site}{path}", *curl_args],
                         capture_output=True, text=True, check=False)
    # text mode has turned each \r\n into \n: the headers end at the last blank line
    head, _, code = res.stdout.replace("\r\n", "\n").rpartition("\n\n")
    return code.strip() or "000", head


# Lines of Ansible's log file: "2026-11-24 00:53:50,650 p=28946 u=root n=ansible INFO| text"; a
# message of several lines continues without the prefix.
_LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ p=(\d+) u=\S+ n=\S+ \w+\| ?(.*)$")


def first_converge() -> Run:
    """Molecule's converge step: the first site.yml run (its pre-flight play) after Molecule's last
    create, in the log every playbook of the scenario appends to. A scenario that reads it sets, in
    molecule.yml, provisioner.env.ANSIBLE_LOG_PATH: ${MOLECULE_EPHEMERAL_DIRECTORY}/ansible.log
    (Molecule keeps its converge's output to itself). The exit code is not in the log: rc 0 is
    Molecule's word (a failed converge stops the sequence); the recap and the lines are the log's.
    FROM_REPO: the first run of converge-repo.yml's (its own log, converge-1, which prepare.yml's
    new copy starts again from)."""
    if FROM_REPO:
        log = workdir("logs") / "converge-1.log"
        assert log.is_file(), f"no {log}: has Molecule's converge (converge-repo.yml) run?"
        return Run("molecule converge (the README's commands)", 0, log, 0.0)
    log = Path(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "ansible.log")
    runs: dict[str, list[str]] = {}
    pid = None
    for line in log.read_text(errors="replace").splitlines():
        m = _LOG_LINE.match(line)
        if m:
            pid, line = m[1], m[2]
        if pid:
            runs.setdefault(pid, []).append(line)
    converge = None
    for lines in runs.values():   # in the order the runs started
        if "PLAY [Create] " in "\n".join(lines[:3]):   # Molecule's create: fresh hosts again
            converge = None
        elif converge is None and any(line.startswith("PLAY [Pre-flight checks") for line in lines):
            converge = lines
    assert converge, f"no run of site.yml after the hosts' creation in {log}: has Molecule's converge run?"
    out = workdir("logs") / "molecule-converge.log"
    out.write_text("\n".join(converge) + "\n")
    return Run("molecule converge", 0, out, 0.0)


def _main(argv: list[str]) -> int:
    """The default scenario's playbooks with FOX_FROM=repo (prepare.yml, converge-repo.yml)."""
    if argv[:1] == ["prepare-repo"] and len(argv) == 2:
        copy = fromrepo.make_copy(argv[1])
        for old in workdir("logs").glob("converge-*.log"):   # the fresh host's first converge is converge-1
            old.unlink()
        print(f"the working tree copied to {copy}, with ansible/inventory.yml for {argv[1]}")
        return 0
    if argv == ["converge"]:
        n = 1 + len(list(workdir("logs").glob("converge-*.log")))
        run = playbook(f"converge-{n}")
        print(run.excerpt())
        print(json.dumps({"rc": run.rc, "changed": sum(r["changed"] for r in run.recap.values()), "log": str(run.log)}))
        return run.rc
    print(f"usage: {sys.argv[0]} prepare-repo HOST | converge", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
