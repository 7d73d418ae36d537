"""The fresh scenario's verifier: this machine is the control machine the docs' blocks run on.

The blocks run as written (tests/lib/docblocks.py) in a HOME of their own, with avatar.example.org
resolving to the test server, `git clone` of the project cloning this working tree, and two stand-ins
in PATH: `ssh` with this run's key (no known_hosts of this machine touched), and `sudo` (this test
runs as root already, and keeps APT_CONFIG: apt waits for another apt's lock).
"""
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1] / "shared"), str(HERE.parents[3] / "tests" / "lib")]

import docblocks  # noqa: E402
import foxmol  # noqa: E402

SITE = "avatar.example.org"


@pytest.fixture(scope="session")
def host():
    return os.environ.get("FOX_MOLECULE_PREFIX", "foxmol") + "-fresh"


@pytest.fixture(scope="session")
def addr(host):
    return foxmol.host_ip(host)


@pytest.fixture(scope="session")
def control():
    """The environment of the blocks' shell: {"env": ..., "home": HOME}."""
    work = foxmol.workdir("control")
    home, bin_dir = work / "home", work / "bin"
    home.mkdir(exist_ok=True)
    bin_dir.mkdir(exist_ok=True)
    key = Path(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "id_ed25519")
    (bin_dir / "ssh").write_text(f"#!/bin/sh\nexec /usr/bin/ssh -i {key} -o StrictHostKeyChecking=no "
                                 "-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \"$@\"\n")
    (bin_dir / "sudo").write_text('#!/bin/sh\nexec "$@"\n')
    (work / "apt.conf").write_text('DPkg::Lock::Timeout "900";\n')
    for tool in ("ssh", "sudo"):
        (bin_dir / tool).chmod(0o755)
    path = [p for p in os.environ["PATH"].split(":") if not p.startswith(str(foxmol.REPO))]   # not the test layer's venv
    env = {"HOME": str(home), "PATH": ":".join([str(bin_dir), *path]), "APT_CONFIG": str(work / "apt.conf"),
           "PIP_CACHE_DIR": str(foxmol.REPO / ".cache" / "pip"), "ANSIBLE_NOCOLOR": "1"}
    for name in [n for n in os.environ if n.startswith(("ANSIBLE_", "MOLECULE_", "VIRTUAL_ENV"))]:
        env[name] = ""   # the user's shell, not Molecule's
    return {"env": env, "home": home}


def run_block(page, index, control, addr):
    docblocks.run(page, index, cwd=control["home"], env=control["env"], clone_from=docblocks.snapshot(),
                  hosts={SITE: addr}, timeout=2400)


@pytest.fixture(scope="session")
def block(control, addr):
    """docs/ansible.md's first block, run as written; the checkout it made."""
    run_block("docs/ansible.md", 0, control, addr)
    return control["home"] / "fox-avatar"


@pytest.fixture(scope="session")
def behind_caddy(block, control, addr):
    """docs/behind-a-proxy.md's Ansible block, run as written after the first."""
    found = [i for i, text in enumerate(docblocks.blocks("docs/behind-a-proxy.md")) if "fox_avatar_tls_mode: proxy" in text]
    assert found, "docs/behind-a-proxy.md: no block with fox_avatar_tls_mode: proxy"
    run_block("docs/behind-a-proxy.md", found[0], control, addr)
