"""The targets (a candidate's URL in one protocol) and the tools that load them: a tool's run() returns rps,
requests, p50_ms, p99_ms, bad (not the expected status, or failed)."""
import json
import re
import subprocess
import tempfile
import time

from .common import BENCH, cpu_seconds, med


def header_args(headers):
    return [a for k, v in (headers or {}).items() for a in ("-H", f"{k}: {v}")]


class Wrk:
    """wrk -t1, keep-alive; count=True adds a Lua call per response counting every unexpected status."""
    name = "wrk"

    def run(self, url, conc, duration, count=False, headers=None, expect=302):
        r = subprocess.run(["wrk", "-t1", f"-c{conc}", f"-d{duration}s", "--timeout", "5s", *header_args(headers),
                            "-s", str(BENCH / "wrk-report.lua"), url] + (["--", "count", str(expect)] if count else []),
                           capture_output=True, text=True, timeout=duration + 60)
        m = re.search(r"^WRKJSON (\{.*\})$", r.stdout, re.M)
        if r.returncode != 0 or not m:
            raise RuntimeError(f"wrk failed ({r.returncode}): {r.stdout[-500:]} {r.stderr[-500:]}")
        j = json.loads(m.group(1))
        return {"rps": j["requests"] / (j["duration_us"] / 1e6), "requests": j["requests"],
                "p50_ms": j["p50_us"] / 1000, "p99_ms": j["p99_us"] / 1000,
                "bad": (j["not302"] if count else j["status"]) + j["connect"] + j["read"] + j["write"] + j["timeout"]}


def h2_shape(conc):
    """HTTP/2's (connections, streams per connection) for a total concurrency: 10 connections at most."""
    conns = min(10, conc)
    return conns, max(1, conc // conns)


class H2load:
    """HTTP/2 with h2_shape's connections. Nginx ends a connection after keepalive_requests (1000) and h2load
    never reconnects, so h2load runs again and again with 1000 requests per connection until `duration` is
    used up; the rate is all requests over the sum of h2load's own run times (TLS handshakes included)."""
    name = "h2load"

    def run(self, url, conc, duration, count=False, headers=None, expect=302):
        conns, streams = h2_shape(conc)
        done = good = failed = 0
        busy, lat, end = 0.0, [], time.monotonic() + duration
        while time.monotonic() < end or not busy:
            with tempfile.NamedTemporaryFile(prefix="h2load-", suffix=".log") as lf:
                r = subprocess.run(["h2load", "-t1", f"-c{conns}", f"-m{streams}", "-n", str(conns * 1000),
                                    "--log-file", lf.name, *header_args(headers), url],
                                   capture_output=True, text=True, timeout=120)
                m = re.search(r"finished in ([\d.]+)(m?s), ([\d.]+) req/s", r.stdout)
                st = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", r.stdout)
                q = re.search(r"requests: \d+ total, \d+ started, (\d+) done, \d+ succeeded, (\d+) failed, (\d+) errored",
                              r.stdout)
                if r.returncode != 0 or not (m and st and q):
                    raise RuntimeError(f"h2load failed ({r.returncode}): {r.stdout[-800:]} {r.stderr[-300:]}")
                busy += float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)
                done, good = done + int(q.group(1)), good + int(st.group(expect // 100 - 1))
                failed += int(q.group(2)) + int(q.group(3))
                lat += [int(p[2]) for p in (x.split("\t") for x in open(lf.name)) if len(p) >= 3]
        lat.sort()
        return {"rps": done / busy, "requests": done, "p50_ms": percentile(lat, 50) / 1000,
                "p99_ms": percentile(lat, 99) / 1000, "bad": done - good + failed}


TOOLS = {t.name: t for t in [Wrk(), H2load()]}


def percentile(vals, q):
    return vals[min(len(vals) - 1, max(0, int(round(q / 100 * len(vals) + 0.5)) - 1))] if vals else float("nan")


class Target:
    """One candidate's URL in one protocol, loaded by one tool (a name in TOOLS or a tool object with a
    status() of its own); path: "/", the avatar URL or an image (expect 200: Nginx serves the file)."""

    def __init__(self, cand, proto, url, tool="wrk", path="/", headers=None, expect=302):
        self.runner = TOOLS[tool] if isinstance(tool, str) else tool
        self.cand, self.proto, self.url, self.tool = cand, proto, url, self.runner.name
        self.path, self.headers, self.expect = path, headers or {}, expect
        self.runs, self.check, self.location = {}, None, None

    @property
    def label(self):
        return (f"{self.cand.key} {self.proto}" + ("" if self.path == "/" else f" {self.path}")
                + "".join(f" +{name}" for name in self.headers))

    def load(self, conc, duration, count=False):
        return self.runner.run(self.url.rstrip("/") + self.path, conc, duration, count, self.headers, self.expect)

    def timed(self, conc, duration):
        """A measured run, with the server's CPU share during it, kept in self.runs."""
        pids = self.cand.pids()
        c0, w0 = cpu_seconds(pids), time.monotonic()
        res = self.load(conc, duration)
        # busy_s: a tool that idles after its run (oha's HTTP/3 client) says how long it loaded
        res["server_cpu"] = (cpu_seconds(pids) - c0) / res.pop("busy_s", time.monotonic() - w0)
        self.runs.setdefault(conc, []).append(res)
        return res

    def status(self):
        """The status of one request (None when nothing answers); its Location is kept in self.location."""
        url = self.url.rstrip("/") + self.path
        if hasattr(self.runner, "status"):
            status, self.location = self.runner.status(url, self.headers)
            return status
        r = subprocess.run(["curl", "-sk", "--http2" if self.tool == "h2load" else "--http1.1", "-o", "/dev/null",
                            *header_args(self.headers), "-w", "%{http_code} %{redirect_url}", "--max-time", "3", url],
                           capture_output=True, text=True, timeout=60)
        status, _, self.location = r.stdout.partition(" ")
        return int(status) if status.isdigit() else None

    def summary(self, conc):
        """Medians over the rounds at one concurrency (None when it was not run)."""
        runs = self.runs.get(conc)
        return runs and {**{k: med([r[k] for r in runs]) for k in ("rps", "p50_ms", "p99_ms", "server_cpu")},
                         **{k: sum(r[k] for r in runs) for k in ("bad", "requests")}}
