"""The report's files: the raw results and where the sections go. The raw results are one JSON file
(docs/bench.json for the committed report), one key per mode; a run saves its key and renders its
section from the saved file (publish), and `bench/bench.py --render` renders every section again from
it (render), nothing measured. What the sections say is sections.py's (the charts charts.py's); this module puts them between
their markers in docs/bench.md (and the results' summary in the README) and the charts beside it."""
import json
import shutil
from pathlib import Path

from . import charts, jdks, limits, sections, soak_report, tls_connections
from .processes import log
from .settings import DOCS, RAW, README

# A mode's key in the raw file -> its section's markers in docs/bench.md, how the section is written, its
# chart (None: none) and the chart's file name. The results also fill the README's markers.
SECTIONS = {"results": ("bench:results", sections.results_section, charts.results_chart, "bench.png"),
            "tuning": ("bench:tuning", sections.tuning_section, None, None),
            "soak": ("bench:soak", soak_report.soak_section, charts.soak_chart, "bench-soak.png"),
            "jdks": ("bench:jdks", jdks.section, None, None),
            "limits": ("bench:limits", limits.section, None, None),
            "partial": ("bench:partial", sections.partial_section, None, None),
            "connections": ("bench:connections", tls_connections.section, None, None)}
README_MARKERS = "bench"


# ---------------------------------------------------------------- the raw results file


def save_raw(path, key, data):
    """Set one mode's raw results in the file (the other modes' stay)."""
    raw = load_raw(path) if Path(path).exists() else {}
    raw[key] = data
    note = ("written by `make bench` (results, jdks, limits), `make bench TUNE=1` (tuning), `make bench SOAK=1` "
            "(soak), `make bench CONNECTIONS=1` (connections) and `BENCH_ONLY=KEY,... make bench` (partial); `bench/bench.py --render` renders docs/bench.md, the README table and the charts "
            "from it; do not edit by hand")
    body = json.dumps({k: raw[k] for k in SECTIONS if k in raw}, indent=1, sort_keys=True)
    Path(path).write_text('{"generated": ' + json.dumps(note) + ",\n" + body[1:].lstrip("\n") + "\n")


def load_raw(path=RAW):
    """The modes' raw results in the file, by key (other keys, such as the "generated" note, are left out)."""
    raw = json.loads(Path(path).read_text())
    return {k: raw[k] for k in SECTIONS if k in raw}


# ---------------------------------------------------------------- rendering


def replace_between(text, name, body):
    """text with body between <!-- NAME:begin --> and <!-- NAME:end -->; None when a marker is missing."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    if begin not in text or end not in text:
        return None
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{body.rstrip()}\n{end}{tail}"


def render(raw, doc, readme, work=None, png_dir=None, keys=None):
    """Write the sections of raw (all, or those in keys) between their markers in the Markdown file doc,
    the results' summary between the README's markers in readme (when that file exists); with work (a
    directory for the chart data), draw the charts there and copy them to png_dir when given. A missing
    marker in doc is an error; the sections' bodies are returned."""
    doc, readme = Path(doc), Path(readme)
    bodies = {}
    for key in keys or [k for k in SECTIONS if k in raw]:
        markers, section, chart, png = SECTIONS[key]
        bodies[key] = section(raw[key])
        text = replace_between(doc.read_text(), markers, bodies[key])
        if text is None:
            raise ValueError(f"{doc}: <!-- {markers}:begin/end --> markers missing")
        doc.write_text(text)
        if key == "results" and readme.exists():
            text = replace_between(readme.read_text(), README_MARKERS, sections.readme_section(raw[key]))
            if text is None:
                log(f"WARNING: markers <!-- {README_MARKERS}:begin/end --> missing in {readme}; section not written")
            else:
                readme.write_text(text)
        if chart and work:
            chart(raw[key], Path(work) / png, Path(work))
            if png_dir:
                shutil.copy(Path(work) / png, Path(png_dir) / png)
    return bodies


def publish(key, data, out, smoke):
    """Save one run's raw results and render its section from the saved file: into docs/ and the README,
    or with smoke into out only (copies of docs/bench.md and the README: CI never dirties the tree).
    out also gets the chart data and the raw results alone (KEY.json). Returns the section's text."""
    (out / f"{key}.json").write_text(json.dumps(data, indent=1))
    if smoke:
        raw, doc, readme, png_dir = out / "bench.json", out / "bench.md", out / "README.md", None
        shutil.copy(DOCS / "bench.md", doc)
        if README.exists():
            shutil.copy(README, readme)
    else:
        raw, doc, readme, png_dir = RAW, DOCS / "bench.md", README, DOCS
    save_raw(raw, key, data)
    body = render(load_raw(raw), doc, readme, work=out, png_dir=png_dir, keys=[key])[key]
    log(f"report: {doc}, {raw}, {readme}" + (f", {png_dir / SECTIONS[key][3]}" if png_dir and SECTIONS[key][3] else ""))
    return body
