"""The benchmark's report is a function of the raw results alone: rendering the hand-made raw results of
fixture/bench.json into the pages of fixture/ gives exactly the pages of expected/ (made with the
benchmark before it was split into bench/foxbench/, then checked by hand). Nothing is measured here."""
import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "bench"))

from foxbench import report, sections  # noqa: E402


@pytest.fixture
def pages(tmp_path):
    for name in ("bench.md", "README.md"):
        shutil.copy(HERE / "fixture" / name, tmp_path / name)
    return tmp_path / "bench.md", tmp_path / "README.md"


def test_the_report_renders_from_raw_results_as_expected(pages):
    doc, readme = pages
    report.render(report.load_raw(HERE / "fixture" / "bench.json"), doc, readme)
    assert doc.read_text() == (HERE / "expected" / "bench.md").read_text()
    assert readme.read_text() == (HERE / "expected" / "README.md").read_text()


def test_a_saved_run_renders_the_same_as_the_fixture(pages, tmp_path):
    """What a run does: save each mode's raw results in the raw file, render its section from that file."""
    doc, readme = pages
    fixture = report.load_raw(HERE / "fixture" / "bench.json")
    raw_file = tmp_path / "bench.json"
    for key in ("soak", "results", "tuning"):
        report.save_raw(raw_file, key, fixture[key])
        report.render(report.load_raw(raw_file), doc, readme, keys=[key])
    assert raw_file.read_text().startswith('{"generated": "written by `make bench`')
    assert report.load_raw(raw_file) == {k: fixture[k] for k in report.SECTIONS}
    assert json.loads(raw_file.read_text())["results"] == fixture["results"]
    assert doc.read_text() == (HERE / "expected" / "bench.md").read_text()
    assert readme.read_text() == (HERE / "expected" / "README.md").read_text()


def test_smoke_results_say_so(pages):
    doc, readme = pages
    raw = report.load_raw(HERE / "fixture" / "bench.json")
    raw["results"]["mode"] = "smoke"
    report.render(raw, doc, readme, keys=["results"])
    assert sections.SMOKE_RESULTS_NOTE in doc.read_text()
    assert sections.SMOKE_RESULTS_NOTE in readme.read_text()


def test_a_missing_marker_is_an_error(tmp_path):
    doc = tmp_path / "bench.md"
    doc.write_text("no markers here\n")
    with pytest.raises(ValueError, match="bench:tuning"):
        report.render(report.load_raw(HERE / "fixture" / "bench.json"), doc, tmp_path / "README.md",
                      keys=["tuning"])


def test_the_committed_pages_have_every_section_marker(tmp_path):
    """docs/bench.md and the README take every section: rendering the fixture into copies of them works."""
    doc, readme = tmp_path / "bench.md", tmp_path / "README.md"
    shutil.copy(ROOT / "docs" / "bench.md", doc)
    shutil.copy(ROOT / "README.md", readme)
    bodies = report.render(report.load_raw(HERE / "fixture" / "bench.json"), doc, readme)
    assert sorted(bodies) == sorted(report.SECTIONS)
    assert sections.readme_section(report.load_raw(HERE / "fixture" / "bench.json")["results"]) in readme.read_text()
