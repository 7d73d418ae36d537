"""The compose app image under container memory limits (`make bench`, after the JDK comparison).
The image of app/Dockerfile (Debian 13, the jlinked JDK 25 with its AOT cache, the flags aot-train.sh derives
from app/jvm.options), built by bench/run.sh as BENCH_APP_IMAGE, runs in a container per limit, hardened as
docker-compose.yml runs it (read-only, no capabilities, /tmp a tmpfs of 8 MiB) with --memory and
--memory-swap at the limit (no swap), --network host, pinned to the server core; the image set is bind-mounted
over the baked one, as compose does. One container at a time, started fresh in each round (the rounds
alternate the limits), each from a cold page cache: the image's files are dropped from it first (they are
the container's alone on a host, so the kernel charges it for the pages it reads: the JVM's library, the
AOT cache, the jar; another container's reads would otherwise be free for it). Per start: the time to the
first 302, a warm-up, the sidecar row's load (wrk -t1, the plain `/`, each concurrency), a scrape of
/metrics (as Prometheus would), then the memory the kernel charges the container (its cgroup: all of it, the
anonymous part, the peak) and the JVM's RSS. A container the kernel killed is counted (an OOM kill) and
started again for what is left of its turn. The largest limit is the reference: the target is at
least 0.9x its req/s at 32 MiB, with no OOM kill."""
import os
import re
import subprocess
import time
import urllib.request
from pathlib import Path

from . import footprint
from .load import Target, med
from .processes import cpu_seconds, free_port, http_status, log, memory_kb
from .settings import CONCS, DURATION, HOST, IMAGES, ROUNDS, SERVER_CPU, SMOKE, WARMUP

IMAGE = os.environ.get("BENCH_APP_IMAGE", "")
LIMITS_MIB = [32, 48, 64, 128, 512]
REFERENCE_MIB = 512
TARGET_MIB, TARGET_RATIO = 32, 0.9
# docker-compose.yml's hardening of the app (x-hardened, the app's tmpfs): the same container, limit aside.
HARDENED = ["--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges:true", "--tmpfs", "/tmp:size=8m"]


def cgroup_dir(pid):
    """The memory cgroup of a host process: cgroup v1's memory controller, or v2's unified hierarchy."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            return Path("/sys/fs/cgroup/memory" + path)
        if controllers == "" and Path("/sys/fs/cgroup/cgroup.controllers").exists():
            return Path("/sys/fs/cgroup" + path)
    return None


def cgroup_memory(d):
    """What the kernel charges the container, in bytes: all, the anonymous part, the peak."""
    stat = dict(line.split() for line in (d / "memory.stat").read_text().splitlines())
    if (d / "memory.current").exists():   # v2
        peak = d / "memory.peak"
        return {"charged": int((d / "memory.current").read_text()), "anon": int(stat["anon"]),
                "file": int(stat["file"]), "peak": int(peak.read_text()) if peak.exists() else None}
    return {"charged": int((d / "memory.usage_in_bytes").read_text()), "anon": int(stat["total_rss"]),
            "file": int(stat["total_cache"]), "peak": int((d / "memory.max_usage_in_bytes").read_text())}


class Limited:
    """The app image in one container at one memory limit; the same face as a candidate for Target."""

    def __init__(self, ws, mib):
        self.ws, self.mib, self.key = ws, mib, f"limit-{mib}"
        self.port, self.metrics_port = free_port(), free_port()
        self.name = f"fox-bench-limit-{mib}-{self.port}"
        self.targets = [Target(self, "HTTP/1.1", f"http://{HOST}:{self.port}/")]
        self.oom_kills, self.starts, self.pid = 0, 0, None
        self.startups, self.mems = [], []

    def start(self):
        subprocess.run(["docker", "rm", "-f", self.name], capture_output=True)
        subprocess.run(["docker", "run", "-d", "--name", self.name, "--network", "host",
                        f"--cpuset-cpus={SERVER_CPU}", f"--memory={self.mib}m", f"--memory-swap={self.mib}m",
                        *HARDENED, "-e", f"AVATAR_BIND={HOST}", "-e", f"AVATAR_PORT={self.port}",
                        "-e", f"AVATAR_METRICS_BIND={HOST}", "-e", f"AVATAR_METRICS_PORT={self.metrics_port}",
                        "-v", f"{Path(IMAGES).resolve()}:/opt/avatar/images:ro", IMAGE],
                       check=True, capture_output=True, timeout=60)
        self.starts += 1
        end = time.monotonic() + 60
        while http_status(self.port, timeout=1.0) != 302:
            if time.monotonic() > end or not self.alive():
                raise RuntimeError(f"{self.name} did not answer within 60 s:\n{self.logs()}")
            time.sleep(0.05)
        self.pid = int(self.inspect("{{.State.Pid}}"))

    def inspect(self, fmt):
        return subprocess.run(["docker", "inspect", "-f", fmt, self.name], capture_output=True, text=True).stdout.strip()

    def alive(self):
        return self.inspect("{{.State.Running}}") == "true"

    def revive(self):
        """Before a run: a container the kernel killed is counted and started again."""
        if not self.alive():
            if self.inspect("{{.State.OOMKilled}}") == "true":
                self.oom_kills += 1
                log(f"{self.name}: OOM-killed ({self.oom_kills} so far), started again")
            else:
                log(f"{self.name}: exited ({self.inspect('{{.State.ExitCode}}')}), started again:\n{self.logs()}")
            self.start()

    def pids(self):
        return [self.pid] if self.pid else []

    def logs(self):
        r = subprocess.run(["docker", "logs", "--tail", "30", self.name], capture_output=True, text=True)
        return r.stdout + r.stderr

    def stop(self):
        subprocess.run(["docker", "rm", "-f", self.name], capture_output=True, timeout=60)

    def heap(self):
        """The heap's committed and maximum bytes, from the app's /metrics."""
        try:
            with urllib.request.urlopen(f"http://{HOST}:{self.metrics_port}/metrics", timeout=10) as r:
                text = r.read().decode()
        except OSError as e:
            raise RuntimeError(f"no /metrics: {e}") from None
        return tuple(float(re.search("^jvm_memory_" + k + r'_bytes\{area="heap"\} (\S+)$', text, re.M).group(1))
                     for k in ("committed", "max"))

    def memory(self):
        """After the rounds: a scrape, then the cgroup's figures and the JVM's RSS (bytes, kB)."""
        try:
            with urllib.request.urlopen(f"http://{HOST}:{self.metrics_port}/metrics", timeout=10) as r:
                r.read()
            time.sleep(0.5)
            d = cgroup_dir(self.pid)
            mem = cgroup_memory(d) if d else {}
        except OSError as e:
            raise RuntimeError(f"no memory figures: {e}") from None
        mem["rss_kb"] = memory_kb([self.pid])[0]
        mem["mappings"] = footprint.mappings(self.pid)
        return mem


def compose_limit_mib():
    """The app's memory limit in docker-compose.yml (its one owner), in MiB."""
    import yaml
    from .settings import ROOT
    spec = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    value = str(spec["services"]["app"]["deploy"]["resources"]["limits"]["memory"]).lower()
    m = re.fullmatch(r"(\d+)\s*(m|mb|mib|g|gb|gib)", value)
    if not m:
        raise RuntimeError(f"docker-compose.yml: the app's memory limit {value!r} is not in MiB or GiB")
    return int(m.group(1)) * (1024 if m.group(2).startswith("g") else 1)


def available():
    return bool(IMAGE) and subprocess.run(["docker", "image", "inspect", IMAGE], capture_output=True).returncode == 0


def evict(image):
    """Drop the image's files from the page cache (pages no running process maps), so that the next
    container is charged for what it reads; the number of files, or None when that was not possible."""
    r = subprocess.run(["docker", "image", "inspect", "-f", "{{.GraphDriver.Data.LowerDir}}:{{.GraphDriver.Data.UpperDir}}",
                        image], capture_output=True, text=True)
    n = 0
    for layer in filter(None, r.stdout.strip().split(":")):
        for top in ("opt", "usr/lib", "lib"):
            for d, _, files in os.walk(Path(layer) / top):
                for f in files:
                    try:
                        fd = os.open(Path(d) / f, os.O_RDONLY | os.O_NOFOLLOW)
                    except OSError:
                        continue
                    try:
                        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                        n += 1
                    finally:
                        os.close(fd)
    return n or None


def run(ws, m):
    limits = [compose_limit_mib()] if SMOKE else LIMITS_MIB
    apps = [Limited(ws, mib) for mib in limits]
    evicted = None
    for r in range(ROUNDS):
        for a in apps[r % len(apps):] + apps[:r % len(apps)]:
            t = a.targets[0]
            try:
                evicted = evict(IMAGE)
                t0 = time.monotonic()
                a.start()
                a.startups.append(time.monotonic() - t0)
                if WARMUP:
                    t.load(max(CONCS), WARMUP)
                for conc in CONCS:
                    a.revive()
                    try:
                        res = t.timed(conc, DURATION)
                    except RuntimeError as e:   # wrk against a container killed under it
                        log(f"{a.name} c={conc}: {e}")
                        t.runs.setdefault(conc, []).append({"rps": 0.0, "requests": 0, "p50_ms": None,
                                                            "p99_ms": None, "bad": 1, "server_cpu": None})
                        continue
                    log(f"round {r + 1}/{ROUNDS} {a.key} c={conc}: {res['rps']:,.0f} req/s, "
                        f"p99 {res['p99_ms']:.2f} ms, bad {res['bad']}")
                a.revive()
                a.mems.append(a.memory())
                log(f"memory {a.key}: charged {a.mems[-1].get('charged', 0) / 2**20:.1f} MiB (anonymous "
                    f"{a.mems[-1].get('anon', 0) / 2**20:.1f}), RSS {a.mems[-1]['rss_kb'] / 1024:.1f} MB, "
                    f"start {a.startups[-1]:.1f} s, OOM kills {a.oom_kills}")
                a.revive()   # killed by the scrape or since
            except RuntimeError as e:   # it never answered (the limit too small to start in 60 s)
                log(f"{a.name}: {e}")
            finally:
                a.stop()
    return {"machine": m, "mode": "smoke" if SMOKE else "full", "image": IMAGE, "duration_s": DURATION,
            "rounds": ROUNDS, "concurrency": CONCS, "reference_mib": REFERENCE_MIB, "target_mib": TARGET_MIB,
            "target_ratio": TARGET_RATIO, "cold": evicted is not None,
            "limits": [{"mib": a.mib, "oom_kills": a.oom_kills, "starts": a.starts, "startup_s": med(a.startups),
                        "memory": {k: med([x.get(k) for x in a.mems]) for k in ("charged", "anon", "file", "peak", "rss_kb")},
                        "mappings": a.mems[-1]["mappings"] if a.mems else None,
                        "conc": {str(k): a.targets[0].summary(k) for k in CONCS},
                        "runs": {str(k): v for k, v in a.targets[0].runs.items()}} for a in apps]}


def section(res):
    """The table of docs/bench.md between its bench:limits markers."""
    from .sections import fmt_int, fmt_ms, fmt_x, generated_by, machine_line
    concs, hi = res["concurrency"], max(res["concurrency"])
    ref = next((x for x in res["limits"] if x["mib"] == res["reference_mib"]), None)

    def rps(x, c):
        s = x["conc"].get(str(c))
        return s["rps"] if s else None

    def mib(v):
        return "–" if v is None else f"{v / 2**20:.1f}"

    lines = [generated_by("make bench", res), "", f"Machine: {machine_line(res['machine'])}.", "",
             f"The compose app image (`{res['image']}`: app/Dockerfile, JDK 25 jlinked, its AOT cache) in a "
             f"container per memory limit, hardened as docker-compose.yml runs it, no swap, pinned to the server "
             f"core; one container at a time, started fresh in each of {res['rounds']} rounds (the rounds alternate "
             f"the limits)" + (", each from a cold page cache (the image's files dropped from it first: the kernel "
                               "charges a container for the file pages it reads)" if res.get("cold") else "") +
             f". Per start: the time to the first 302, a warm-up, the sidecar row's load (wrk -t1, `/`, "
             f"{res['duration_s']} s at each concurrency), a scrape of /metrics, then the memory the kernel charges "
             f"the container (its cgroup), of which anonymous (what it cannot drop and read again from the image's "
             f"files), the peak, and the JVM's RSS; medians. A container the kernel killed is counted and started "
             f"again.", "",
             "| Limit MiB | " + " | ".join(f"req/s c={c}" for c in concs) +
             f" | p99 ms c={hi} | × {res['reference_mib']} MiB (c={hi}) | OOM kills | start-up s | charged MiB "
             f"| anonymous MiB | peak MiB | RSS MB |", "|--:|" + "--:|" * (len(concs) + 8)]
    for x in res["limits"]:
        s = x["conc"].get(str(hi))
        r = rps(x, hi) / rps(ref, hi) if ref and rps(x, hi) and rps(ref, hi) else None
        mem = x["memory"] or {}
        lines.append(f"| {x['mib']} | " + " | ".join(fmt_int(rps(x, c)) for c in concs) +
                     f" | {fmt_ms(s['p99_ms']) if s and s['p99_ms'] is not None else '–'} | {fmt_x(r)} | "
                     f"{x['oom_kills']} | {'–' if x.get('startup_s') is None else format(x['startup_s'], '.1f')} | {mib(mem.get('charged'))} | {mib(mem.get('anon'))} | {mib(mem.get('peak'))} | "
                     f"{'–' if mem.get('rss_kb') is None else format(mem['rss_kb'] / 1024, '.1f')} |")
    ref_maps = (ref or {}).get("mappings")
    if ref_maps:
        lines += ["", f"Where the JVM's RSS goes in the container at {res['reference_mib']} MiB (its last start, "
                      f"`/proc/PID/smaps`; the JDK 17 figures with NMT's summary are in the tuning section):", "",
                  footprint.tables({"mappings": ref_maps}, nmt=False)]
    return "\n".join(lines) + "\n\n" + smallest_note(res)


def smallest_note(res):
    """What the smallest limit did, in words: the project's target for it is the console's (bench.py)."""
    hi = str(max(res["concurrency"]))
    ref = next((x for x in res["limits"] if x["mib"] == res["reference_mib"]), None)
    low = next((x for x in res["limits"] if x["mib"] == res["target_mib"]), None)
    if not (ref and low and ref["conc"].get(hi)):
        return ""
    if not low["conc"].get(hi):
        return (f"At {res['target_mib']} MiB the app did not answer within a minute of its start "
                f"({low['oom_kills']} OOM kills): give it more.")
    r = low["conc"][hi]["rps"] / ref["conc"][hi]["rps"] if ref["conc"][hi]["rps"] else 0
    return (f"At {res['target_mib']} MiB it answered {r:.2f}× the req/s at {res['reference_mib']} MiB (c={hi}), "
            f"{low['oom_kills']} OOM kills.")
