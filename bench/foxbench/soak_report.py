"""What the report says of `make bench SOAK=1`: docs/bench.md's soak section and its verdict (bench.py fails
the run on it), a function of the soak's raw results and nothing else (sections.py has the other sections)."""
from .sections import fmt_mb, generated_by, machine_line

SOAK_GROWTH_LIMIT_MB = 2.0


def soak_figures(res):
    """The sidecar's RSS peaks in the first and second half of the samples, the growth in MB, and the
    verdict: every request done and a 302, no fallback, growth within SOAK_GROWTH_LIMIT_MB."""
    samples = res["samples"]  # [seconds, sidecar RSS kB, sidecar PSS kB, Nginx RSS kB, requests done]
    half = len(samples) // 2
    first_peak = max(s[1] for s in samples[:max(half, 1)])
    second_peak = max(s[1] for s in samples[half:]) if samples[half:] else first_peak
    growth = (second_peak - first_peak) / 1024
    ok = (res["done"] >= res["goal"] and res["bad"] == 0 and res["fallbacks"] == 0
          and growth <= SOAK_GROWTH_LIMIT_MB)
    c = res.get("container")
    if c:
        ok = ok and container_figures(c)[3]
    return first_peak, second_peak, growth, ok


def container_figures(c):
    """The soak at compose's limit: the anonymous memory outside the heap (the cgroup's anonymous
    bytes less the heap's committed bytes: what a leak would grow; the heap is bounded by -Xmx and, on JDK 25,
    grows to its cap before collecting the old generation in full) at its peak in the first and in the second
    half of the samples (bytes), the growth in MB, and the verdict: run to the end, no OOM kill, every answer
    a 302, that growth within SOAK_GROWTH_LIMIT_MB, the heap within its cap."""
    # [seconds, charged bytes, anonymous bytes, JVM RSS kB, requests done, heap committed, heap max]
    samples = c["samples"]
    half = len(samples) // 2
    if not samples:
        return None, None, None, False
    outside = [x[2] - x[5] for x in samples]
    first = max(outside[:max(half, 1)])
    second = max(outside[half:]) if outside[half:] else first
    growth = (second - first) / 2**20
    ok = (not c["oom_killed"] and c["bad"] == 0 and c["elapsed_s"] >= c["seconds"]
          and growth <= SOAK_GROWTH_LIMIT_MB and all(x[5] <= x[6] for x in samples))
    return first, second, growth, ok


def soak_section(res):
    samples, done, elapsed = res["samples"], res["done"], res["elapsed_s"]
    first_peak, second_peak, growth, ok = soak_figures(res)
    return f"""{generated_by("make bench SOAK=1", res)}

Machine: {machine_line(res['machine'])}.

{done:,} requests (`wrk -t1 -c100`, {res['chunk_s']}-second chunks, HTTPS/1.1 keep-alive) through the full stack in
{elapsed / 60:.1f} minutes ({done / elapsed:,.0f} req/s on average); non-302 or failed: **{res['bad']}**; answered by
Nginx's fallback: **{res['fallbacks']}**. Sidecar RSS sampled every {res['interval_s']} s ({len(samples)} samples):
first {fmt_mb(samples[0][1])} MB, peak of the first half {fmt_mb(first_peak)} MB, peak of the second half
{fmt_mb(second_peak)} MB (growth {growth:+.1f} MB; the limit is +{SOAK_GROWTH_LIMIT_MB:.0f} MB), last {fmt_mb(samples[-1][1])} MB
(PSS {fmt_mb(samples[-1][2])} MB); Nginx RSS first {fmt_mb(samples[0][3])} MB, last {fmt_mb(samples[-1][3])} MB.
{container_soak(res.get("container"))}Verdict: **{'flat, no error' if ok else 'FAILED'}**.

![soak chart](bench-soak.png)
"""


def container_soak(c):
    """The paragraph of the soak at compose's limit (nothing for raw results without it)."""
    if not c:
        return ""
    first, second, growth, ok = container_figures(c)
    s = c["samples"]
    if not s:
        return f"Then the compose app image at its limit ({c['mib']} MiB): no sample (it did not start). "
    mib = lambda b: f"{b / 2**20:.1f}"  # noqa: E731
    return (f"Then the compose app image alone at the memory limit of docker-compose.yml, **{c['mib']} MiB**, "
            f"from a cold page cache, `wrk -t1 -c100` on `/` for {c['elapsed_s'] / 60:.1f} minutes: "
            f"{c['done']:,} requests ({c['done'] / c['elapsed_s']:,.0f} req/s on average), non-302 or failed: "
            f"**{c['bad']}**, OOM-killed: **{'yes' if c['oom_killed'] else 'no'}**. Sampled every few seconds "
            f"({len(s)} samples): charged to its cgroup first {mib(s[0][1])} MiB, last {mib(s[-1][1])} MiB (the page "
            f"cache fills what the limit leaves); anonymous first {mib(s[0][2])} MiB, last {mib(s[-1][2])} MiB, of "
            f"which the heap first {mib(s[0][5])}, last {mib(s[-1][5])} MiB (its cap {mib(s[-1][6])}); the anonymous "
            f"memory outside the heap peaked at {mib(first)} MiB in the first half and {mib(second)} MiB in the "
            f"second (growth {growth:+.1f} MB); the JVM's RSS last {s[-1][3] / 1024:.1f} MB: "
            f"**{'flat' if ok else 'FAILED'}**.\n")
