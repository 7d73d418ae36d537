"""The keyed identities' budgets: images/identities.py draws them into a fresh directory on every CPU
(as a Docker build or `make images` does), timed, and what it drew is measured: the bytes a browser
gets (the gzipped SVG, any size) and other clients (the PNGs), the files and their size on disk."""
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from .sections import generated_by, machine_line
from .settings import ROOT, SMOKE

KINDS = [("svg.gz", "SVG, gzipped (any size)", "a browser (`Accept` lists `image/svg+xml`)"),
         ("-64.png", "PNG 64 px", "any other client, up to 64 px"),
         ("-256.png", "PNG 256 px", "any other client, 65 to 256 px"),
         ("-512.png", "PNG 512 px", "any other client, above 256 px")]


def run(ws, m):
    cpus = set(range(os.cpu_count()))
    with tempfile.TemporaryDirectory(prefix="fox-bench-identities-") as out:
        before, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
        subprocess.run([sys.executable, str(ROOT / "images" / "identities.py"), out] + (["--only=1"] if SMOKE else []),
                       check=True, capture_output=True, timeout=3600, preexec_fn=lambda: os.sched_setaffinity(0, cpus))
        wall, after = time.monotonic() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
        files = [p for p in Path(out).rglob("*") if p.is_file()]
        sizes = {k: sorted(p.stat().st_size for p in files if p.name.startswith("Renard-") and p.name.endswith(k))
                 for k, *_ in KINDS}
        return {"mode": "smoke" if SMOKE else "full", "machine": m, "cpus": len(cpus), "wall_s": wall,
                "cpu_s": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
                "identities": len(sizes["svg.gz"]), "files": len(files), "bytes": sum(p.stat().st_size for p in files),
                "disk_kb": sum(p.stat().st_blocks for p in files) // 2,
                "sizes": {k: [v[0], median(v), v[-1]] for k, v in sizes.items()}}


def section(res):
    lines = [generated_by("make bench", res), "", f"Machine: {machine_line(res['machine'])}.", "",
             f"`images/identities.py` draws the {res['identities']:,} identities of the set, and `d=mp`'s and "
             f"`d=blank`'s pictures, into a new directory on {res['cpus']} CPUs: **{res['wall_s']:.0f} s** "
             f"({res['cpu_s']:.0f} s of CPU), {res['files']:,} files, {res['bytes'] / 1e6:.1f} MB "
             f"({res['disk_kb'] / 1024:.1f} MB on disk). The bytes of each identity's files, as sent (the budget "
             f"of a 64 px avatar for a browser: 1.5 KB):", "",
             "| File | Who gets it | smallest | median | largest |", "|---|---|--:|--:|--:|"]
    for k, name, who in (kind for kind in KINDS if kind[0] in res["sizes"]):   # the kinds the run drew
        lines.append(f"| {name} | {who} | " + " | ".join(f"{v:,.0f}" for v in res["sizes"][k]) + " |")
    return "\n".join(lines)
