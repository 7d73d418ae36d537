#!/usr/bin/env python3
"""Issue 36's A/B of the hop (docs/bench.md, "The hop"): full stacks that differ in one thing, side by side
in one run, loaded in turn (the order rotating each round), medians of the rounds. Not part of `make bench`:
a tool to decide a change with, its numbers quoted in docs/bench.md.

    bench/hop_ab.py VARIANT... [--rounds N] [--seconds S] [--conc C]

A VARIANT is NAME=CHANGE[+CHANGE...] over the shared Nginx files of an nginx/ directory (default: this
checkout's), each change one of:
    dir:PATH     the nginx/ directory at PATH (e.g. a copy of the previous commit's, from git archive)
    jar:PATH     the sidecar's jar at PATH
    io:N         the sidecar with --io-threads N
    batch        both processes SCHED_BATCH (no wakeup preemption between them)
    bound        instead of a stack: the bench's bound, Nginx alone answering the 302 (foxbench NginxAlone)
    logbuf       (with bound) its access log buffered like the per-deployment file's
Every stack runs on the server core (BENCH_SERVER_CPU, 1), wrk/h2load on the load core (BENCH_CLIENT_CPU, 0).
Per variant: HTTPS/1.1 (wrk) and HTTP/2 (h2load) req/s at --conc, and the voluntary and involuntary context
switches per request of Nginx's worker and of the sidecar (/proc/PID/task/*/status, over the wrk runs)."""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tools")]   # imageset/, tools/loopback.py
import loopback  # noqa: E402

SERVER_CPU = os.environ.get("BENCH_SERVER_CPU", "1")
NICE = []   # --nice N: the servers and the load at nice N (a shared machine's other work gets less of both cores)
CLIENT_CPU = os.environ.get("BENCH_CLIENT_CPU", "0")


def tree(pid):
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [pid] + [p for c in out for p in tree(int(c))]


def renice(pid):
    if NICE:
        for task in Path(f"/proc/{pid}/task").iterdir():
            subprocess.run(["renice", "-n", NICE[2], "-p", task.name], capture_output=True, check=True)


def cpu(pids):
    total = 0
    for pid in pids:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                f = (task / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(f[11]) + int(f[12])
    return total / os.sysconf("SC_CLK_TCK")


def switches(pids):
    vol = invol = 0
    for pid in pids:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                text = (task / "status").read_text()
            except OSError:
                continue
            vol += int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", text, re.M).group(1))
            invol += int(re.search(r"^nonvoluntary_ctxt_switches:\s+(\d+)", text, re.M).group(1))
    return vol, invol


class Variant:
    def __init__(self, spec):
        self.name, _, changes = spec.partition("=")
        self.dir, self.jar, self.io, self.batch = loopback.NGINX_DIR, loopback.JAR, None, False
        self.bound = self.logbuf = False
        for change in filter(None, changes.split("+")):
            kind, _, arg = change.partition(":")
            if kind == "dir":
                self.dir = Path(arg).resolve()
            elif kind == "jar":
                self.jar = Path(arg).resolve()
            elif kind == "io":
                self.io = int(arg)
            elif kind == "batch":
                self.batch = True
            elif kind == "bound":
                self.bound = True
            elif kind == "logbuf":
                self.logbuf = True
            elif kind != "main":
                sys.exit(f"hop_ab: unknown change {change!r} in {spec!r}")
        self.h1, self.h2, self.sw = [], [], {"nginx": [0, 0], "app": [0, 0]}
        self.requests = 0
        self.cpu = {"nginx": 0.0, "app": 0.0}
        self.cpu2, self.requests2 = 0.0, 0

    def start(self):
        loopback.NGINX_DIR, loopback.JAR = self.dir, self.jar
        if self.bound:
            return self.start_bound()
        original = loopback.LoopbackStack.start_app
        io = self.io

        def start_app(stack):
            if io is None:
                return original(stack)
            real = subprocess.Popen
            subprocess.Popen = lambda argv, **kw: real(argv + ["--io-threads", str(io)], **kw)
            try:
                return original(stack)
            finally:
                subprocess.Popen = real
        loopback.LoopbackStack.start_app = start_app
        try:
            self.stack = loopback.LoopbackStack()
        finally:
            loopback.LoopbackStack.start_app = original
        self.nginx_pids = tree(self.stack.nginx_proc.pid)[1:]   # the worker(s)
        self.app_pids = [self.stack.app.pid]
        for pid in tree(self.stack.nginx_proc.pid) + self.app_pids:
            subprocess.run(["taskset", "-a", "-p", "-c", SERVER_CPU, str(pid)], capture_output=True, check=True)
            renice(pid)
            if self.batch:
                subprocess.run(["chrt", "-a", "-b", "-p", "0", str(pid)], capture_output=True, check=True)
        self.url = f"https://127.0.0.1:{self.stack.https_port}/"

    def start_bound(self):
        sys.path.insert(0, str(REPO / "bench"))
        from foxbench.candidates import NginxAlone
        from foxbench.workspace import Workspace
        self.ws = Workspace()
        self.cand = NginxAlone(self.ws)
        if self.logbuf:
            site = self.cand.dir / "conf" / "conf.d" / "site.conf"
            site.write_text(site.read_text().replace(" avatar_anonymous;", " avatar_anonymous buffer=4k flush=1s;"))
        self.cand.start()
        self.nginx_pids = tree(self.cand.procs[0].pid)[1:]
        self.app_pids = []
        for pid in tree(self.cand.procs[0].pid):
            renice(pid)
        self.url = f"https://127.0.0.1:{self.cand.https}/"

    def wrk(self, conc, seconds, record=True):
        c0 = (cpu(self.nginx_pids), cpu(self.app_pids))
        before = (switches(self.nginx_pids), switches(self.app_pids))
        r = subprocess.run([*NICE, "taskset", "-c", CLIENT_CPU, "wrk", "-t1", f"-c{conc}", f"-d{seconds}s", self.url],
                           capture_output=True, text=True, check=True)
        after = (switches(self.nginx_pids), switches(self.app_pids))
        c1 = (cpu(self.nginx_pids), cpu(self.app_pids))
        n = int(re.search(r"(\d+) requests in", r.stdout).group(1))
        if "Non-2xx" not in r.stdout or "Socket errors" in r.stdout:
            pass  # every answer is a 302 (non-2xx); errors are reported below
        if re.search(r"Socket errors", r.stdout):
            print(f"  {self.name}: {r.stdout.strip().splitlines()[-3]}", file=sys.stderr)
        if record:
            self.h1.append(float(re.search(r"Requests/sec:\s+([\d.]+)", r.stdout).group(1)))
            self.requests += n
            self.cpu["nginx"] += c1[0] - c0[0]
            self.cpu["app"] += c1[1] - c0[1]
            for i, key in enumerate(("nginx", "app")):
                self.sw[key][0] += after[i][0] - before[i][0]
                self.sw[key][1] += after[i][1] - before[i][1]

    def h2load(self, conc, seconds):
        conns = min(10, conc)
        c0 = cpu(self.nginx_pids) + cpu(self.app_pids)
        done, busy, end = 0, 0.0, time.monotonic() + seconds
        while time.monotonic() < end:
            r = subprocess.run([*NICE, "taskset", "-c", CLIENT_CPU, "h2load", "-t1", f"-c{conns}", f"-m{conc // conns}",
                                "-n", str(conns * 1000), self.url], capture_output=True, text=True, check=True)
            m = re.search(r"finished in ([\d.]+)(m?s)", r.stdout)
            busy += float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)
            done += int(re.search(r"requests: \d+ total, \d+ started, (\d+) done", r.stdout).group(1))
        self.h2.append(done / busy)
        self.cpu2 += cpu(self.nginx_pids) + cpu(self.app_pids) - c0
        self.requests2 += done

    def close(self):
        if self.bound:
            self.cand.stop()
            self.ws.close()
        else:
            self.stack.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--conc", type=int, default=100)
    ap.add_argument("--no-h2", action="store_true")
    ap.add_argument("--nice", help="run the servers and the load at this nice value (e.g. -20)")
    ap.add_argument("--warmup", type=int, default=10, help="seconds of wrk per variant before the rounds")
    a = ap.parse_args()
    if a.nice:
        NICE[:] = ["nice", "-n", a.nice]
    variants = [Variant(s) for s in a.variants]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))   # stop the stacks (finally below)
    print(f"load average at start: {Path('/proc/loadavg').read_text().split()[:3]}", file=sys.stderr)
    try:
        for v in variants:
            v.start()
            v.wrk(a.conc, a.warmup, record=False)   # warm-up (the sidecar's JIT, Nginx's pool)
        for r in range(a.rounds):
            order = variants[r % len(variants):] + variants[:r % len(variants)]
            for v in order:
                v.wrk(a.conc, a.seconds)
                if not a.no_h2:
                    v.h2load(a.conc, a.seconds)
            print(f"round {r + 1}: " + ", ".join(f"{v.name} {v.h1[-1]:,.0f}" + ("" if a.no_h2 else f"/{v.h2[-1]:,.0f}")
                                                 for v in variants), file=sys.stderr)
    finally:
        for v in variants:
            try:
                v.close()
            except Exception:
                pass
    print(f"load average at end: {Path('/proc/loadavg').read_text().split()[:3]}", file=sys.stderr)
    ref = variants[0]
    print(f"| variant | HTTPS/1.1 req/s c={a.conc} | × {ref.name} | HTTP/2 req/s | × {ref.name} | "
          "Nginx cs/req (vol+invol) | sidecar cs/req (vol+invol) | server CPU µs/req HTTPS/1.1 (Nginx + sidecar) | HTTP/2 |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for v in variants:
        h1, h2 = statistics.median(v.h1), (statistics.median(v.h2) if v.h2 else float("nan"))
        r1, r2 = statistics.median(ref.h1), (statistics.median(ref.h2) if ref.h2 else float("nan"))
        ng, ap_ = v.sw["nginx"], v.sw["app"]
        print(f"| {v.name} | {h1:,.0f} | {h1 / r1:.3f} | {h2:,.0f} | {h2 / r2:.3f} | "
              f"{ng[0] / v.requests:.3f}+{ng[1] / v.requests:.3f} | {ap_[0] / v.requests:.3f}+{ap_[1] / v.requests:.3f} | "
              f"{1e6 * (v.cpu['nginx'] + v.cpu['app']) / v.requests:.1f} ({1e6 * v.cpu['nginx'] / v.requests:.1f} + "
              f"{1e6 * v.cpu['app'] / v.requests:.1f}) | {1e6 * v.cpu2 / max(1, v.requests2):.1f} |")


if __name__ == "__main__":
    main()
