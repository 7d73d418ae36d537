"""The repository path, as the README writes it: what a run with FOX_FROM=repo does instead of the
installed tarball's fox_avatar.deploy.site (tests/ansible/molecule.sh gives it to default:trixie).

A user has a clone of the repository, runs `make build` there, writes ansible/inventory.yml from
ansible/inventory.example.yml, and types the README's "Deploy with Ansible" commands with their own
ansible-playbook and their own environment: no ANSIBLE_CONFIG, no ANSIBLE_COLLECTIONS_PATH (ansible.cfg
is read from ansible/, the working directory; the roles are ansible/'s own, through ../collections/).

  make_copy(host)        (prepare.yml, through `foxmol.py prepare-repo HOST`) the copy of this working
                         tree in the scenario's ephemeral directory - the files a clone holds and this
                         tree's changes, without build output (.gitignore) - and its ansible/inventory.yml
                         for HOST: the example's one-server layout with the scenario's settings
  copy_dir()             where the copy is
  readme_commands()      the README's "Deploy with Ansible" commands, as written (its sh block,
                         comments dropped)
  command(*args)         bash running those commands in the copy, ARGS added to the ansible-playbook line
  user_env(extra)        the environment of a user's shell: this process's, without the ANSIBLE_* and
                         MOLECULE_* variables Molecule and the test runner set; EXTRA added
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[3]
# Set by the scenario's settings for the tarball only: a collection user names the jar and the image
# set (ansible/README.md, "The collection"); from the repository, the roles' defaults find them.
TARBALL_ONLY = ("fox_avatar_app_repo_dir", "fox_avatar_images_src")


def copy_dir() -> Path:
    return Path(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "repo")


def readme_commands() -> list[str]:
    """The lines of the sh block of the README's section "Deploy with Ansible", comments dropped:
    today `make build` and `cd ansible && ansible-playbook -i inventory.yml site.yml`."""
    text = (REPO / "README.md").read_text()
    section = text.partition("\n## Deploy with Ansible\n")[2].partition("\n## ")[0]
    block = re.search(r"^```sh\n(.*?)^```", section, re.M | re.S)
    assert block, "README.md: no sh block in the section 'Deploy with Ansible'"
    lines = [re.sub(r"(^|\s+)#.*$", "", line).strip() for line in block[1].splitlines()]
    lines = [line for line in lines if line]
    assert lines and re.search(r"\bansible-playbook\b", lines[-1]), \
        f"README.md, 'Deploy with Ansible': the last command is not ansible-playbook: {lines}"
    return lines


def command(*args: str) -> list[str]:
    """bash running the README's commands as written (in the copy, the working directory), the
    options ARGS added at the end of the ansible-playbook line; stops at the first that fails."""
    lines = readme_commands()
    lines[-1] = " ".join([lines[-1], *map(shlex.quote, args)])
    return ["bash", "-e", "-c", "\n".join(lines)]


def user_env(extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANSIBLE_", "MOLECULE_"))}
    env.update(extra or {})
    return env


def make_copy(host: str) -> Path:
    """The copy of the working tree (what `git ls-files` lists as tracked or untracked and not
    ignored, links as links) and its ansible/inventory.yml for HOST; any earlier copy replaced."""
    dest = copy_dir()
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                           capture_output=True, check=True).stdout.split(b"\0")
    # a tracked file deleted in the working tree is not in it
    present = [f for f in files if f and os.path.lexists(REPO / os.fsdecode(f))]
    pack = subprocess.Popen(["tar", "--null", "-T", "-", "-c"], cwd=REPO, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    unpack = subprocess.Popen(["tar", "-x", "-C", str(dest)], stdin=pack.stdout)
    pack.stdout.close()
    pack.communicate(b"\0".join(present))
    assert unpack.wait() == 0 and pack.returncode == 0, f"copying the working tree into {dest} failed"
    write_inventory(dest / "ansible", host)
    return dest


def write_inventory(ansible_dir: Path, host: str) -> Path:
    """inventory.yml as a user writes it from inventory.example.yml for one server reached as a
    container (ansible/README.md: the community.docker.docker connection, no sudo): the example's
    layout and TLS mode, HOST for its server, no SSH user, and the scenario's settings (molecule.yml's
    group_vars, as Molecule wrote them) but those only a collection user sets. A `monitoring` group
    (the example's commented block) when the scenario turns monitoring on."""
    inventory = yaml.safe_load((ansible_dir / "inventory.example.yml").read_text())
    settings = yaml.safe_load((Path(os.environ["MOLECULE_INVENTORY_FILE"]).parent / "group_vars" / "all").read_text())
    variables, groups = inventory["all"]["vars"], inventory["all"]["children"]
    del variables["ansible_user"]
    variables["ansible_connection"] = "community.docker.docker"
    variables.update({k: v for k, v in settings.items() if k not in TARBALL_ONLY})
    for group in ("avatar_proxies", "avatar_apps"):
        assert list(groups[group]["hosts"]) == ["avatar.example.org"], f"inventory.example.yml's {group}: {groups[group]}"
        groups[group]["hosts"] = {host: None}
    if variables.get("fox_avatar_monitoring_enabled"):
        groups["monitoring"] = {"hosts": {host: None}}
    path = ansible_dir / "inventory.yml"
    path.write_text("# Written by ansible/molecule/shared/fromrepo.py from inventory.example.yml.\n"
                    + yaml.safe_dump(inventory, sort_keys=False))
    return path
