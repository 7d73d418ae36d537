"""The load: the targets (a candidate's URL in one protocol) and the tools that load them. A keep-alive
load tool is one class with a name and run(url, conc, duration, count) returning the result fields
below, listed in TOOLS; `ab` (no keep-alive, the original test) is a fixed-count run beside them. A
target may add request headers (the avatar URL sends a browser's Accept): every tool sends them.
A target expects a status (302; the images' target 200): every tool counts the other answers as bad.
Result fields: rps, requests, p50_ms, p99_ms, bad (not the expected status, or failed), not302 (not the
expected status: the name is older than the images' target), errors."""
import json
import re
import statistics
import subprocess
import tempfile
import time

from .processes import cpu_seconds
from .settings import BENCH


class Wrk:
    """wrk -t1, keep-alive; the timed runs use a done() hook only (bench/wrk-report.lua), count=True
    adds a Lua call per response that counts every status but the expected one."""
    name = "wrk"

    def run(self, url, conc, duration, count=False, headers=None, expect=302):
        cmd = ["wrk", "-t1", f"-c{conc}", f"-d{duration}s", "--timeout", "5s", *header_args(headers),
               "-s", str(BENCH / "wrk-report.lua"), url] + (["--", "count", str(expect)] if count else [])
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 60)
        m = re.search(r"^WRKJSON (\{.*\})$", r.stdout, re.M)
        if r.returncode != 0 or not m:
            raise RuntimeError(f"wrk failed ({r.returncode}): {r.stdout[-500:]} {r.stderr[-500:]}")
        j = json.loads(m.group(1))
        errors = j["connect"] + j["read"] + j["write"] + j["timeout"]
        bad = (j["not302"] if count else j["status"]) + errors
        return {"rps": j["requests"] / (j["duration_us"] / 1e6), "requests": j["requests"],
                "p50_ms": j["p50_us"] / 1000, "p99_ms": j["p99_us"] / 1000,
                "bad": bad, "not302": j["not302"], "errors": errors}


H2_PER_CONNECTION = 1000  # Nginx's keepalive_requests (default 1000, also for HTTP/2 since 1.19.7)


class H2load:
    """HTTP/2: 10 connections with conc/10 streams each (the same total concurrency as wrk). Nginx ends a
    connection after keepalive_requests (1000) requests and h2load never reconnects, so h2load runs again
    and again with exactly 1000 requests per connection until `duration` is used up; the rate is all
    requests over the sum of h2load's own run times (which include the TLS handshakes, as a browser's
    reconnect would). Always counts the responses of the expected class (3xx for a 302, 2xx for a 200)."""
    name = "h2load"

    def run(self, url, conc, duration, count=False, headers=None, expect=302):
        conns, streams = self.shape(conc)
        klass = expect // 100  # h2load counts by class: 1 for 1xx ... 5 for 5xx
        done = nexp = failed = errored = timeouts = 0
        busy = 0.0
        lat = []
        end = time.monotonic() + duration
        runs = 0
        while time.monotonic() < end or runs == 0:
            runs += 1
            with tempfile.NamedTemporaryFile(prefix="h2load-", suffix=".log", dir=self.logdir) as lf:
                cmd = self.command(conns, streams, conns * H2_PER_CONNECTION, lf.name, headers, url)
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
                out = r.stdout
                m = re.search(r"finished in ([\d.]+)(m?s), ([\d.]+) req/s", out)
                st = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", out)
                q = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, "
                              r"(\d+) failed, (\d+) errored, (\d+) timeout", out)
                if r.returncode != 0 or not (m and st and q):
                    raise RuntimeError(f"h2load failed ({r.returncode}): {out[-800:]} {r.stderr[-300:]}")
                busy += float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)
                done += int(q.group(3))
                nexp += int(st.group(klass - 1))
                failed += int(q.group(5))
                errored += int(q.group(6))
                timeouts += int(q.group(7))
                with open(lf.name) as f:
                    for line in f:
                        parts = line.split("\t")
                        if len(parts) >= 3:
                            lat.append(int(parts[2]))
        lat.sort()
        return {"rps": done / busy if busy else 0.0, "requests": done, "p50_ms": percentile(lat, 50) / 1000,
                "p99_ms": percentile(lat, 99) / 1000, "bad": (done - nexp) + failed + errored,
                "not302": done - nexp, "errors": failed + errored + timeouts}

    logdir = None  # where its log files go (None: the system's temp dir)

    def shape(self, conc):
        """(connections, streams per connection) for a total concurrency."""
        conns = min(10, conc)
        return conns, max(1, conc // conns)

    def command(self, conns, streams, n, logfile, headers, url):
        return ["h2load", "-t1", f"-c{conns}", f"-m{streams}", "-n", str(n), "--log-file", logfile,
                *header_args(headers), url]


TOOLS = {t.name: t for t in [Wrk(), H2load()]}


def header_args(headers):
    """-H NAME: VALUE for each request header (wrk, h2load and ab take the same option)."""
    return [a for k, v in (headers or {}).items() for a in ("-H", f"{k}: {v}")]


def percentile(sorted_vals, q):
    if not sorted_vals:
        return float("nan")
    i = min(len(sorted_vals) - 1, max(0, int(round(q / 100 * len(sorted_vals) + 0.5)) - 1))
    return sorted_vals[i]


def run_ab(url, n, headers=None):
    """ab -n N -c 10 without keep-alive (the original test): {"rps", "bad"}."""
    r = subprocess.run(["ab", "-q", "-n", str(n), "-c", "10", *header_args(headers), url], capture_output=True,
                       text=True, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"ab failed: {r.stdout[-500:]} {r.stderr[-500:]}")
    rps = float(re.search(r"Requests per second:\s+([\d.]+)", r.stdout).group(1))
    complete = int(re.search(r"Complete requests:\s+(\d+)", r.stdout).group(1))
    failed = int(re.search(r"Failed requests:\s+(\d+)", r.stdout).group(1))
    non2xx = re.search(r"Non-2xx responses:\s+(\d+)", r.stdout)
    # every answer must be a redirect: ab counts 302 as "non-2xx"
    bad = failed + (complete - (int(non2xx.group(1)) if non2xx else 0)) + (n - complete)
    return {"rps": rps, "bad": bad}


def curl_status(url, http2=False, headers=None):
    """(status, Location) of one GET with curl (status None when nothing answers)."""
    r = subprocess.run(["curl", "-sk", "--http2" if http2 else "--http1.1", "-o", "/dev/null", *header_args(headers),
                        "-w", "%{http_code} %{redirect_url}", "--max-time", "3", url], capture_output=True, text=True)
    status, _, location = r.stdout.partition(" ")
    return (int(status), location) if status.isdigit() else (None, "")


def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


class Target:
    """One candidate's URL in one protocol, loaded by one tool; collects the results of its runs."""

    def __init__(self, cand, proto, url, tool="wrk", path="/", headers=None, expect=302):
        """url: the server's root (http://host:port/); path: the request, "/", the avatar URL or an
        image (expect 200: Nginx serves the file); tool: a name in TOOLS or a tool object (with a status()
        of its own: trixie.py's, which loads 302 targets only)."""
        self.runner = TOOLS[tool] if isinstance(tool, str) else tool
        self.cand, self.proto, self.url, self.tool = cand, proto, url, self.runner.name
        self.path, self.headers, self.expect = path, headers or {}, expect
        self.runs = {}  # concurrency -> list of result dicts
        self.ab = self.check = None
        self.location = None  # the Location of the first answer (status())

    @property
    def label(self):
        return (f"{self.cand.key} {self.proto}" + ("" if self.path == "/" else f" {self.path}")
                + "".join(f" +{name}" for name in self.headers))

    @property
    def request_url(self):
        return self.url.rstrip("/") + self.path

    def load(self, conc, duration, count=False):
        if self.expect == 302:
            return self.runner.run(self.request_url, conc, duration, count, self.headers)
        return self.runner.run(self.request_url, conc, duration, count, self.headers, expect=self.expect)

    def timed(self, conc, duration):
        """A measured run: the result with the server's CPU share during it, kept in self.runs."""
        pids = self.cand.pids()
        c0, w0 = cpu_seconds(pids), time.monotonic()
        res = self.load(conc, duration)
        # busy_s: a tool that idles after its run (oha's HTTP/3 client) says how long it loaded
        res["server_cpu"] = (cpu_seconds(pids) - c0) / res.pop("busy_s", time.monotonic() - w0)
        self.runs.setdefault(conc, []).append(res)
        return res

    def status(self):
        """The status of one request (None when nothing answers); its Location is kept in self.location."""
        if hasattr(self.runner, "status"):
            status, self.location = self.runner.status(self.request_url, self.headers)
        else:
            status, self.location = curl_status(self.request_url, http2=self.tool == "h2load", headers=self.headers)
        return status

    def summary(self, conc):
        """Medians over the rounds at one concurrency (None when it was not run)."""
        runs = self.runs.get(conc, [])
        if not runs:
            return None
        return {"rps": med([r["rps"] for r in runs]), "p50_ms": med([r["p50_ms"] for r in runs]),
                "p99_ms": med([r["p99_ms"] for r in runs]), "bad": sum(r["bad"] for r in runs),
                "requests": sum(r["requests"] for r in runs), "server_cpu": med([r["server_cpu"] for r in runs])}
