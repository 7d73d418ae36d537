"""The default mode: every candidate's throughput, all running, in rounds (and the bytes to show an avatar,
avatar.py); then each alone: fresh starts timed to the first 302, one run, memory and threads."""
import time
from urllib.parse import urlsplit

from . import avatar
from .candidates import CANDIDATES, FullStack
from .common import CONCS, DURATION, ROUNDS, SMOKE, STARTS, WARMUP, left_out, loadavg, log, med, memory_kb, proc_sum


def throughput(cands):
    try:
        for c in cands:
            c.start()
            for t in c.targets:
                if (st := t.status()) != t.expect:
                    raise RuntimeError(f"{t.label}: GET {t.path} answered {st}, not {t.expect}\n{c.logs()}")
        targets = [t for c in cands for t in c.targets]
        for t in targets if WARMUP else []:
            t.load(max(CONCS), WARMUP)
        for r in range(ROUNDS):   # the order rotates, so slow drifts of the shared machine hit every target
            for t in targets[r % len(targets):] + targets[:r % len(targets)]:
                for conc in CONCS:
                    res = t.timed(conc, DURATION)
                    log(f"round {r + 1}/{ROUNDS} {t.label} c={conc}: {res['rps']:,.0f} req/s, p99 {res['p99_ms']:.2f} ms, "
                        f"bad {res['bad']}, server CPU {res['server_cpu']:.0%}")
                    if not t.cand.alive():
                        raise RuntimeError(f"{t.cand.key} died during the run:\n{t.cand.logs()}")
        for t in targets:   # every response's status, counted (not timed)
            t.check = t.load(max(CONCS), 1 if SMOKE else 2, count=True)
        for c in cands:
            if isinstance(c, FullStack):
                c.avatar_bytes = avatar.measure(c.ls, c.ws.manifest)
                log("bytes to show a 64 px avatar: " + ", ".join(f"{k} {c.avatar_bytes[k]['total']}" for k in ("before", "after")))
            c.nfallback = c.fallbacks() if hasattr(c, "fallbacks") else 0
    finally:
        for c in cands:
            c.stop()


def alone(cands):
    """Each candidate alone on the machine (PSS depends on who else maps the same pages)."""
    for i in range(STARTS):
        for c in cands:
            if i and c.startup_port is None:
                continue   # a full stack: its start is Nginx's plus the sidecar's, not timed
            try:
                t = c.start()
                if t is not None and c.key != "nginx-nolog":
                    c.startups.append(t)
                    c.startup_cpus.append(c.start_cpu)
                if i == 0:
                    c.targets[0].load(max(CONCS), DURATION)
                    if hasattr(c, "scrape"):
                        c.scrape()   # memory as it is with Prometheus scraping
                    time.sleep(0.5)
                    pids = c.pids()
                    c.rss, c.pss = memory_kb(pids)
                    c.nthreads, c.nprocs = proc_sum(pids, "status", "Threads"), len(pids)
                    c.app_rss, c.app_pss = memory_kb(c.app_pids()) if c.app_pids else (None, None)
                    log(f"memory {c.key}: RSS {c.rss / 1024:.1f} MB, PSS {c.pss / 1024:.1f} MB, {c.nthreads} threads")
            finally:
                c.stop()


def run(ws, m):
    """Measure; the raw results and what failed."""
    cands = []
    for cls in CANDIDATES:
        if SMOKE and cls.smoke_skip:
            log(f"{cls.key}: left out of the smoke ({cls.smoke_skip}); make bench runs it")
        elif cls.available():
            cands.append(cls(ws))
        else:
            left_out(f"{cls.key}: not available on this machine")
    throughput(cands)
    alone(cands)
    rows = [{"key": c.key, "name": c.name, "proto": t.proto, "label": t.label, "tool": t.tool, "request": t.path,
             "headers": t.headers, "expect": t.expect, "location": urlsplit(t.location or "").path,
             "conc": {str(k): t.summary(k) for k in CONCS}, "check": t.check, "rss_kb": c.rss, "pss_kb": c.pss,
             "threads": c.nthreads, "procs": c.nprocs, "app_rss_kb": c.app_rss, "app_pss_kb": c.app_pss,
             "startup_s": med(c.startups), "startup_cpu_s": med(c.startup_cpus), "fallbacks": c.nfallback}
            for c in cands for t in c.targets]
    results = {"machine": dict(m, loadavg_end=loadavg()), "mode": "smoke" if SMOKE else "full", "duration_s": DURATION,
               "rounds": ROUNDS, "concurrency": CONCS, "starts": STARTS, "rows": rows,
               "avatar_bytes": next((c.avatar_bytes for c in cands if isinstance(c, FullStack)), None)}
    bad = [f"{r['label']} c={k}: {s['bad']} non-302/errors" for r in rows for k, s in r["conc"].items() if s and s["bad"]]
    bad += [f"{r['label']} status check: {r['check']['bad']} not {r['expect']}" for r in rows if r["check"]["bad"]]
    bad += [f"{r['label']}: Nginx's fallback answered {r['fallbacks']} requests" for r in rows if r["fallbacks"]]
    return results, bad + [f"bytes to show an avatar: {p}" for p in (results["avatar_bytes"] or {}).get("problems", [])]
