"""BENCH_GATE=1 (make bench-smoke, the last layer of make test): issue 36's regression gate, a load test that
fails the build when a change makes the sidecar slower or fatter. It asserts no absolute time, only what a
noisy 2-core machine cannot move:

- speed: the sidecar's req/s over the JDK peer's (bench/baseline/Baseline.java, the `baseline` candidate)
  in the same run, on the same core, in alternating rounds, medians; a sleep or a lock on the request path
  drops the ratio, a busy neighbour drops both;
- allocation: the bytes the sidecar allocates per request of the avatar URL, from its own /metrics (young
  collections times the eden's size, plus the eden's growth; a run of 1 s and one of 4 s at c=10, their
  difference over the difference in requests, so that what every run pays once cancels out): a count,
  not a time, and C1 (app/jvm.options) does no escape analysis, so it hardly moves between runs;
- memory: the sidecar's RSS after the load and a scrape of /metrics, against today's figure (issue 36's
  target, 40 MB, is not met yet: the limit below is what the sidecar measures plus a margin).

The sidecar runs as deployed (app/jvm.options, /metrics on), pinned to the server core like every
candidate; about a minute in all. The results go to the run's output folder only (gate.json)."""
import re
import time
import urllib.request

from .candidates import Baseline, SidecarMetrics
from .load import med
from .processes import log, memory_kb
from .settings import AVATAR_PATH, CHROMIUM_ACCEPT, HOST

ROUNDS = 5
DURATION = 3      # seconds per run
WARMUP = 5        # seconds per server: the JDK peer's C2 needs it
CONC = 100
# The allocation: 10 connections, a run of 1 s and one of 4 s (each new connection costs Undertow a few KB,
# and each scrape some more: the same in both runs, so it cancels out).
ALLOC_CONC, ALLOC_SECONDS = 10, (1, 4)
# The limits, from ten runs in a row on the shared 2-core machine (issue 36, 2026-11-26, load averages 15 to
# 20; docs/footprint.md): the ratio 3.4-5.0x (1.6-6.5x in an earlier series; the JDK peer's C2 warms up
# slowly and suffers most from a busy core; about 2x on a quiet machine), the allocation 2,254-2,277 bytes a
# request (Epsilon, which never collects, counts about 2,470: this count misses the unused ends of the
# allocation buffers), RSS 44.1-44.7 MB. A sleep of 1 ms per request, or 316 bytes more per request, fail it.
# Issue 36's RSS target, 40 MB, is not met (docs/footprint.md): the limit guards today's figure.
MIN_RATIO = 1.2
MAX_BYTES_PER_REQUEST = 2400
MAX_RSS_MB = 47.0

EDEN = 'jvm_memory_pool_committed_bytes{pool="Eden Space"}'
EDEN_USED = 'jvm_memory_pool_used_bytes{pool="Eden Space"}'
GC_COUNT = re.compile(r'^jvm_gc_collection_seconds_count\{gc="[^"]*"\} (\S+)$', re.M)


def scrape(port):
    with urllib.request.urlopen(f"http://{HOST}:{port}/metrics", timeout=10) as r:
        return r.read().decode()


def sample(text, name):
    m = re.search("^" + re.escape(name) + r" (\S+)$", text, re.M)
    if not m:
        raise RuntimeError(f"/metrics has no {name}")
    return float(m.group(1))


def allocated_bytes(before, after):
    """Bytes allocated between two scrapes: each collection empties an eden that allocation had filled,
    so collections times the eden's size, plus what the eden holds more at the end than at the start.
    (Off by the unused ends of the threads' allocation buffers at each collection: a few per cent.)"""
    collections = sum(float(x) for x in GC_COUNT.findall(after)) - sum(float(x) for x in GC_COUNT.findall(before))
    return collections * sample(after, EDEN) + sample(after, EDEN_USED) - sample(before, EDEN_USED)


def run(ws, m):
    sc, base = SidecarMetrics(ws), Baseline(ws)
    plain, avatar = sc.targets[0], sc.targets[1]   # `/`, and the avatar URL + Accept
    assert avatar.path == AVATAR_PATH and avatar.headers == {"Accept": CHROMIUM_ACCEPT}
    cands = [sc, base]
    try:
        for c in cands:
            c.start()
        for t in (plain, base.targets[0]):
            t.load(CONC, WARMUP)
        pairs = [(plain, base.targets[0]), (base.targets[0], plain)]
        for r in range(ROUNDS):
            for t in pairs[r % 2]:
                res = t.timed(CONC, DURATION)
                log(f"gate round {r + 1}/{ROUNDS} {t.label}: {res['rps']:,.0f} req/s, bad {res['bad']}")
        # Two runs, a short and a long one: each pays the same fixed part (its connections, the scrapes),
        # so the difference over the difference in requests is the cost of a request alone.
        counted = []
        for seconds in ALLOC_SECONDS:
            before = scrape(sc.metrics_port)
            res = avatar.timed(ALLOC_CONC, seconds)
            after = scrape(sc.metrics_port)
            counted.append((allocated_bytes(before, after), res["requests"]))
            log(f"gate allocation {avatar.label} c={ALLOC_CONC}, {seconds} s: {res['requests']:,} requests, "
                f"{counted[-1][0] / max(res['requests'], 1):,.0f} bytes a request with the fixed part")
        (short, n_short), (long_, n_long) = counted
        per_request = (long_ - short) / (n_long - n_short) if n_long > n_short else float("inf")
        time.sleep(0.5)
        rss = memory_kb(sc.pids())[0] / 1024
        alive = all(c.alive() for c in cands)
    finally:
        for c in cands:
            c.stop()
    sidecar, peer = plain.summary(CONC), base.targets[0].summary(CONC)
    ratio = sidecar["rps"] / peer["rps"] if peer["rps"] else 0.0
    bad = sidecar["bad"] + peer["bad"] + res["bad"]
    checks = [("sidecar req/s over the JDK peer's (c=100, medians)", ratio, f"≥ {MIN_RATIO}",
               ratio >= MIN_RATIO, f"{ratio:.2f}× ({sidecar['rps']:,.0f} vs {peer['rps']:,.0f})"),
              (f"bytes allocated per request (the avatar URL, c={ALLOC_CONC})", per_request, f"≤ {MAX_BYTES_PER_REQUEST:,}",
               per_request <= MAX_BYTES_PER_REQUEST, f"{per_request:,.0f}"),
              ("sidecar RSS after the load and a scrape, MB", rss, f"≤ {MAX_RSS_MB}", rss <= MAX_RSS_MB, f"{rss:.1f}"),
              ("failed or non-302 answers, both alive", bad, "0", bad == 0 and alive, f"{bad}")]
    return {"machine": m, "rounds": ROUNDS, "duration_s": DURATION, "concurrency": CONC,
            "runs": {"sidecar": plain.runs[CONC], "baseline": base.targets[0].runs[CONC], "avatar": res},
            "checks": [{"what": w, "value": v, "limit": lim, "ok": ok, "shown": s} for w, v, lim, ok, s in checks]}


def report(res):
    """The gate's verdict as a Markdown table (printed; the build fails when a line says FAILED)."""
    lines = [f"Regression gate (issue 36): {res['rounds']} alternating rounds of {res['duration_s']} s at "
             f"c={res['concurrency']}, load average {res['machine']['loadavg_start']} at the start", "",
             "| Check | Measured | Limit | |", "|---|--:|--:|---|"]
    lines += [f"| {c['what']} | {c['shown']} | {c['limit']} | {'ok' if c['ok'] else 'FAILED'} |" for c in res["checks"]]
    return "\n".join(lines)


def passed(res):
    return all(c["ok"] for c in res["checks"])
