"""What the Molecule scenarios' verifiers share (each scenario's tests/conftest.py imports it).

  host, addr (fixtures)            the scenario's one test host (its platform) and its address
  wait_for(probe, timeout)         probe() until it answers something true
  playbook(name, *args, extra_vars=, env=, site=)   ansible/site.yml (or the installed collection's
                                   fox_avatar.deploy.site) against the scenario's inventory; a Run
  Run                              rc, log, recap, clean, unchanged, excerpt()
  docker(), host_exec(), host_ip() the test hosts (containers)
  https(addr, site, path, ca)      (status, headers) of one HTTPS GET from this machine
  stack_suite(...)                 the shared HTTP suite (tests/stack, AVATAR_STACK=external)
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

import pytest

REPO = Path(__file__).resolve().parents[3]
RECAP = re.compile(r"^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


@pytest.fixture(scope="session")
def host():
    return os.environ.get("FOX_MOLECULE_PREFIX", "foxmol") + "-" + os.environ["MOLECULE_SCENARIO_NAME"]


@pytest.fixture(scope="session")
def addr(host):
    return host_ip(host)


def wait_for(probe, timeout: float = 60, interval: float = 1):
    """probe() until it returns something true or TIMEOUT seconds pass; its last value."""
    deadline = time.monotonic() + timeout
    while not (value := probe()) and time.monotonic() < deadline:
        time.sleep(interval)
    return value


def inventory() -> str:
    return str(Path(os.environ["MOLECULE_INVENTORY_FILE"]).parent)


def workdir(*parts: str) -> Path:
    path = Path(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "verify", *parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass
class Run:
    name: str
    rc: int
    log: Path
    seconds: float

    @property
    def text(self) -> str:
        return self.log.read_text(errors="replace")

    @property
    def recap(self) -> dict[str, dict[str, int]]:
        return {m[1]: dict(zip(("ok", "changed", "unreachable", "failed"), map(int, m.groups()[1:])))
                for m in RECAP.finditer(self.text.partition("PLAY RECAP")[2])}

    @property
    def clean(self) -> bool:
        return self.rc == 0 and bool(self.recap) and all(r["failed"] == r["unreachable"] == 0 for r in self.recap.values())

    @property
    def unchanged(self) -> bool:
        return self.clean and all(r["changed"] == 0 for r in self.recap.values())

    def excerpt(self, lines: int = 60) -> str:
        """What changed or failed, under its task's title, and the recap: for assertion messages."""
        out, title = [], None
        for line in self.text.splitlines():
            if line.startswith(("TASK ", "RUNNING HANDLER ")):
                title = line
            elif line.startswith(("changed", "fatal", "failed", "[ERROR]", "ERROR")) or "stderr" in line:
                out += [title.rstrip("* ")] if title else []
                title = None
                out.append(line)
        return "\n".join([f"--- {self.name}: exit {self.rc}, {self.seconds:.0f} s, log {self.log}", *out[-lines:],
                          "PLAY RECAP " + self.text.partition("PLAY RECAP")[2].strip()])

    __str__ = excerpt


def user_env() -> dict:
    """This process's environment as a user's shell has it: none of Molecule's or the test layer's
    ANSIBLE_*, MOLECULE_* or venv."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANSIBLE_", "MOLECULE_", "VIRTUAL_ENV"))}
    env["PATH"] = ":".join(p for p in env["PATH"].split(":") if not p.startswith(str(REPO)))
    return env


def run(name: str, cmd: list[str], env: dict | None = None, cwd: Path | None = None, user: bool = False) -> Run:
    """A command (user: in a user's environment), its output in the scenario's logs/NAME.log."""
    log, start = workdir("logs") / f"{name}.log", time.monotonic()
    with log.open("w") as fh:
        rc = subprocess.run(cmd, cwd=cwd, env={**(user_env() if user else os.environ), **(env or {})}, stdout=fh,
                            stderr=subprocess.STDOUT).returncode
    result = Run(name, rc, log, time.monotonic() - start)
    print(f"{name}: exit {rc}, {result.seconds:.0f} s", file=sys.stderr)
    return result


def playbook(name: str, *args: str, extra_vars: dict | None = None, env: dict | None = None,
             site: str = "site.yml", hosts: str | None = None) -> Run:
    """site.yml (or the installed collection's fox_avatar.deploy.site) against the scenario's hosts;
    HOME the scenario's, for the control machine's cache of jars and image sets."""
    cmd = ["ansible-playbook", "-i", hosts or inventory(), site, *args, *(["-e", json.dumps(extra_vars)] if extra_vars else [])]
    return run(name, cmd, env={"ANSIBLE_CONFIG": str(REPO / "ansible" / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1",
                               "HOME": str(workdir("home")), **(env or {})}, cwd=REPO / "ansible")


def docker(*args: str, check: bool = True) -> str:
    res = subprocess.run(["docker", *args], capture_output=True, text=True, check=False)
    assert res.returncode == 0 or not check, f"docker {' '.join(args)}: exit {res.returncode}: {res.stderr}"
    return res.stdout.strip()


def host_exec(host: str, *cmd: str, check: bool = True) -> str:
    return docker("exec", host, *cmd, check=check)


def host_ip(host: str) -> str:
    return next(iter(json.loads(docker("inspect", "-f", "{{json .NetworkSettings.Networks}}", host)).values()))["IPAddress"]


def host_network(host: str) -> str:
    return next(iter(json.loads(docker("inspect", "-f", "{{json .NetworkSettings.Networks}}", host))))


def https(addr: str, site: str, path: str, ca: str | Path, *curl_args: str) -> tuple[str, str]:
    """(status, response headers) of GET https://SITE/PATH at ADDR, verified against CA."""
    res = subprocess.run(["curl", "-s", "-o", "/dev/null", "-D", "-", "-w", "%{http_code}", "--cacert", str(ca),
                          "--resolve", f"{site}:443:{addr}", f"https://{site}{path}", *curl_args],
                         capture_output=True, text=True, check=False)
    head, _, code = res.stdout.replace("\r\n", "\n").rpartition("\n\n")
    return code.strip() or "000", head


def header(head: str, name: str) -> str | None:
    found = [line.split(":", 1)[1].strip() for line in head.splitlines() if line.lower().startswith(name.lower() + ":")]
    return found[0] if found else None


def host_file(host: str, path: str) -> Path:
    """A file of a host, copied here (e.g. its certificate, for the clients)."""
    dest = workdir("files") / f"{host}-{Path(path).name}"
    dest.write_text(host_exec(host, "cat", path) + "\n")
    return dest


def stack_suite(name: str, *, site: str, addr: str, ca: str | Path, proxy: str, apps: list[str],
                http3: bool, pq: bool, network: str) -> Run:
    """The shared HTTP suite against ADDR as SITE over HTTPS (its fallback tests stop and start the
    services through docker exec). Every part it needs is there: a skipped test fails (CI=true)."""
    stop = " && ".join(f"docker exec {a} systemctl stop fox-avatar" for a in apps)
    start = " && ".join(f"docker exec {a} systemctl start fox-avatar" for a in apps)
    env = {"AVATAR_STACK": "external", "AVATAR_HOST": site, "AVATAR_ADDR": addr, "AVATAR_CA": str(ca),
           "AVATAR_APP_STOP": stop, "AVATAR_APP_START": start,
           "AVATAR_FALLBACK_LOG_CMD": f"docker exec {proxy} cat /var/log/nginx/fox-avatar/fallback.log",
           "AVATAR_HTTP3": "1" if http3 else "0", "AVATAR_PQ": "1" if pq else "0", "AVATAR_CLIENT_NETWORK": network,
           "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tools")]), "CI": "true"}
    return run(name, [sys.executable, "-m", "pytest", "-q", "-rfEs", "-p", "no:cacheprovider", "tests/stack"],
               env=env, cwd=REPO)


def docs_block(name: str, page: str, contains: str, cwd: Path, env: dict | None = None,
               hosts: dict | None = None, clone: bool = False) -> Run:
    """The first block of PAGE containing CONTAINS, run as written (tests/lib/docblocks.py) in a
    user's shell: none of Molecule's or the test layer's ANSIBLE_*, MOLECULE_* or venv."""
    sys.path.insert(0, str(REPO / "tests" / "lib"))
    import docblocks
    index = next(i for i, text in enumerate(docblocks.blocks(page)) if contains in text)
    cmd = [sys.executable, str(REPO / "tests" / "lib" / "docblocks.py"), "run", page, str(index), "--cwd", str(cwd),
           "--timeout", "2400", *(["--clone-from", str(docblocks.snapshot())] if clone else []),
           *[f"--host={name}={address}" for name, address in (hosts or {}).items()]]
    return run(name, cmd, env, user=True)


def tail(result: Run, lines: int = 25) -> str:
    return f"--- {result.name}: exit {result.rc}, log {result.log}\n" + "\n".join(result.text.splitlines()[-lines:])
