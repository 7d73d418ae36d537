#!/usr/bin/env python3
"""fox-avatar benchmark harness (issue 7), started by bench/run.sh; the code is the package bench/foxbench/.

Modes (environment):
  default          the full benchmark: every candidate, wrk c=10/100 in alternating rounds, ab, h2load,
                   memory, threads, start-up; issue 11's avatar URL beside the sidecar's `/` (plain and + Accept), the
                   bytes to show a 64 px avatar through the full stack; writes docs/bench.md, docs/bench.png
                   and the README section; then the JDK comparison (17, 21, 25; CDS, AppCDS, AOT cache,
                   bench/foxbench/jdks.py), the JDK section of docs/bench.md; then the compose app image
                   under memory limits (bench/foxbench/limits.py), its section.
  BENCH_SMOKE=1    seconds-long check that every candidate starts and answers and that the report renders;
                   asserts no timings; writes only to a temp dir (never docs/ or README).
  TUNE=1           JVM flag sets and Undertow settings for the sidecar alone; writes the tuning section of
                   docs/bench.md.
  BENCH_ONLY=K,K   a partial run: only those candidates (keys as in the report's raw rows: sidecar, stack,
                   ...), same rounds; saved as "partial" in the raw file, its own section; no JDK comparison.
  SOAK=1           10 million requests through the full stack, RSS sampled every few seconds; fails
                   unless memory stays flat and no request fails; writes the soak section of docs/bench.md.
  CONNECTIONS=1    issue 45's connections on the compose stack as shipped (bench/foxbench/tls_connections.py):
                   idle HTTPS/1.1 and HTTP/2 connections held (memory per connection, compose's memory limits
                   under that load), new TLS connections per second (full and resumed), a returning
                   visitor's resumption; a few minutes; writes the connections section of docs/bench.md.
                   BENCH_CONNECTIONS (5000): idle connections per protocol.
  BENCH_GATE=1     issue 36's regression gate (make bench-smoke): the sidecar against the JDK peer, its
                   allocation per request and its RSS, about 45 s; fails the build when one is off; writes
                   only to a temp dir.
Each run saves its raw results in docs/bench.json (SMOKE: in the temp dir) and renders its section from
that file; --render renders docs/bench.md, the README table and the charts again from it, measuring nothing.
Other knobs: BENCH_SERVER_CPU (1), BENCH_CLIENT_CPU (0), BENCH_IMAGES (images/), BENCH_OUT (output dir),
BENCH_DURATION, BENCH_ROUNDS, SOAK_REQUESTS, SOAK_MAX_MINUTES.

All traffic is on 127.0.0.1; every loop and wait is bounded.
"""
import argparse
import datetime
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parent / "tools")]   # foxbench, the image set (imageset/), the loopback stack (tools/)

from foxbench import benchmark, gate, jdks, limits, report, settings, soak, tls_connections, tune  # noqa: E402
from foxbench.workspace import Workspace  # noqa: E402
from foxbench.machine import describe  # noqa: E402
from foxbench.processes import die, log  # noqa: E402
from foxbench.sections import machine_line, table, targets_check  # noqa: E402
from foxbench.soak_report import soak_figures  # noqa: E402


def rerender(raw_file):
    if not raw_file.exists():
        die(f"{raw_file} missing: a run of `make bench` (TUNE=1, SOAK=1) writes it")
    with tempfile.TemporaryDirectory(prefix="fox-bench-render-") as work:
        report.render(report.load_raw(raw_file), settings.DOCS / "bench.md", settings.README,
                      work=work, png_dir=settings.DOCS)
    log(f"rendered from {raw_file}: {settings.DOCS / 'bench.md'}, {settings.README}, the charts in {settings.DOCS}")


def measure(out):
    ws = Workspace()
    m = describe()
    log("machine:", machine_line(m))
    if settings.GATE:
        res = gate.run(ws, m)
        (out / "gate.json").write_text(json.dumps(res, indent=1))
        print(gate.report(res))
        if not gate.passed(res):
            die("the regression gate failed: see the table above")
    elif settings.TUNE:
        print(report.publish("tuning", tune.run(ws, m), out, settings.SMOKE))
    elif settings.CONNECTIONS:
        print(report.publish("connections", tls_connections.run(ws, m), out, settings.SMOKE))
    elif settings.SOAK:
        res = soak.run(ws, m)
        print(report.publish("soak", res, out, settings.SMOKE))
        if not soak_figures(res)[3]:
            die("soak failed: see above")
    elif settings.ONLY:
        results, failed = benchmark.run(ws, m)
        print(report.publish("partial", results, out, settings.SMOKE))
        if failed:
            die("requests failed, were not 302 (200 for an image) or not redirected as issue 11 says:\n  "
                + "\n  ".join(failed))
    else:
        results, failed = benchmark.run(ws, m)
        report.publish("results", results, out, settings.SMOKE)
        print(table(results))
        print()
        print(targets_check(results))
        print(report.publish("jdks", jdks.run(ws, m), out, settings.SMOKE))
        if limits.available():
            print(report.publish("limits", limits.run(ws, m), out, settings.SMOKE))
        elif os.environ.get("CI") == "true":
            die(f"BENCH_APP_IMAGE: no image {limits.IMAGE!r} for the memory limits (bench/run.sh builds it)")
        else:
            log("the memory limits: no app image (BENCH_APP_IMAGE; bench/run.sh builds it with Docker): left out")
        if failed:
            die("requests failed, were not 302 or not redirected as issue 11 says:\n  " + "\n  ".join(failed))
    ws.close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--render", nargs="?", const=settings.RAW, type=Path, metavar="RAW.json",
                        help=f"render the report from raw results (default {settings.RAW.relative_to(settings.ROOT)})")
    args = parser.parse_args(argv)
    if args.render:
        return rerender(args.render)
    benchmark.check_only()
    os.sched_setaffinity(0, {settings.CLIENT_CPU})  # the harness and the load generators; servers get SERVER_CPU
    if settings.SERVER_CPU == settings.CLIENT_CPU:
        log("WARNING: one CPU only: server and load generator share it")
    if settings.SMOKE or settings.GATE:
        out = Path(tempfile.mkdtemp(prefix="fox-bench-gate-" if settings.GATE else "fox-bench-smoke-"))
    else:
        out = Path(os.environ.get("BENCH_OUT", settings.BENCH / "results" /
                                  datetime.datetime.now().strftime("%Y%m%d-%H%M%S")))
        out.mkdir(parents=True, exist_ok=True)
    log(f"output: {out}")
    t0 = time.monotonic()
    measure(out)
    log(f"done in {time.monotonic() - t0:.0f} s")


if __name__ == "__main__":
    main()
