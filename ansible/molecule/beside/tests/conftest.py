"""The beside scenario's verifier: one Debian 12 host in every group, the owner's sites beside ours,
the role from the collection's tarball as docs/ansible.md builds and installs it."""
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1] / "shared"), str(HERE.parents[3] / "tests" / "lib"),
                str(HERE.parents[3]), str(HERE.parents[3] / "tests")]

import docblocks  # noqa: E402
import foxmol  # noqa: E402
from foxmol import addr, host  # noqa: E402,F401 (the shared fixtures)

SITE = "avatar.test"


@pytest.fixture(scope="session")
def collection():
    """docs/ansible.md's tarball block as written, in a HOME with the checkout and the venv its first
    block makes (this working tree; the test layer's venv); the collections directory it installed."""
    home = foxmol.workdir("home")
    subprocess.run(["git", "clone", "-q", str(docblocks.snapshot()), str(home / "fox-avatar")], check=True)
    (home / ".venvs").mkdir()
    (home / ".venvs" / "ansible").symlink_to(foxmol.REPO / ".venv")
    run = foxmol.docs_block("docs-collection", "docs/ansible.md", "ansible-galaxy collection install", home, {"HOME": str(home)})
    assert run.rc == 0, foxmol.tail(run)
    return home / ".ansible" / "collections"


def converge(name, collection, *args, extra_vars=None):
    """The installed collection's playbook (the only fox_avatar.deploy on the collections path; the
    connection to the test host is the Ansible package's community.docker)."""
    return foxmol.playbook(name, *args, site="fox_avatar.deploy.site", extra_vars=extra_vars,
                           env={"ANSIBLE_COLLECTIONS_PATH": str(collection)})
