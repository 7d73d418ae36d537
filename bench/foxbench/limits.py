"""`make bench` after the candidates: the compose app image under memory limits (the method is the
section's text, section() below)."""
import os
import re
import subprocess
import time
import urllib.request
from pathlib import Path

from .common import (CONCS, DURATION, HOST, IMAGES, ROUNDS, SERVER_CPU, SMOKE, WARMUP, cgroup_memory, free_port,
                     http_status, log, med, memory_kb)
from .load import Target
from .report import fmt_int, fmt_mb, fmt_ms, fmt_x, head

IMAGE = os.environ.get("BENCH_APP_IMAGE", "")
LIMITS_MIB, REFERENCE_MIB, TARGET_MIB = [32, 48, 64, 128, 512], 512, 32
# docker-compose.yml's hardening of the app (x-hardened, the app's tmpfs): the same container, limit aside.
HARDENED = ["--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges:true", "--tmpfs", "/tmp:size=8m"]


class Limited:
    """The app image in one container at one memory limit; the same face as a candidate for Target."""

    def __init__(self, mib):
        self.mib, self.key = mib, f"limit-{mib}"
        self.port, self.metrics_port = free_port(), free_port()
        self.name = f"fox-bench-limit-{mib}-{self.port}"
        self.targets = [Target(self, "HTTP/1.1", f"http://{HOST}:{self.port}/")]
        self.oom_kills, self.starts, self.pid, self.startups, self.mems = 0, 0, None, [], []

    def start(self):
        self.stop()
        subprocess.run(["docker", "run", "-d", "--name", self.name, "--network", "host", f"--cpuset-cpus={SERVER_CPU}",
                        f"--memory={self.mib}m", f"--memory-swap={self.mib}m", *HARDENED, "-e", f"AVATAR_BIND={HOST}",
                        "-e", f"AVATAR_PORT={self.port}", "-e", f"AVATAR_METRICS_BIND={HOST}",
                        "-e", f"AVATAR_METRICS_PORT={self.metrics_port}",
                        "-v", f"{Path(IMAGES).resolve()}:/opt/avatar/images:ro", IMAGE], check=True, capture_output=True, timeout=60)
        self.starts += 1
        end = time.monotonic() + 60
        while http_status(self.port) != 302:
            if time.monotonic() > end or not self.alive():
                raise RuntimeError(f"{self.name} did not answer within 60 s:\n{self.logs()}")
            time.sleep(0.05)
        self.pid = int(self.inspect("{{.State.Pid}}"))

    def inspect(self, fmt):
        return subprocess.run(["docker", "inspect", "-f", fmt, self.name], capture_output=True, text=True).stdout.strip()

    def alive(self):
        return self.inspect("{{.State.Running}}") == "true"

    def revive(self):
        """A container the kernel killed is counted and started again."""
        if not self.alive():
            self.oom_kills += self.inspect("{{.State.OOMKilled}}") == "true"
            log(f"{self.name}: exited ({self.oom_kills} OOM kills so far), started again:\n{self.logs()}")
            self.start()

    def pids(self):
        return [self.pid]

    def logs(self):
        r = subprocess.run(["docker", "logs", "--tail", "30", self.name], capture_output=True, text=True)
        return r.stdout + r.stderr

    def stop(self):
        subprocess.run(["docker", "rm", "-f", self.name], capture_output=True, timeout=60)

    def memory(self):
        """After the rounds: a scrape, then the cgroup's figures and the JVM's RSS (bytes, kB)."""
        with urllib.request.urlopen(f"http://{HOST}:{self.metrics_port}/metrics", timeout=10) as r:
            r.read()
        time.sleep(0.5)
        return dict(cgroup_memory(self.pid), rss_kb=memory_kb([self.pid])[0], mappings=mappings(self.pid))


def mappings(pid):
    """RSS and the anonymous part of it, kB, per kind of mapping (/proc/PID/smaps)."""
    out, current = {}, None
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        if m := re.match(r"^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$", line):
            path, name = m.group(1), Path(m.group(1).split(" ")[0]).name
            kind = ("anonymous (heap, metaspace, code, stacks, malloc)" if not path or path.startswith("[") else
                    "libjvm.so" if name == "libjvm.so" else "other shared libraries" if ".so" in name else
                    "class-data archive or AOT cache" if name.endswith((".jsa", ".aot")) else
                    "the JDK's lib/modules" if name == "modules" else "other files")
            current = out.setdefault(kind, {"rss_kb": 0, "anon_kb": 0})
        elif line.startswith(("Rss:", "Anonymous:")):
            current["rss_kb" if line[0] == "R" else "anon_kb"] += int(line.split()[1])
    return out


def available():
    return bool(IMAGE) and subprocess.run(["docker", "image", "inspect", IMAGE], capture_output=True).returncode == 0


def evict():
    """Drop the image's files from the page cache; the number of files (0: not possible)."""
    r = subprocess.run(["docker", "image", "inspect", "-f", "{{.GraphDriver.Data.LowerDir}}:{{.GraphDriver.Data.UpperDir}}",
                        IMAGE], capture_output=True, text=True)
    n = 0
    for layer in filter(None, r.stdout.strip().split(":")):
        for top in ("opt", "usr/lib", "lib"):
            for d, _, files in os.walk(Path(layer) / top):
                for f in files:
                    try:
                        fd = os.open(Path(d) / f, os.O_RDONLY | os.O_NOFOLLOW)
                    except OSError:
                        continue
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    os.close(fd)
                    n += 1
    return n


def run(ws, m):
    apps, evicted = [Limited(mib) for mib in ([REFERENCE_MIB] if SMOKE else LIMITS_MIB)], 0
    for r in range(ROUNDS):
        for a in apps[r % len(apps):] + apps[:r % len(apps)]:
            t = a.targets[0]
            try:
                evicted = evict()
                t0 = time.monotonic()
                a.start()
                a.startups.append(time.monotonic() - t0)
                if WARMUP:
                    t.load(max(CONCS), WARMUP)
                for conc in CONCS:
                    a.revive()
                    try:
                        res = t.timed(conc, DURATION)
                        log(f"round {r + 1}/{ROUNDS} {a.key} c={conc}: {res['rps']:,.0f} req/s, bad {res['bad']}")
                    except RuntimeError as e:   # wrk against a container killed under it
                        log(f"{a.name} c={conc}: {e}")
                        t.runs.setdefault(conc, []).append({"rps": 0.0, "requests": 0, "p50_ms": None,
                                                            "p99_ms": None, "bad": 1, "server_cpu": None})
                a.revive()
                a.mems.append(a.memory())
                log(f"memory {a.key}: {dict((k, v) for k, v in a.mems[-1].items() if k != 'mappings')}")
                a.revive()   # killed by the scrape or since
            except RuntimeError as e:   # it never answered (the limit too small to start in 60 s)
                log(f"{a.name}: {e}")
            finally:
                a.stop()
    return {"machine": m, "mode": "smoke" if SMOKE else "full", "image": IMAGE, "duration_s": DURATION,
            "rounds": ROUNDS, "concurrency": CONCS, "reference_mib": REFERENCE_MIB, "target_mib": TARGET_MIB,
            "cold": evicted > 0,
            "limits": [{"mib": a.mib, "oom_kills": a.oom_kills, "starts": a.starts, "startup_s": med(a.startups),
                        "memory": {k: med([x.get(k) for x in a.mems]) for k in ("charged", "anon", "peak", "rss_kb")},
                        "mappings": a.mems[-1]["mappings"] if a.mems else None,
                        "conc": {str(k): a.targets[0].summary(k) for k in CONCS}} for a in apps]}


def section(res):
    concs, hi = res["concurrency"], max(res["concurrency"])
    ref = next((x for x in res["limits"] if x["mib"] == res["reference_mib"]), None)

    def rps(x, c):
        return (x["conc"].get(str(c)) or {}).get("rps")

    def mib(v):
        return fmt_mb(v and v / 1024)

    lines = head(res, "make bench") + [
        f"The compose app image (`{res['image']}`: app/Dockerfile, JDK 25 jlinked, its AOT cache) in a container per "
        f"memory limit, hardened as docker-compose.yml runs it, no swap, pinned to the server core; one container at a "
        f"time, started fresh in each of {res['rounds']} rounds (the rounds alternate the limits)"
        + (", each from a cold page cache (the image's files dropped from it first: the kernel charges a container for "
           "the file pages it reads)" if res.get("cold") else "") +
        f". Per start: the time to the first 302, a warm-up, the sidecar row's load (wrk -t1, `/`, {res['duration_s']} s "
        f"at each concurrency), a scrape of /metrics, then the memory the kernel charges the container (its cgroup), of "
        f"which anonymous (what it cannot drop and read again from the image's files), the peak, and the JVM's RSS; "
        f"medians. A container the kernel killed is counted and started again.", "",
        "| Limit MiB | " + " | ".join(f"req/s c={c}" for c in concs) + f" | p99 ms c={hi} | × {res['reference_mib']} MiB "
        f"(c={hi}) | OOM kills | start-up s | charged MiB | anonymous MiB | peak MiB | RSS MB |", "|--:|" + "--:|" * (len(concs) + 8)]
    for x in res["limits"]:
        s, mem = x["conc"].get(str(hi)), x["memory"] or {}
        r = rps(x, hi) / rps(ref, hi) if ref and rps(x, hi) and rps(ref, hi) else None
        lines.append(f"| {x['mib']} | " + " | ".join(fmt_int(rps(x, c)) for c in concs) +
                     f" | {fmt_ms(s['p99_ms']) if s and s['p99_ms'] is not None else '–'} | {fmt_x(r)} | {x['oom_kills']} | "
                     f"{'–' if x.get('startup_s') is None else format(x['startup_s'], '.1f')} | {mib(mem.get('charged'))} | "
                     f"{mib(mem.get('anon'))} | {mib(mem.get('peak'))} | "
                     f"{fmt_mb(mem.get('rss_kb'))} |")
    if maps := (ref or {}).get("mappings"):
        total = {k: sum(v[k] for v in maps.values()) for k in ("rss_kb", "anon_kb")}
        lines += ["", f"Where the JVM's RSS goes in the container at {res['reference_mib']} MiB (its last start, "
                      f"`/proc/PID/smaps`):", "", "| Mapping | RSS MB | of which anonymous MB |", "|---|--:|--:|"]
        lines += [f"| {k} | {fmt_mb(v['rss_kb'])} | {fmt_mb(v['anon_kb'])} |"
                  for k, v in sorted(maps.items(), key=lambda kv: -kv[1]["rss_kb"])]
        lines.append(f"| **all** | **{fmt_mb(total['rss_kb'])}** | **{fmt_mb(total['anon_kb'])}** |")
    low = next((x for x in res["limits"] if x["mib"] == res["target_mib"]), None)
    note = ""
    if ref and low and ref["conc"].get(str(hi)):
        note = (f"At {res['target_mib']} MiB it answered {(rps(low, hi) or 0) / rps(ref, hi):.2f}× the req/s at "
                f"{res['reference_mib']} MiB (c={hi}), {low['oom_kills']} OOM kills." if low["conc"].get(str(hi)) else
                f"At {res['target_mib']} MiB the app did not answer within a minute of its start "
                f"({low['oom_kills']} OOM kills): give it more.")
    return "\n".join(lines) + "\n\n" + note
