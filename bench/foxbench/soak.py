"""SOAK=1: wrk in chunks against the full stack over HTTPS until SOAK_REQUESTS are done (bounded by
SOAK_MAX_MINUTES), the sidecar's and Nginx's memory sampled by a thread. Then the compose app
image alone at the memory limit docker-compose.yml gives it, for SOAK_LIMIT_MINUTES of wrk at c=100 from a
cold page cache (limits.py), its cgroup's memory and the JVM's RSS sampled. Returns the raw results of the
soak section; the verdict (soak_report.soak_figures) fails the run when a request failed or was not a 302,
when the fallback answered, when the sidecar's RSS kept growing (the heap is bounded, so a leak shows
as steady growth past it), or when the container at its limit was killed or kept growing."""
import threading
import time

from . import limits
from .candidates import FullStack
from .load import TOOLS
from .processes import log, memory_kb
from .settings import SMOKE, SOAK_CHUNK_S, SOAK_INTERVAL_S, SOAK_LIMIT_S, SOAK_MAX_S, SOAK_REQUESTS


def run(ws, m):
    res = run_stack(ws, m)
    if limits.available():
        res["container"] = run_container(ws)
    else:
        log("the soak at the compose limit: no app image (BENCH_APP_IMAGE; bench/run.sh builds it): left out")
    return res


def run_stack(ws, m):
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


def run_container(ws):
    """The compose app image at compose's memory limit, cold, under wrk -c100 on `/` for SOAK_LIMIT_S in
    chunks; every SOAK_INTERVAL_S: seconds, the cgroup's charge and its anonymous part (bytes), the JVM's
    RSS (kB), requests done, the heap's committed and maximum bytes (its /metrics). A kill by the kernel
    ends it (and fails the verdict)."""
    mib = limits.compose_limit_mib()
    app = limits.Limited(ws, mib)
    samples, stop_evt = [], threading.Event()
    done = bad = 0
    t0 = time.monotonic()
    limits.evict(limits.IMAGE)
    try:
        app.start()
        d = limits.cgroup_dir(app.pid)

        def sampler():
            while not stop_evt.is_set():
                try:
                    mem = limits.cgroup_memory(d)
                    heap = app.heap()
                    samples.append((time.monotonic() - t0, mem["charged"], mem["anon"], memory_kb([app.pid])[0], done,
                                    heap[0], heap[1]))
                except (OSError, KeyError, RuntimeError):
                    pass   # gone: the verdict says so
                stop_evt.wait(SOAK_INTERVAL_S)

        th = threading.Thread(target=sampler, daemon=True)
        th.start()
        while time.monotonic() - t0 < SOAK_LIMIT_S and app.alive():
            try:
                r = TOOLS["wrk"].run(app.targets[0].url, 100, SOAK_CHUNK_S, count=True)
            except RuntimeError as e:
                log(f"soak at {mib} MiB: {e}")
                bad += 1
                break
            done += r["requests"]
            bad += r["bad"]
            log(f"soak at {mib} MiB: {done:,} requests ({r['rps']:,.0f} req/s), bad {bad}, "
                f"charged {samples[-1][1] / 2**20:.1f} MiB (anonymous {samples[-1][2] / 2**20:.1f})" if samples else "")
        killed = not app.alive() and app.inspect("{{.State.OOMKilled}}") == "true"
        stop_evt.set()
        th.join(timeout=10)
    finally:
        stop_evt.set()
        app.stop()
    return {"mib": mib, "image": limits.IMAGE, "seconds": SOAK_LIMIT_S, "done": done, "bad": bad,
            "oom_killed": killed, "elapsed_s": time.monotonic() - t0, "samples": [list(x) for x in samples]}
