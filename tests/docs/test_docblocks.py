"""tests/lib/docblocks.py: the docs' shell blocks read, run as written, recorded and checked."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "lib"))
import docblocks  # noqa: E402

PAGE = """# A journey

Try it:

```sh
echo first > out.txt
```

1. Then, in a list:

   ```bash
   echo "second $SECOND" >> out.txt
   ```

```caddyfile
not shell
```

```sh
false
```
"""


@pytest.fixture
def page(tmp_path, monkeypatch):
    monkeypatch.setenv("DOCBLOCKS_CACHE", str(tmp_path / "records"))
    path = tmp_path / "journey.md"
    path.write_text(PAGE)
    return path


def test_blocks_are_the_shell_fences_in_order_without_their_indent(page):
    assert docblocks.blocks(page) == ["echo first > out.txt\n", 'echo "second $SECOND" >> out.txt\n', "false\n"]


def test_a_block_that_passes_is_recorded_and_check_sees_it_until_its_text_changes(page, tmp_path):
    assert docblocks.check([page]) == [f"{page}: its first block never ran to success "
                                       f"(no {docblocks._record_path(str(page), 0)})"]
    work = tmp_path / "work"
    work.mkdir()
    docblocks.run(page, 0, cwd=work)
    docblocks.run(page, 1, cwd=work, env={"SECOND": "two"})
    assert (work / "out.txt").read_text() == "first\nsecond two\n"
    assert docblocks.check([page]) == []
    page.write_text(PAGE.replace("echo first", "echo First"))
    assert "changed since it last ran" in docblocks.check([page])[0]


def test_a_failing_block_raises_and_is_not_recorded(page, tmp_path):
    with pytest.raises(docblocks.BlockFailed, match="block 2 failed"):
        docblocks.run(page, 2, cwd=tmp_path)
    assert not docblocks._record_path(str(page), 2).exists()


def test_the_cli_runs_a_block_and_fails_on_a_failing_one(page, tmp_path):
    cli = [sys.executable, str(ROOT / "tests/lib/docblocks.py"), "run", str(page)]
    assert subprocess.run(cli + ["--cwd", str(tmp_path)]).returncode == 0
    assert subprocess.run(cli + ["2", "--cwd", str(tmp_path)]).returncode == 1


def test_the_project_clone_url_clones_the_given_repository(tmp_path, monkeypatch):
    origin = tmp_path / "origin"
    subprocess.run(["git", "init", "-q", "-b", "main", str(origin)], check=True)
    (origin / "README.md").write_text("local\n")
    subprocess.run(["git", "-C", str(origin), "add", "."], check=True)
    subprocess.run(["git", "-C", str(origin), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
                   check=True)
    page = tmp_path / "clone.md"
    page.write_text("```sh\ngit clone https://github.com/fox-avatar/fox-avatar\n"
                    "git clone https://github.com/fox-avatar/fox-avatar.git again\n```\n")
    monkeypatch.setenv("DOCBLOCKS_CACHE", str(tmp_path / "records"))
    docblocks.run(page, cwd=tmp_path, clone_from=origin)
    assert (tmp_path / "fox-avatar/README.md").read_text() == "local\n"
    assert (tmp_path / "again/README.md").read_text() == "local\n"


def test_a_snapshot_holds_the_working_tree_uncommitted_files_included(tmp_path):
    snap = docblocks.snapshot(tmp_path / "snap.git")
    files = subprocess.run(["git", "-C", str(snap), "ls-tree", "-r", "--name-only", "main"],
                           capture_output=True, text=True, check=True).stdout.split()
    assert "tests/lib/docblocks.py" in files and "Makefile" in files


@pytest.mark.skipif(os.geteuid() != 0, reason="a private mount namespace needs root")
def test_a_server_name_resolves_to_the_test_host_inside_the_block_only(page, tmp_path):
    page.write_text("```sh\ngetent hosts avatar.example.org | grep -x '192.0.2.7 *avatar.example.org'\n```\n")
    docblocks.run(page, cwd=tmp_path, hosts={"avatar.example.org": "192.0.2.7"})
    assert "avatar.example.org" not in Path("/etc/hosts").read_text()


def test_journey_pages_are_the_readme_and_the_pages_its_journeys_section_links(tmp_path):
    (tmp_path / "README.md").write_text(
        "# x\n\n## Journeys\n\n- [Compose](docs/compose.md#top) or [Ansible](docs/ansible.md)\n"
        "* [Releases](docs/releases.md)\n\nSee [the bench](docs/bench.md).\n\n## Contributing\n\n"
        "- [Tests](tests/README.md)\n")
    pages = docblocks.journey_pages(tmp_path / "README.md")
    assert [Path(p).relative_to(tmp_path).as_posix() for p in pages] == [
        "README.md", "docs/compose.md", "docs/ansible.md", "docs/releases.md"]
    (tmp_path / "README.md").write_text("# x\n")
    with pytest.raises(docblocks.BlockFailed, match="no '## Journeys' section"):
        docblocks.journey_pages(tmp_path / "README.md")
