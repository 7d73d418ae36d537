"""The image set's one owner (imageset): the Ansible collection links its files and the built collection
carries them, so its filters run it without this repository; its swap-in keeps exactly the listed files."""
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from imageset import read_manifest
from imageset.files import swap_in
from imageset.nginx import template_data

ROOT = Path(__file__).resolve().parents[2]
OWNER = ROOT / "imageset"
LINKS = ROOT / "ansible/plugins/plugin_utils/imageset"


def test_the_collection_links_each_owner_module_its_filters_import():
    links = sorted(p.name for p in LINKS.iterdir())
    assert links, LINKS
    for name in links:
        link = LINKS / name
        assert link.is_symlink() and link.resolve() == OWNER / name, f"{link} is not a link to {OWNER / name}"
    # every module a linked module imports (relatively) is linked too
    for name in links:
        for line in (OWNER / name).read_text().splitlines():
            if line.startswith("from ."):
                assert line.split()[1][1:] + ".py" in links, f"{name} imports {line.split()[1]}, not linked"


@pytest.fixture(scope="module")
def built_collection(tmp_path_factory):
    """The collection as users get it: ansible-galaxy collection build ansible/, extracted."""
    tmp = tmp_path_factory.mktemp("collection")
    galaxy = Path(sys.executable).with_name("ansible-galaxy")
    if not galaxy.exists():
        pytest.skip("ansible-galaxy is not in the venv (tools/requirements.txt installs it)")
    subprocess.run([str(galaxy), "collection", "build", str(ROOT / "ansible"), "--output-path", str(tmp)],
                   check=True, capture_output=True)
    tarball, = tmp.glob("fox_avatar-deploy-*.tar.gz")
    root = tmp / "ansible_collections/fox_avatar/deploy"
    with tarfile.open(tarball) as tar:
        tar.extractall(root, filter="data")
    return tmp


def test_the_built_collections_filters_run_the_owner_without_the_repository(built_collection):
    code = ("import sys, json; sys.path.insert(0, sys.argv[1]);"
            "from ansible_collections.fox_avatar.deploy.plugins.filter.image_set import FilterModule;"
            "f = FilterModule().filters();"
            "print(json.dumps([f['image_set'](sys.argv[2]), f['image_set_files'](sys.argv[2]),"
            " f['image_set_problem'](sys.argv[2]), f['image_set_problem'](sys.argv[1])]))")
    # not the repository on the path: only the extracted collection
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, "-c", code, str(built_collection), str(ROOT / "images")],
                         check=True, capture_output=True, text=True, cwd=built_collection, env=env)
    import json
    data, files, problem, missing = json.loads(out.stdout)
    m = read_manifest(ROOT / "images")
    assert data == template_data(m)
    assert files == m.paths() + ["manifest.tsv"]  # the manifest last: a set that has it is whole
    assert problem == ""
    assert "manifest.tsv: No such file or directory" in missing and "\n" not in missing


def set_of(directory):
    return sorted(str(p.relative_to(directory)) for p in Path(directory).rglob("*") if p.is_file())


def test_swap_in_replaces_the_set_and_removes_only_what_the_old_one_listed(tmp_path):
    out, scratch = tmp_path / "out", tmp_path / "scratch"
    for path in ["manifest.tsv"] + read_manifest(ROOT / "images").paths():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / "images" / path, out / path)
    (out / "draw.sh").write_text("a script\n")                 # not the set's: stays
    m = read_manifest(out)
    # the new set: the old one without picture 21 (its files and its legacy name)
    keep = [e for e in m.images + m.legacy if e.fox != 21]
    scratch.mkdir()
    (scratch / "a").mkdir()
    lines = [line for line in (out / "manifest.tsv").read_text().splitlines(keepends=True)
             if not line.startswith(("image\t", "legacy\t")) or line.split("\t")[2] != "21"]
    lines = [line.replace(" 21", " 20") if line.startswith("buckets\t") else line for line in lines]
    (scratch / "manifest.tsv").write_text("".join(lines))
    for e in keep:
        (scratch / e.path).write_bytes((out / e.path).read_bytes())
    before = (out / keep[0].path).stat().st_mtime_ns
    swap_in(scratch, out)
    assert set_of(out) == sorted(["draw.sh", "manifest.tsv"] + [e.path for e in keep])
    assert (out / keep[0].path).stat().st_mtime_ns == before, "an unchanged file was replaced"
