"""What Molecule's converge (the first run of site.yml on the fresh hosts) printed.

molecule.yml points ANSIBLE_LOG_PATH at the ephemeral directory: every playbook run of the scenario
(create, converge, idempotence, the verifiers' runs) appends there, each line naming its process.
"""
import os
import re
from pathlib import Path

LINE = re.compile(r"^\S+ \S+ p=(\d+) u=\S+ n=\S+ \w*\| ?(.*)$")


def playbook_runs(log: Path) -> list[list[str]]:
    """The log's runs, in order: from a process's first line to its last, the lines between."""
    lines = [m.groups() for m in map(LINE.match, log.read_text(errors="replace").splitlines()) if m]
    first, last = {}, {}
    for i, (pid, _) in enumerate(lines):
        first.setdefault(pid, i)
        last[pid] = i
    return [[text for _, text in lines[first[pid]:last[pid] + 1]]
            for pid in sorted(first, key=first.get)]


def first_converge() -> list[str]:
    """The first run of site.yml (its pre-flight play) after the hosts were created."""
    runs = playbook_runs(Path(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "ansible.log"))
    created = max((i for i, run in enumerate(runs) if "PLAY [Create] " in "\n".join(run)), default=-1)
    site = [run for run in runs[created + 1:]
            if any(line.startswith("PLAY [Pre-flight checks") for line in run)]
    assert site, "no run of site.yml after the hosts' creation in the log"
    return site[0]


def test_first_converge_succeeded_on_the_three_hosts():
    run = first_converge()
    recap = [line for line in run if re.match(r"^\S+\s+: ok=\d+", line)]
    assert len(recap) == 3 and all(re.search(r"unreachable=0\s+failed=0", line) for line in recap), \
        "\n".join(recap)


def test_first_converge_warns_about_nothing():
    warnings = [line for line in first_converge() if "[WARNING]" in line]
    assert warnings == []
