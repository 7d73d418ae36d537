"""TUNE=1: the sidecar alone under JVM flag sets and Undertow settings (the numbers behind
app/jvm.options). Each set is started fresh in every round (the rounds alternate the sets): start-up to
the first 302, a warm-up, wrk at each concurrency, then memory and threads; under Epsilon, the bytes
allocated per request. Returns the raw results of the tuning section."""
import re
import subprocess
import time

from .candidates import Sidecar, java_cmd
from .load import TOOLS, med
from .processes import free_port, log, memory_kb, spawn, stop, threads, wait_302
from .settings import CONCS, HOST, JVM_OPTIONS, ROUNDS, SMOKE, TUNE_DURATION, TUNE_WARMUP

# The modules both deployments' runtimes have and the service needs (app/Dockerfile's jlink list minus
# java.management, which only XNIO's and jboss-threads' optional MBean registration touches).
LIMIT_MODULES = "--limit-modules=java.base,java.logging,java.security.sasl,jdk.unsupported"


def shipped_flags():
    return [line.strip() for line in JVM_OPTIONS.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def no_limit(flags):
    return [f for f in flags if not f.startswith("--limit-modules")]


def toggle(flags, flag, prefixes):
    """Remove the flag family when the shipped set has it, add `flag` when it has not: (flags, label)."""
    present = [f for f in flags if any(f.startswith(p) for p in prefixes)]
    if present:
        return [f for f in flags if f not in present], "without " + " ".join(present)
    return flags + [flag], "with " + flag


def replace(flags, prefixes, new):
    return [f for f in flags if not any(f.startswith(p) for p in prefixes)] + new


def variants(appcds):
    """(key, name, flags, env, io_threads) of each set; the shipped one first (the Δ RSS reference)."""
    sh = shipped_flags()
    gc = ["-XX:+UseSerialGC", "-XX:+UseG1GC", "-XX:+UseParallelGC", "-XX:+UseEpsilonGC",
          "-XX:+UnlockExperimentalVMOptions", "-XX:+UseZGC", "-XX:+UseShenandoahGC"]
    v = [("shipped", "app/jvm.options as committed", sh, {}, None),
         ("defaults", "no flags (JVM ergonomics)", [], {}, None),
         ("original", "-Xmx8m -Xss256k (the original)", ["-Xmx8m", "-Xss256k"], {}, None),
         ("g1", "shipped, G1 instead", replace(sh, gc, ["-XX:+UseG1GC"]), {}, None),
         ("epsilon", "shipped, Epsilon (no GC) with -Xms1g -Xmx1g",
          replace(sh, gc + ["-Xmx", "-Xms"], ["-XX:+UnlockExperimentalVMOptions", "-XX:+UseEpsilonGC",
                                               "-Xms1g", "-Xmx1g"]), {}, None),
         ("heap8", "shipped, -Xms8m -Xmx8m", replace(sh, ["-Xmx", "-Xms"], ["-Xms8m", "-Xmx8m"]), {}, None)]
    for key, flag, prefixes in [("tiered", "-XX:TieredStopAtLevel=1", ["-XX:TieredStopAtLevel"]),
                                ("codecache", "-XX:ReservedCodeCacheSize=16m", ["-XX:ReservedCodeCacheSize"]),
                                ("xss", "-Xss256k", ["-Xss"]),
                                ("perfdata", "-XX:-UsePerfData", ["-XX:-UsePerfData", "-XX:+UsePerfData"]),
                                ("noshare", "-Xshare:off", ["-Xshare"])]:
        f, label = toggle(sh, flag, prefixes)
        v.append((key, "shipped, " + label, f, {}, None))
    if appcds:  # CDS needs the full module graph: without --limit-modules
        v.append(("appcds", "shipped without --limit-modules, + AppCDS archive of the app's classes",
                  no_limit(sh) + [f"-XX:SharedArchiveFile={appcds}"], {}, None))
    f, label = toggle(sh, LIMIT_MODULES, ["--limit-modules"])
    v.append(("modules", "shipped, " + label, f, {}, None))
    v.append(("reloc0", "shipped + -XX:ArchiveRelocationMode=0 (CDS archive mapped, not relocated)",
              sh + ["-XX:+UnlockDiagnosticVMOptions", "-XX:ArchiveRelocationMode=0"], {}, None))
    v.append(("arena2", "shipped, env MALLOC_ARENA_MAX=2", sh, {"MALLOC_ARENA_MAX": "2"}, None))
    v.append(("io1", "shipped, --io-threads 1", sh, {}, 1))
    return v


def make_appcds(ws):
    """An AppCDS archive made by a training run (start, answer requests, stop): -XX:ArchiveClassesAtExit."""
    jsa = ws.tmp / "avatar.jsa"
    port = free_port()
    p = spawn(java_cmd(ws.images, no_limit(shipped_flags()) + [f"-XX:ArchiveClassesAtExit={jsa}"], port),
              ws.tmp / "appcds.log")
    try:
        wait_302(port, [p], time.monotonic())
        TOOLS["wrk"].run(f"http://{HOST}:{port}/", 10, 1)
    finally:
        stop(p, timeout=60)
    if not jsa.exists():
        log("WARNING: no AppCDS archive was written: " + (ws.tmp / "appcds.log").read_text()[-500:])
        return None
    return jsa


def heap_used_kb(pid):
    """Bytes allocated so far in an Epsilon heap (never collected): its top minus its bottom, in KB."""
    r = subprocess.run(["jcmd", str(pid), "GC.heap_info"], capture_output=True, text=True, timeout=30)
    m = re.search(r"\[0x([0-9a-f]+), 0x([0-9a-f]+), 0x([0-9a-f]+)\)", r.stdout)
    return (int(m.group(2), 16) - int(m.group(1), 16)) / 1024 if m else None


def run(ws, m):
    cands = [Sidecar(ws, flags=f, env=e, io_threads=io, key=k, name=n, avatar_url=False)
             for k, n, f, e, io in variants(make_appcds(ws))]
    for c in cands:
        c.startups, c.startup_cpus, c.mems = [], [], []
    alloc = None
    for r in range(ROUNDS):
        order = cands[r % len(cands):] + cands[:r % len(cands)]
        for c in order:
            try:
                c.startups.append(c.start())
                c.startup_cpus.append(c.start_cpu)
                t = c.targets[0]
                if TUNE_WARMUP:
                    t.load(max(CONCS), TUNE_WARMUP)
                for conc in CONCS:
                    t.timed(conc, TUNE_DURATION)
                if c.key == "epsilon" and alloc is None:
                    before = heap_used_kb(c.procs[0].pid)
                    res = t.load(10, TUNE_DURATION)
                    after = heap_used_kb(c.procs[0].pid)
                    if before is not None and after is not None and res["requests"]:
                        alloc = (after - before) * 1024 / res["requests"]
                time.sleep(0.5)
                pids = c.pids()
                c.mems.append(memory_kb(pids) + (threads(pids),))
                log(f"round {r + 1}/{ROUNDS} {c.key}: start {c.startups[-1]:.3f} s, " +
                    ", ".join(f"c={k} {t.runs[k][-1]['rps']:,.0f} req/s" for k in CONCS) +
                    f", RSS {c.mems[-1][0] / 1024:.1f} MB")
                if not c.alive():
                    raise RuntimeError(f"{c.key} died:\n{c.logs()}")
            finally:
                c.stop()
    res = {"machine": m, "mode": "smoke" if SMOKE else "full", "duration_s": TUNE_DURATION, "rounds": ROUNDS,
           "concurrency": CONCS, "epsilon_bytes_per_request": alloc, "sets": []}
    for c in cands:
        t = c.targets[0]
        res["sets"].append({"key": c.key, "name": c.name, "flags": c.flags, "env": c.env, "io_threads": c.io_threads,
                            "conc": {str(k): t.summary(k) for k in CONCS},
                            "runs": {str(k): v for k, v in t.runs.items()},
                            "rss_kb": med([x[0] for x in c.mems]), "pss_kb": med([x[1] for x in c.mems]),
                            "threads": med([x[2] for x in c.mems]), "startup_s": med(c.startups),
                            "startup_cpu_s": med(c.startup_cpus)})
    return res
