#!/usr/bin/env python3
"""fox-avatar's benchmark, started by bench/run.sh (its modes in docs/bench.md). A run saves its raw results
in docs/bench.json (a key per mode) and renders its section of docs/bench.md from that file; `--render`
renders the page again from it, measuring nothing."""
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parent / "tools")]   # foxbench, imageset/, tools/loopback.py

from foxbench import benchmark, connections, limits, report, soak  # noqa: E402
from foxbench.common import (CLIENT_CPU, CONNECTIONS, DOCS, RAW, SERVER_CPU, SMOKE, SOAK,  # noqa: E402
                             Workspace, describe, die, left_out, log)

# A mode's key in the raw file -> its section (between the markers bench:KEY in docs/bench.md).
SECTIONS = {"results": report.results_section, "soak": soak.section, "limits": limits.section,
            "connections": connections.section}


def load_raw(path):
    raw = json.loads(Path(path).read_text()) if Path(path).exists() else {}
    return {k: raw[k] for k in SECTIONS if k in raw}


def save_raw(path, key, data):
    """Set one mode's raw results in the file (the other modes' stay)."""
    note = "written by `make bench` and its modes (docs/bench.md); `make bench-report` renders docs/bench.md from it"
    body = json.dumps(dict(load_raw(path), **{key: data}), indent=1, sort_keys=True)
    Path(path).write_text('{"generated": ' + json.dumps(note) + ",\n" + body[1:].lstrip("\n") + "\n")


def put(doc, name, body):
    """Put body between <!-- NAME:begin --> and <!-- NAME:end --> in the Markdown file doc."""
    begin, end, text = f"<!-- {name}:begin -->", f"<!-- {name}:end -->", doc.read_text()
    if begin not in text or end not in text:
        raise ValueError(f"{doc}: {begin} / {end} markers missing")
    head, rest = text.split(begin, 1)
    doc.write_text(f"{head}{begin}\n{body.rstrip()}\n{end}{rest.split(end, 1)[1]}")


def render(raw, doc, keys=None):
    """Write the sections of raw (all, or those in keys) and the opening summary into doc; their bodies."""
    bodies = {key: SECTIONS[key](raw[key]) for key in keys or raw}
    for key, body in bodies.items():
        put(doc, f"bench:{key}", body)
    put(doc, "bench:summary", report.summary_section(raw))
    return bodies


def publish(key, data, out):
    """Save one run's raw results and render its section from the saved file: into docs/, or in a smoke into
    out only (a copy of docs/bench.md: a smoke never dirties the tree). Prints the section."""
    raw, doc = (out / "bench.json", out / "bench.md") if SMOKE else (RAW, DOCS / "bench.md")
    if SMOKE and not doc.exists():
        shutil.copy(DOCS / "bench.md", doc)
    save_raw(raw, key, data)
    print(render(load_raw(raw), doc, [key])[key])
    log(f"report: {doc}, {raw}")


def measure(out):
    ws, m = Workspace(), describe()
    log("machine:", report.machine_line(m))
    if CONNECTIONS:
        return publish("connections", connections.run(ws, m), out)
    if SOAK:
        res = soak.run(ws, m)
        publish("soak", res, out)
        return None if soak.figures(res)[3] else die("soak failed: see above")
    results, failed = benchmark.run(ws, m)
    publish("results", results, out)
    if limits.available():
        publish("limits", limits.run(ws, m), out)
    else:
        left_out(f"the memory limits: no app image {limits.IMAGE!r} (BENCH_APP_IMAGE)")
    if failed:
        die("requests failed or were not the expected status:\n  " + "\n  ".join(failed))


def main(args):
    if args == ["--render"]:
        render(load_raw(RAW), DOCS / "bench.md")
        return log(f"rendered {DOCS / 'bench.md'} from {RAW}")
    if args:
        die(f"usage: bench.py [--render]\n{__doc__}")
    os.sched_setaffinity(0, {CLIENT_CPU})   # the harness and the load generators; servers get SERVER_CPU
    if SERVER_CPU == CLIENT_CPU:
        log("WARNING: one CPU only: server and load generator share it")
    out = Path(tempfile.mkdtemp(prefix="fox-bench-smoke-")) if SMOKE else None
    log(f"the report: {out or DOCS}")
    t0 = time.monotonic()
    measure(out)
    log(f"done in {time.monotonic() - t0:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
