"""The fresh scenario's verifier: this machine is the control machine the docs' blocks run on.

The blocks run as written (tests/lib/docblocks.py) in a HOME of their own, with avatar.example.org
resolving to the test server, `git clone` of the project cloning this working tree, and two stand-ins
first in PATH: `ssh` with this run's key (no known_hosts of this machine touched), and `sudo` (this
test runs as root already; apt then waits for another apt's lock, APT_CONFIG).
"""
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared"))
import foxmol  # noqa: E402
from foxmol import addr, host  # noqa: E402,F401 (the shared fixtures)

SITE = "avatar.example.org"


@pytest.fixture(scope="session")
def control():
    """The blocks' shell: {"env": ..., "home": HOME}."""
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
    return {"home": home, "env": {"HOME": str(home), "PATH": f"{bin_dir}:{foxmol.user_env()['PATH']}", "APT_CONFIG": str(work / "apt.conf"),
                                  "PIP_CACHE_DIR": str(foxmol.REPO / ".cache" / "pip"), "ANSIBLE_NOCOLOR": "1"}}


@pytest.fixture(scope="session")
def block(control, addr):
    """docs/ansible.md's first block, run as written; the checkout it made."""
    run = foxmol.docs_block("docs-ansible", "docs/ansible.md", "ansible-playbook", control["home"], control["env"],
                            hosts={SITE: addr}, clone=True)
    assert run.rc == 0, foxmol.tail(run, 60)
    return control["home"] / "fox-avatar"


@pytest.fixture(scope="session")
def behind_caddy(block, control, addr):
    """docs/behind-a-proxy.md's Ansible block, run as written after the first."""
    run = foxmol.docs_block("docs-behind-caddy", "docs/behind-a-proxy.md", "fox_avatar_tls_mode: proxy", control["home"],
                            control["env"], hosts={SITE: addr})
    assert run.rc == 0, foxmol.tail(run, 60)
