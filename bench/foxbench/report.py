"""The report's files. The raw results are one JSON file (docs/bench.json), one key per mode; a run saves
its key and renders its section from the saved file (publish); `bench/bench.py --render` renders every
section again from it (render), measuring nothing. What a section says is sections.py's (charts.py draws
the charts); this module puts each between its markers in docs/bench.md and the charts beside it."""
import json
import shutil
from pathlib import Path

from . import charts, identities, jdks, limits, sections, soak_report, summary, tls_connections
from .settings import DOCS, RAW
from .processes import log

# A mode's key in the raw file -> its section's markers in docs/bench.md, how the section is written, its
# chart (None: none) and the chart's file name.
SECTIONS = {"results": ("bench:results", sections.results_section, charts.results_chart, "bench.png"),
            "tuning": ("bench:tuning", sections.tuning_section, None, None),
            "soak": ("bench:soak", soak_report.soak_section, charts.soak_chart, "bench-soak.png"),
            "jdks": ("bench:jdks", jdks.section, None, None),
            "limits": ("bench:limits", limits.section, None, None),
            "identities": ("bench:identities", identities.section, None, None),
            "partial": ("bench:partial", sections.partial_section, None, None),
            "connections": ("bench:connections", tls_connections.section, None, None)}
SUMMARY = "bench:summary"   # "What one core serves", from every mode's raw results (summary.py)


def save_raw(path, key, data):
    """Set one mode's raw results in the file (the other modes' stay)."""
    raw = load_raw(path) if Path(path).exists() else {}
    raw[key] = data
    note = "written by `make bench` and its modes (docs/bench.md); `make bench-report` renders docs/bench.md from it"
    body = json.dumps({k: raw[k] for k in SECTIONS if k in raw}, indent=1, sort_keys=True)
    Path(path).write_text('{"generated": ' + json.dumps(note) + ",\n" + body[1:].lstrip("\n") + "\n")


def load_raw(path=RAW):
    """The modes' raw results in the file, by key (the "generated" note left out)."""
    raw = json.loads(Path(path).read_text())
    return {k: raw[k] for k in SECTIONS if k in raw}


def replace_between(text, name, body):
    """text with body between <!-- NAME:begin --> and <!-- NAME:end -->; None when a marker is missing."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    if begin not in text or end not in text:
        return None
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{body.rstrip()}\n{end}{tail}"


def render(raw, doc, work=None, png_dir=None, keys=None):
    """Write the sections of raw (all, or those in keys) between their markers in the Markdown file doc; with
    work (a directory for the chart data), draw the charts there and copy them to png_dir when given. A
    missing marker is an error. Returns the sections' bodies."""
    doc = Path(doc)
    bodies = {}
    for key in keys or [k for k in SECTIONS if k in raw]:
        markers, section, chart, png = SECTIONS[key]
        bodies[key] = section(raw[key])
        text = replace_between(doc.read_text(), markers, bodies[key])
        if text is None:
            raise ValueError(f"{doc}: <!-- {markers}:begin/end --> markers missing")
        doc.write_text(text)
        if chart and work:
            chart(raw[key], Path(work) / png, Path(work))
            if png_dir:
                shutil.copy(Path(work) / png, Path(png_dir) / png)
    # the opening summary quotes several modes: rendered again whenever any of them is
    text = replace_between(doc.read_text(), SUMMARY, summary.summary_section(raw))
    if text is None:
        raise ValueError(f"{doc}: <!-- {SUMMARY}:begin/end --> markers missing")
    doc.write_text(text)
    return bodies


def publish(key, data, out, smoke):
    """Save one run's raw results and render its section from the saved file: into docs/, or with smoke into
    out only (a copy of docs/bench.md: a smoke run never dirties the tree). out also gets the chart data
    and the raw results alone (KEY.json). Returns the section's text."""
    (out / f"{key}.json").write_text(json.dumps(data, indent=1))
    if smoke:
        raw, doc, png_dir = out / "bench.json", out / "bench.md", None
        shutil.copy(DOCS / "bench.md", doc)
    else:
        raw, doc, png_dir = RAW, DOCS / "bench.md", DOCS
    save_raw(raw, key, data)
    body = render(load_raw(raw), doc, work=out, png_dir=png_dir, keys=[key])[key]
    log(f"report: {doc}, {raw}" + (f", {png_dir / SECTIONS[key][3]}" if png_dir and SECTIONS[key][3] else ""))
    return body
