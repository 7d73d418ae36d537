"""SOAK=1: wrk in chunks against the full stack over HTTPS until SOAK_REQUESTS are done (bounded by
SOAK_MAX_MINUTES), the sidecar's and Nginx's memory sampled by a thread. Returns the raw results of the
soak section; the verdict (sections.soak_figures) fails the run when a request failed or was not a 302,
when the fallback answered, or when the sidecar's RSS kept growing (the heap is bounded, so a leak shows
as steady growth past it)."""
import threading
import time

from .candidates import FullStack
from .load import TOOLS
from .processes import log, memory_kb
from .settings import SMOKE, SOAK_CHUNK_S, SOAK_INTERVAL_S, SOAK_MAX_S, SOAK_REQUESTS


def run(ws, m):
    st = FullStack(ws)
    samples, stop_evt = [], threading.Event()
    done = bad = 0
    t0 = time.monotonic()
    try:
        st.start()
        url = st.targets[0].url

        def sampler():
            while not stop_evt.is_set():
                a = memory_kb(st.app_pids())
                n = memory_kb(st.nginx_pids())
                samples.append((time.monotonic() - t0, a[0], a[1], n[0], done))
                stop_evt.wait(SOAK_INTERVAL_S)

        th = threading.Thread(target=sampler, daemon=True)
        th.start()
        while done < SOAK_REQUESTS and time.monotonic() - t0 < SOAK_MAX_S:
            r = TOOLS["wrk"].run(url, 100, SOAK_CHUNK_S, count=True)
            done += r["requests"]
            bad += r["bad"]
            log(f"soak: {done:,} requests ({r['rps']:,.0f} req/s), bad {bad}, "
                f"sidecar RSS {samples[-1][1] / 1024:.1f} MB" if samples else "")
            if not st.alive():
                raise RuntimeError("soak: a process died\n" + st.logs())
        stop_evt.set()
        th.join(timeout=10)
        fallbacks = st.fallbacks()
    finally:
        stop_evt.set()
        st.stop()
    return {"machine": m, "mode": "smoke" if SMOKE else "full", "goal": SOAK_REQUESTS, "done": done, "bad": bad,
            "fallbacks": fallbacks, "chunk_s": SOAK_CHUNK_S, "interval_s": SOAK_INTERVAL_S,
            "elapsed_s": time.monotonic() - t0, "samples": [list(s) for s in samples]}
