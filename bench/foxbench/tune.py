"""TUNE=1: the sidecar alone under JVM flag sets and Undertow settings (the numbers behind
app/jvm.options). Each set is started fresh in every round (the rounds alternate the sets), its /metrics
listener on as deployed: start-up to the first 302, a warm-up, wrk at each concurrency, a scrape of
/metrics, then memory (RSS, PSS, the anonymous part) and threads; under Epsilon, the bytes allocated per
request. Then where the memory goes (footprint.py): NMT's summary and the RSS of each kind of mapping, for
the shipped flags. Returns the raw results of the tuning section."""
import re
import subprocess
import time

from . import footprint
from .candidates import SidecarMetrics, java_cmd
from .load import TOOLS, med
from .processes import anonymous_kb, free_port, log, memory_kb, spawn, stop, threads, wait_302
from .settings import CONCS, HOST, JVM_OPTIONS, ROUNDS, SMOKE, TUNE_DURATION, TUNE_WARMUP

# The modules both deployments' runtimes have and the service needs (app/Dockerfile's jlink list minus
# java.management, which only the JVM metrics and XNIO's and jboss-threads' optional MBeans touch).
LIMIT_MODULES = "--limit-modules=java.base,java.logging,java.security.sasl,jdk.unsupported"
# app/jvm.options of an earlier release, for the before/after row.
OLD_FLAGS = ["-Xms8m", "-Xmx16m", "-Xss256k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-XX:ReservedCodeCacheSize=16m", "-XX:MaxMetaspaceSize=32m", "-XX:+ExitOnOutOfMemoryError",
            "--limit-modules=java.base,java.logging,java.management,java.security.sasl,jdk.management,jdk.unsupported"]
# The JDK's own MBean server builder: the platform MBean server as before (NoMBeanServer steps aside
# when the property is given), and with it XNIO's and jboss-threads' MBeans; slf4j-simple's date as before.
WITH_MBEANS = ["-Djavax.management.builder.initial=javax.management.MBeanServerBuilder"]
WITH_LOG_DATE = ["-Dorg.slf4j.simpleLogger.showDateTime=true",
                 "-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSSXXX"]


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
    heap = ["-Xmx", "-Xms", "-Xmn"]
    v = [("shipped", "app/jvm.options as committed", sh, {}, None),
         ("defaults", "no flags (JVM ergonomics)", [], {}, None),
         ("original", "-Xmx8m -Xss256k (the original)", ["-Xmx8m", "-Xss256k"], {}, None),
         ("old", "the earlier flags, the MBean server and the log's date",
          OLD_FLAGS + WITH_MBEANS + WITH_LOG_DATE, {}, None),
         ("mbeans", "shipped, with the platform MBean server", sh + WITH_MBEANS, {}, None),
         ("logdate", "shipped, with slf4j-simple's date", sh + WITH_LOG_DATE, {}, None),
         ("heap27", "shipped, the earlier heap (-Xms8m -Xmx16m, the JVM sizes the young generation)",
          replace(sh, heap, ["-Xms8m", "-Xmx16m"]), {}, None),
         ("g1", "shipped, G1 instead", replace(sh, gc, ["-XX:+UseG1GC"]), {}, None),
         ("epsilon", "shipped, Epsilon (no GC) with -Xms1g -Xmx1g",
          replace(sh, gc + heap, ["-XX:+UnlockExperimentalVMOptions", "-XX:+UseEpsilonGC", "-Xms1g", "-Xmx1g"]),
          {}, None)]
    for key, flag, prefixes in [("tiered", "-XX:TieredStopAtLevel=1", ["-XX:TieredStopAtLevel"]),
                                ("trim", "-XX:TrimNativeHeapInterval=1000", ["-XX:TrimNativeHeapInterval"]),
                                ("compile", "-XX:CompileThresholdScaling=10", ["-XX:CompileThresholdScaling"]),
                                ("strings", "-XX:StringTableSize=4096", ["-XX:StringTableSize"])]:
        f, label = toggle(sh, flag, prefixes)
        v.append((key, "shipped, " + label, f, {}, None))
    f, label = toggle(sh, LIMIT_MODULES, ["--limit-modules"])
    v.append(("modules", "shipped, " + label + " (the JDK's CDS archive)", f, {}, None))
    if appcds:  # CDS needs the full module graph: without --limit-modules
        v.append(("appcds", "shipped without --limit-modules, + AppCDS archive of the app's classes",
                  no_limit(sh) + [f"-XX:SharedArchiveFile={appcds}"], {}, None))
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


class Tuned(SidecarMetrics):
    """A flag set: the jar as deployed (the /metrics listener on, scraped before memory is read), the plain `/`."""

    def __init__(self, ws, key, name, flags, env, io_threads):
        super().__init__(ws)
        self.key, self.name, self.flags, self.env, self.io_threads = key, name, flags, env, io_threads
        self.targets = self.targets[:1]


def run(ws, m):
    cands = [Tuned(ws, k, n, f, e, io) for k, n, f, e, io in variants(make_appcds(ws))]
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
                c.scrape()
                time.sleep(0.5)
                pids = c.pids()
                c.mems.append(memory_kb(pids) + (threads(pids), anonymous_kb(pids)))
                log(f"round {r + 1}/{ROUNDS} {c.key}: start {c.startups[-1]:.3f} s, " +
                    ", ".join(f"c={k} {t.runs[k][-1]['rps']:,.0f} req/s" for k in CONCS) +
                    f", RSS {c.mems[-1][0] / 1024:.1f} MB")
                if not c.alive():
                    raise RuntimeError(f"{c.key} died:\n{c.logs()}")
            finally:
                c.stop()
    res = {"machine": m, "mode": "smoke" if SMOKE else "full", "duration_s": TUNE_DURATION, "rounds": ROUNDS,
           "concurrency": CONCS, "epsilon_bytes_per_request": alloc, "metrics": True, "sets": [],
           "footprint": where_it_goes(ws)}
    for c in cands:
        t = c.targets[0]
        res["sets"].append({"key": c.key, "name": c.name, "flags": c.flags, "env": c.env, "io_threads": c.io_threads,
                            "conc": {str(k): t.summary(k) for k in CONCS},
                            "runs": {str(k): v for k, v in t.runs.items()},
                            "rss_kb": med([x[0] for x in c.mems]), "pss_kb": med([x[1] for x in c.mems]),
                            "threads": med([x[2] for x in c.mems]), "anon_kb": med([x[3] for x in c.mems]),
                            "startup_s": med(c.startups), "startup_cpu_s": med(c.startup_cpus)})
    return res


def where_it_goes(ws):
    """The shipped flags once more, with Native Memory Tracking: after the load at the highest concurrency and
    a scrape, NMT's summary and the RSS of each kind of mapping (footprint.py)."""
    c = Tuned(ws, "nmt", "shipped + NMT", shipped_flags() + ["-XX:NativeMemoryTracking=summary"], {}, None)
    try:
        c.start()
        c.targets[0].load(max(CONCS), TUNE_DURATION)
        c.scrape()
        time.sleep(0.5)
        pid = c.procs[0].pid
        fp = footprint.measure(pid, ["jcmd", str(pid)])
        fp["rss_kb"], fp["anon_kb"] = memory_kb([pid])[0], anonymous_kb([pid])
        fp["java"] = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
        return fp
    finally:
        c.stop()
