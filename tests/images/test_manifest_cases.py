"""The manifest table (manifest-cases.txt: what it holds and who else runs it) through the Python
owner: each case a real set, checked as the Nginx image build checks it, `python3 -m imageset check`."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from imageset import read_manifest

ROOT = Path(__file__).resolve().parents[2]
TABLE = Path(__file__).with_name("manifest-cases.txt")
REPEAT = re.compile(r"\{(\d+)\*(\d+)\}")


def cases():
    """[(name, expect, files, links, manifest bytes)] from the table."""
    out, case = [], None
    for line in TABLE.read_text(encoding="utf-8").split("\n"):
        if line.startswith("== "):
            case = {"name": line[3:], "files": [], "links": [], "parts": [], "eol": b"\n"}
            out.append(case)
        elif case is None or not line or line.startswith("#"):
            continue
        elif line.startswith("expect "):
            case["expect"] = line[len("expect "):]
        elif line.startswith("file "):
            case["files"].append(line[len("file "):])
        elif line.startswith("files "):
            case["files"] += line[len("files "):].split(" ")
        elif line.startswith("link "):
            case["links"].append(line[len("link "):].split(" "))
        elif line == "eol crlf":
            case["eol"] = b"\r\n"
        elif line == "|" or line.startswith("| "):
            text = REPEAT.sub(lambda m: " ".join([m[1]] * int(m[2])), line[2:].replace("→", "\t"))
            case["parts"].append(("text", text))
        elif line.startswith("% "):
            case["parts"].append(("bytes", bytes.fromhex(line[2:])))
        else:
            raise AssertionError(f"{TABLE.name}: cannot read {line!r}")
    for c in out:
        c["manifest"] = b"".join(p.encode("utf-8") + c["eol"] if kind == "text" else p for kind, p in c["parts"])
    return out


CASES = cases()


def make_set(tmp_path, case):
    """The case's set in tmp_path/set, beside a file tmp_path/outside.png that no set may list."""
    (tmp_path / "outside.png").write_bytes(b"outside")
    d = tmp_path / "set"
    d.mkdir()
    for path in case["files"]:
        (d / path).parent.mkdir(parents=True, exist_ok=True)
        (d / path).write_text(path, encoding="utf-8")
    for path, target in case["links"]:
        (d / path).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, d / path)
    (d / "manifest.tsv").write_bytes(case["manifest"])
    return d


def summary(m):
    """What a valid set read as, in the table's words."""
    return (f"{len(m.foxes)} pictures; ladder {' '.join(map(str, m.sizes))}; "
            f"formats {' '.join(f.ext for f in m.formats)}; keyed {m.keyed_max_age} {m.key_max_length}; "
            f"default {m.default_size}" + (f"; variants {v.directory} {v.prefix} {v.count} "
                                           f"{' '.join(map(str, v.sizes))}" if (v := m.variants) else ""))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_owner_gives_the_tables_verdict(tmp_path, case):
    d = make_set(tmp_path, case)
    run = subprocess.run([sys.executable, "-m", "imageset", "check", str(d)],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if case["expect"].startswith("ok "):
        assert (run.returncode, run.stderr) == (0, ""), run.stderr
        assert summary(read_manifest(d)) == case["expect"][len("ok "):]
    else:
        want = case["expect"][len("refused "):]
        assert run.returncode == 1, f"accepted: {run.stdout}"
        assert "Traceback" not in run.stderr, run.stderr
        assert len(run.stderr.splitlines()) == 1 and run.stderr.endswith("\n"), f"not one line: {run.stderr!r}"
        assert want in run.stderr, run.stderr
