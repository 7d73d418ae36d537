#!/usr/bin/env python3
"""fox-avatar's benchmark, started by bench/run.sh (`make bench`); the code is the package bench/foxbench/.

Modes (environment; docs/bench.md has one section each):
  default          every candidate (wrk c=10/100 in alternating rounds, h2load, ab, memory, threads,
                   start-up; the avatar URL beside `/`; the bytes to show a 64 px avatar), then the JDK
                   comparison (jdks.py), the compose app image under memory limits (limits.py) and the
                   keyed identities' drawing and bytes (identities.py)
  BENCH_SMOKE=1    seconds: every candidate starts and answers, the report renders; nothing timed, output
                   in a temp dir only (`make bench-smoke`)
  TUNE=1           JVM flag sets and Undertow settings for the sidecar alone (the numbers behind app/jvm.options)
  BENCH_ONLY=K,K   a partial run of those candidates (keys of candidates.CANDIDATES), its own section
  SOAK=1           10 million requests through the full stack, memory sampled; then the compose app image
                   at compose's memory limit; fails unless memory stays flat and no request fails
  CONNECTIONS=1    the compose stack as shipped: idle HTTPS/1.1 and HTTP/2 connections held, new TLS
                   connections per second, resumption (tls_connections.py)
Each run saves its raw results in docs/bench.json and renders its section from that file; --render renders
docs/bench.md and the charts again from it, measuring nothing. Knobs: docs/bench.md.
All traffic is on 127.0.0.1; every loop and wait is bounded.
"""
import argparse
import datetime
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parent / "tools")]   # foxbench, the image set (imageset/), the loopback stack (tools/)

from foxbench import benchmark, identities, jdks, limits, report, settings, soak, tls_connections, tune  # noqa: E402
from foxbench.workspace import Workspace  # noqa: E402
from foxbench.machine import describe  # noqa: E402
from foxbench.processes import die, log  # noqa: E402
from foxbench.sections import machine_line, table, targets_check  # noqa: E402
from foxbench.soak_report import soak_figures  # noqa: E402


def rerender(raw_file):
    if not raw_file.exists():
        die(f"{raw_file} missing: a run of `make bench` (TUNE=1, SOAK=1) writes it")
    with tempfile.TemporaryDirectory(prefix="fox-bench-render-") as work:
        report.render(report.load_raw(raw_file), settings.DOCS / "bench.md", work=work, png_dir=settings.DOCS)
    log(f"rendered from {raw_file}: {settings.DOCS / 'bench.md'} and the charts in {settings.DOCS}")


def measure(out):
    ws = Workspace()
    m = describe()
    log("machine:", machine_line(m))
    if settings.TUNE:
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
            die("requests failed, were not 302 (200 for an image) or not redirected to the avatar URL's image:\n  "
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
        print(report.publish("identities", identities.run(ws, m), out, settings.SMOKE))
        if failed:
            die("requests failed, were not 302 or not redirected to the avatar URL's image:\n  " + "\n  ".join(failed))
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
    if settings.SMOKE:
        out = Path(tempfile.mkdtemp(prefix="fox-bench-smoke-"))
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
