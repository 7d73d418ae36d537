"""`make bench SOAK=1`: wrk in chunks against the full stack, memory sampled by a thread. A leak shows as the
sidecar's RSS growing from the first half's peak to the second's (the heap is bounded)."""
import threading
import time

from .candidates import FullStack
from .common import SMOKE, SOAK_MAX_S, SOAK_REQUESTS, log, memory_kb
from .load import TOOLS
from .report import fmt_mb, head

GROWTH_LIMIT_MB = 2.0


def run(ws, m):
    st, samples, stop_evt = FullStack(ws), [], threading.Event()
    done = bad = 0
    chunk_s, interval_s, t0 = 2 if SMOKE else 30, 1 if SMOKE else 5, time.monotonic()

    def sampler():
        while not stop_evt.is_set():
            a, n = memory_kb(st.app_pids()), memory_kb(st.app_pids(1))
            samples.append((time.monotonic() - t0, a[0], a[1], n[0], done))
            stop_evt.wait(interval_s)
    try:
        st.start()
        threading.Thread(target=sampler, daemon=True).start()
        while done < SOAK_REQUESTS and time.monotonic() - t0 < SOAK_MAX_S:
            r = TOOLS["wrk"].run(st.targets[0].url, 100, chunk_s, count=True)
            done, bad = done + r["requests"], bad + r["bad"]
            log(f"soak: {done:,} requests ({r['rps']:,.0f} req/s), bad {bad}, sidecar RSS {samples[-1][1] / 1024:.1f} MB")
            if not st.alive():
                raise RuntimeError("soak: a process died\n" + st.logs())
        fallbacks = st.fallbacks()
    finally:
        stop_evt.set()
        st.stop()
    return {"machine": m, "mode": "smoke" if SMOKE else "full", "goal": SOAK_REQUESTS, "done": done, "bad": bad,
            "fallbacks": fallbacks, "chunk_s": chunk_s, "interval_s": interval_s, "elapsed_s": time.monotonic() - t0,
            "samples": [list(s) for s in samples]}


def figures(res):
    """The sidecar's RSS peaks in the first and second half of the samples, the growth in MB, the verdict."""
    samples, half = res["samples"], len(res["samples"]) // 2
    first = max(s[1] for s in samples[:max(half, 1)])
    second = max((s[1] for s in samples[half:]), default=first)
    growth = (second - first) / 1024
    return first, second, growth, (res["done"] >= res["goal"] and res["bad"] == 0 and res["fallbacks"] == 0
                                   and growth <= GROWTH_LIMIT_MB)


def section(res):
    samples, done, elapsed = res["samples"], res["done"], res["elapsed_s"]
    first_peak, second_peak, growth, ok = figures(res)
    return "\n".join(head(res, "make bench SOAK=1")) + f"""
{done:,} requests (`wrk -t1 -c100`, {res['chunk_s']}-second chunks, HTTPS/1.1 keep-alive) through the full stack in
{elapsed / 60:.1f} minutes ({done / elapsed:,.0f} req/s on average); non-302 or failed: **{res['bad']}**; answered by
Nginx's fallback: **{res['fallbacks']}**. Sidecar RSS sampled every {res['interval_s']} s ({len(samples)} samples):
first {fmt_mb(samples[0][1])} MB, peak of the first half {fmt_mb(first_peak)} MB, peak of the second half
{fmt_mb(second_peak)} MB (growth {growth:+.1f} MB; the limit is +{GROWTH_LIMIT_MB:.0f} MB), last {fmt_mb(samples[-1][1])} MB
(PSS {fmt_mb(samples[-1][2])} MB); Nginx RSS first {fmt_mb(samples[0][3])} MB, last {fmt_mb(samples[-1][3])} MB.
Verdict: **{'flat, no error' if ok else 'FAILED'}**.
"""
