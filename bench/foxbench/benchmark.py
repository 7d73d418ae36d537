"""The default mode (`make bench`, and `make bench-smoke` in seconds): every candidate of CANDIDATES (the
smoke leaves out those with a smoke_skip reason, and logs it).
Phase A, throughput: all running, wrk/h2load rounds with the target order rotating, a counting run per
target, ab without keep-alive. Phase B, each candidate alone: fresh starts timed to the first 302, one
run at the highest concurrency, then memory and threads. The sidecar's avatar-URL target must
answer with the 64 px image its Accept gets (its `/` + Accept target, the ratio's reference, a 302 only), and while the full stack runs (after its timed rounds) the
bytes a page downloads to show a 64 px avatar are measured through it (avatar.py). The raw results go to
the raw file, and the report is rendered from that file."""
import time
from pathlib import Path
from urllib.parse import urlsplit

from . import avatar
from .candidates import CANDIDATES, FullStack
from .load import med, run_ab
from .processes import die, log, memory_kb, threads
from .settings import AB_N, CONCS, DURATION, ONLY, ROUNDS, SMOKE, STARTS, WARMUP


def measure(targets, concs, duration, rounds, warmup):
    """Warm-up, then `rounds` rounds; each round runs every target at every concurrency, and the order of
    the targets rotates from round to round, so slow drifts of the shared machine hit every candidate."""
    if warmup:
        for t in targets:
            log(f"warm-up {t.label} ({warmup} s)")
            t.load(max(concs), warmup)
    for r in range(rounds):
        order = targets[r % len(targets):] + targets[:r % len(targets)]
        for t in order:
            for conc in concs:
                res = t.timed(conc, duration)
                log(f"round {r + 1}/{rounds} {t.label} c={conc}: {res['rps']:,.0f} req/s, "
                    f"p99 {res['p99_ms']:.2f} ms, bad {res['bad']}, server CPU {res['server_cpu']:.0%}")
                if not t.cand.alive():
                    raise RuntimeError(f"{t.cand.key} died during the run:\n{t.cand.logs()}")


def throughput(cands):
    """Phase A: every candidate running at once."""
    try:
        for c in cands:
            c.start()
            for t in c.targets:
                st = t.status()
                if st != t.expect:
                    raise RuntimeError(f"{t.label}: GET {t.path} answered {st}, not {t.expect}\n{c.logs()}")
                t.problem = (avatar.location_problem(c.ws.manifest, t.path, t.location)
                             if t.path != "/" and t.expect == 302 else None)
                if t.problem:
                    log(f"WARNING: {t.label}: {t.problem}")
            log(f"started {c.key}: pids {c.pids()}")
        targets = [t for c in cands for t in c.targets]
        measure(targets, CONCS, DURATION, ROUNDS, WARMUP)
        for t in targets:  # every response's status, counted (not timed)
            t.check = t.load(max(CONCS), 1 if SMOKE else 2, count=True)
            log(f"status check {t.label}: {t.check['requests']:,} responses, {t.check['bad']} not {t.expect} or failed")
        for t in targets:
            plain = t.path == "/" and not t.headers  # `ab` runs only the plain `/`
            if t.tool == "wrk" and t.url.startswith("http:") and t.cand.key != "nginx-nolog" and plain:
                log(f"ab -n {AB_N} -c 10 {t.label}")
                t.ab = run_ab(t.url, AB_N)
        for c in cands:
            if isinstance(c, FullStack):
                c.avatar_bytes = avatar.measure(c.ls, c.ws.manifest)
                b, a = c.avatar_bytes["before"], c.avatar_bytes["after"]
                log(f"bytes to show a {c.avatar_bytes['size']} px avatar (medians of "
                    f"{c.avatar_bytes['samples']}): before {b['total']:,.0f} ({', '.join(b['images'])}), "
                    f"after {a['total']:,.0f} ({', '.join(a['images'])})")
            if hasattr(c, "fallbacks"):
                c.nfallback = c.fallbacks()
    finally:
        for c in cands:
            c.stop()


def alone(cands):
    """Phase B, each candidate alone on the machine (PSS depends on who else maps the same pages): fresh
    starts, timed to the first 302; after the first one a run at the highest concurrency, then memory."""
    for c in cands:
        c.startups, c.startup_cpus = [], []
    for i in range(STARTS):
        for c in cands:
            if i and c.startup_port is None:
                continue  # a full stack: its start is Nginx's plus the sidecar's, both timed on their own
            try:
                t = c.start()
                if t is not None and c.key != "nginx-nolog":
                    c.startups.append(t)
                    c.startup_cpus.append(c.start_cpu)
                if i == 0:
                    c.targets[0].load(max(CONCS), DURATION)
                    if hasattr(c, "scrape"):
                        c.scrape()  # memory as it is with Prometheus scraping
                    time.sleep(0.5)
                    pids = c.pids()
                    c.rss, c.pss = memory_kb(pids)
                    c.nthreads, c.nprocs = threads(pids), len(pids)
                    if hasattr(c, "app_pids"):
                        c.app_rss, c.app_pss = memory_kb(c.app_pids())
                    log(f"memory {c.key}: RSS {c.rss / 1024:.1f} MB, PSS {c.pss / 1024:.1f} MB, {c.nthreads} threads")
            finally:
                c.stop()
        log(f"start-up round {i + 1}/{STARTS}: " +
            ", ".join(f"{c.key} {c.startups[-1]:.3f} s" for c in cands if c.startups))
    for c in cands:
        c.startup, c.startup_cpu = med(c.startups), med(c.startup_cpus)


def collect(cands, m):
    """The raw results: per target, the medians per concurrency and every round's result; the machine's
    1-min load average at the end beside the one at the start (a run on a shared machine says so)."""
    m = dict(m, loadavg_end=Path("/proc/loadavg").read_text().split()[0])
    rows = []
    for c in cands:
        for t in c.targets:
            rows.append({"key": c.key, "name": c.name, "proto": t.proto, "label": t.label, "tool": t.tool,
                         "request": t.path, "headers": t.headers, "expect": t.expect, "location": urlsplit(t.location or "").path,
                         "location_problem": getattr(t, "problem", None),
                         "conc": {str(k): t.summary(k) for k in CONCS}, "ab": t.ab, "check": t.check,
                         "runs": {str(k): v for k, v in t.runs.items()},
                         "rss_kb": c.rss, "pss_kb": c.pss, "threads": c.nthreads, "procs": c.nprocs,
                         "app_rss_kb": getattr(c, "app_rss", None), "app_pss_kb": getattr(c, "app_pss", None),
                         "startup_s": c.startup, "startup_cpu_s": c.startup_cpu,
                         "fallbacks": getattr(c, "nfallback", 0)})
    bytes_ = next((c.avatar_bytes for c in cands if getattr(c, "avatar_bytes", None)), None)
    return {"machine": m, "mode": "smoke" if SMOKE else ("partial" if ONLY else "full"), "only": ONLY, "duration_s": DURATION, "rounds": ROUNDS,
            "concurrency": CONCS, "ab_n": AB_N, "starts": STARTS, "rows": rows, "avatar_bytes": bytes_}


def failures(results):
    """Every request that failed or was not a 302 (an image: a 200), per place it was counted."""
    bad = [f"{r['label']} c={k}: {s['bad']} non-302/errors" for r in results["rows"]
           for k, s in r["conc"].items() if s and s["bad"]]
    bad += [f"{r['label']} ab: {r['ab']['bad']} non-302/failed" for r in results["rows"] if r["ab"] and r["ab"]["bad"]]
    bad += [f"{r['label']} status check: {r['check']['bad']} not {r.get('expect', 302)} or failed" for r in results["rows"]
            if r["check"] and r["check"]["bad"]]
    bad += [f"{r['label']}: Nginx's fallback answered {r['fallbacks']} requests" for r in results["rows"]
            if r["fallbacks"]]
    bad += [f"{r['label']}: {r['location_problem']}" for r in results["rows"] if r.get("location_problem")]
    bad += [f"bytes to show an avatar: {p}" for p in (results.get("avatar_bytes") or {}).get("problems", [])]
    return bad


def check_only():
    """BENCH_ONLY names candidates by key: a name that is none is a one-line error."""
    unknown = sorted(set(ONLY) - {cls.key for cls in CANDIDATES})
    if unknown:
        die(f"BENCH_ONLY: no candidate {', '.join(unknown)} (the candidates: {', '.join(c.key for c in CANDIDATES)})")


def run(ws, m):
    """Measure; the raw results (the caller saves and renders them) and the failures."""
    check_only()
    cands = []
    for cls in CANDIDATES:
        if ONLY and cls.key not in ONLY:
            continue
        if SMOKE and cls.smoke_skip:
            log(f"{cls.key}: left out of the smoke ({cls.smoke_skip}); make bench runs it")
        elif cls.available():
            cands.append(cls(ws))
        else:
            log(f"{cls.key}: not available on this machine ({cls.__doc__.splitlines()[0]}): left out")
    throughput(cands)
    alone(cands)
    results = collect(cands, m)
    return results, failures(results)
