#!/usr/bin/env python3
"""fox-avatar benchmark harness (issue 7). Started by bench/run.sh; stdlib only.

Modes (environment):
  default          the full benchmark: every candidate, wrk c=10/100 in alternating rounds, ab, h2load,
                   memory, threads, start-up; writes docs/bench.md, docs/bench.png and the README section.
  BENCH_SMOKE=1    seconds-long check that every candidate starts and answers and that the report renders;
                   asserts no timings; writes only to a temp dir (never docs/ or README).
  TUNE=1           JVM flag sets and Undertow settings for the sidecar alone; writes the tuning section of
                   docs/bench.md.
  SOAK=1           10 million requests through the full stack, RSS sampled every few seconds; fails
                   unless memory stays flat and no request fails; writes the soak section of docs/bench.md.
Other knobs: BENCH_SERVER_CPU (1), BENCH_CLIENT_CPU (0), BENCH_IMAGES (images/), BENCH_OUT (output dir),
BENCH_DURATION, BENCH_ROUNDS, SOAK_REQUESTS.

All traffic is on 127.0.0.1; every loop and wait is bounded.
"""
import atexit
import datetime
import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
JAR = ROOT / "app" / "target" / "avatar.jar"
JVM_OPTIONS = ROOT / "app" / "jvm.options"
IMAGE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\.(png|jpg|jpeg|gif|webp)$")

SMOKE = os.environ.get("BENCH_SMOKE") == "1"
TUNE = os.environ.get("TUNE") == "1"
SOAK = os.environ.get("SOAK") == "1"

ncpu = len(os.sched_getaffinity(0))
SERVER_CPU = int(os.environ.get("BENCH_SERVER_CPU", "1" if ncpu > 1 else "0"))
CLIENT_CPU = int(os.environ.get("BENCH_CLIENT_CPU", "0"))

if SMOKE:
    DURATION, WARMUP, ROUNDS, CONCS, AB_N, STARTS = 1, 0, 1, [10], 2000, 1
else:
    DURATION = int(os.environ.get("BENCH_DURATION", "8"))
    WARMUP = 5
    ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
    CONCS = [10, 100]
    AB_N = 100_000
    STARTS = 10

HOST = "127.0.0.1"
TLS_NAME = "localhost"  # server_name and certificate name (one server per port: any SNI/Host lands on it)


def log(*a):
    print("bench:", *a, file=sys.stderr, flush=True)


def die(msg):
    log("ERROR:", msg)
    sys.exit(1)


# ---------------------------------------------------------------- processes and /proc


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def pin_server():
    os.sched_setaffinity(0, {SERVER_CPU})


def spawn(argv, logfile, env=None, cwd=None):
    """Start a server process pinned to the server core, in its own process group."""
    out = open(logfile, "ab")
    return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=env, cwd=cwd, preexec_fn=pin_server, start_new_session=True)


def stop(proc, sig=signal.SIGTERM, timeout=15):
    if proc is None or proc.poll() is not None:
        return
    try:
        proc.send_signal(sig)
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def children_map():
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = Path(f"/proc/{d}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(d))
    return kids


def tree(pids):
    """The given pids and all their descendants (nginx master + workers, php-fpm master + children)."""
    kids, out, todo = children_map(), [], list(pids)
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def memory_kb(pids):
    rss = pss = 0
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Rss:"):
                    rss += int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1])
        except OSError:
            pass
    return rss, pss


def threads(pids):
    n = 0
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("Threads:"):
                    n += int(line.split()[1])
        except OSError:
            pass
    return n


def cpu_seconds(pids):
    t = 0
    for p in pids:
        try:
            f = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            t += int(f[11]) + int(f[12])
        except OSError:
            pass
    return t / os.sysconf("SC_CLK_TCK")


def http_status(port, path="/", timeout=2.0):
    """One plain HTTP/1.1 request; the status code, or None when nothing answers yet."""
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: {TLS_NAME}\r\nConnection: close\r\n\r\n".encode())
            head = s.recv(64)
        m = re.match(rb"HTTP/1\.[01] (\d{3})", head)
        return int(m.group(1)) if m else None
    except OSError:
        return None


def wait_302(port, procs, t0, deadline_s=20.0):
    """Tight poll (0.5 ms apart) until GET / answers 302; seconds since t0. Bounded by deadline_s."""
    end = t0 + deadline_s
    while time.monotonic() < end:
        if http_status(port, timeout=1.0) == 302:
            return time.monotonic() - t0
        for p in procs:
            if p.poll() is not None:
                raise RuntimeError(f"{p.args[0]} exited with {p.returncode} before answering")
        time.sleep(0.0005)
    raise RuntimeError(f"no 302 on port {port} within {deadline_s} s")


# ---------------------------------------------------------------- environment


def images_dir():
    d = Path(os.environ.get("BENCH_IMAGES", ROOT / "images")).resolve()
    names = sorted(f.name for f in d.iterdir() if f.is_file() and IMAGE_RE.match(f.name)) if d.is_dir() else []
    if not names:
        die(f"BENCH_IMAGES: no images in {d} (run `make images`)")
    return d, names


def tool_version(argv, pattern=None):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=20)
        out = (r.stdout + r.stderr).strip()
    except (OSError, subprocess.TimeoutExpired):
        return "n/a"
    if pattern:
        m = re.search(pattern, out)
        return m.group(1) if m else out.splitlines()[0]
    return out.splitlines()[0] if out else "n/a"


def machine():
    cpu = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem_gb = int(Path("/proc/meminfo").read_text().split()[1]) / 1024 / 1024
    osname = "Linux"
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                osname = line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu, "cpus": os.cpu_count(), "mem_gb": round(mem_gb, 1), "os": osname,
        "kernel": platform.release(),
        "virt": tool_version(["systemd-detect-virt"]) if shutil.which("systemd-detect-virt") else "n/a",
        "java": tool_version(["java", "-version"], r'version "([^"]+)"'),
        "nginx": tool_version(["nginx", "-v"], r"nginx/(\S+)"),
        "php": tool_version([php_fpm_bin() or "false", "-v"], r"PHP (\S+)") if php_fpm_bin() else "not installed",
        "wrk": tool_version(["wrk", "-v"], r"wrk (\S+)"),
        "loadavg_start": Path("/proc/loadavg").read_text().split()[0],
        "server_cpu": SERVER_CPU, "client_cpu": CLIENT_CPU,
    }


def php_fpm_bin():
    for p in sorted(Path("/usr/sbin").glob("php-fpm*")):
        return str(p)
    return None


def make_cert(d):
    """A throw-away self-signed ECDSA certificate for localhost / 127.0.0.1 (same for every candidate)."""
    crt, key = d / "bench.crt", d / "bench.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-days", "2", "-subj", "/CN=localhost", "-addext",
                    "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(crt)],
                   check=True, capture_output=True)
    return crt, key


# ---------------------------------------------------------------- candidates


class Candidate:
    """A server set started fresh by the harness. Subclasses define start_procs() and the targets."""
    key = name = ""
    startup_port = None  # plain-HTTP port answering GET / with 302, for the start-up measurement

    def __init__(self, ctx):
        self.ctx, self.procs = ctx, []
        self.dir = Path(tempfile.mkdtemp(prefix=f"{self.key}-", dir=ctx.tmp))
        self.dir.chmod(0o755)  # Nginx workers run as nobody

    def start(self):
        """Start fresh; seconds from process start to the first 302 (self.start_cpu: CPU seconds by then)."""
        t0 = time.monotonic()
        self.procs = self.start_procs()
        t = wait_302(self.startup_port, self.procs, t0)
        self.start_cpu = cpu_seconds(self.pids())
        return t

    def stop(self):
        for p in reversed(self.procs):
            stop(p)
        self.procs = []

    def pids(self):
        return tree([p.pid for p in self.procs])

    def alive(self):
        return all(p.poll() is None for p in self.procs)

    def logs(self):
        out = []
        for f in sorted(self.dir.glob("*.log")):
            out.append(f"--- {f.name}\n" + f.read_text(errors="replace")[-3000:])
        return "\n".join(out)


def java_cmd(flags, port, io_threads=None):
    img, _ = IMAGES
    cmd = ["java", *flags, "-jar", str(JAR), "--images", str(img), "--port", str(port), "--bind", HOST]
    if io_threads:
        cmd += ["--io-threads", str(io_threads)]
    return cmd


class Sidecar(Candidate):
    key, name = "sidecar", "Sidecar direct (Undertow, app/jvm.options)"

    def __init__(self, ctx, flags=None, env=None, io_threads=None, key=None, name=None):
        self.key = key or self.key
        super().__init__(ctx)
        self.name = name or self.name
        self.flags = flags if flags is not None else [f"@{JVM_OPTIONS}"]
        self.env, self.io_threads = env, io_threads
        self.port = self.startup_port = free_port()
        self.targets = [Target(self, "HTTP/1.1", f"http://{HOST}:{self.port}/")]

    def start_procs(self):
        env = dict(os.environ, **(self.env or {}))
        return [spawn(java_cmd(self.flags, self.port, self.io_threads), self.dir / "java.log", env=env)]


class Baseline(Candidate):
    key, name = "baseline", "Baseline: JDK HttpServer, default executor, -Xmx8m -Xss256k"

    def __init__(self, ctx):
        super().__init__(ctx)
        self.port = self.startup_port = free_port()
        self.targets = [Target(self, "HTTP/1.1", f"http://{HOST}:{self.port}/")]

    def start_procs(self):
        img, _ = IMAGES
        return [spawn(["java", "-Xmx8m", "-Xss256k", "-cp", str(self.ctx.baseline_classes), "Baseline",
                       str(img), str(self.port), HOST], self.dir / "java.log")]


def nginx_proc(d, conf):
    return spawn(["nginx", "-p", str(d), "-e", str(d / "error.log"), "-c", str(conf)], d / "nginx-stdout.log")


_STACKS = None


def stacks():
    """tests/stack/stacks.py: the loopback stack of the shared HTTP tests (the shared Nginx configuration
    rendered for loopback, its Debian-shaped main nginx.conf, the test CA). Reused, not rewritten."""
    global _STACKS
    if _STACKS is None:
        import importlib.util
        spec = importlib.util.spec_from_file_location("fox_avatar_stacks", ROOT / "tests" / "stack" / "stacks.py")
        _STACKS = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_STACKS)
    return _STACKS


def main_conf(d, site):
    """The tests' main nginx.conf (shaped like Debian's, one worker: the server side of every candidate gets
    exactly one core, and more workers on one core only add context switches) with `site` as its only
    conf.d file, beside a symlink fox-avatar -> nginx/fox-avatar (the shared includes resolve relative to
    it)."""
    conf_dir = d / "conf"
    (conf_dir / "conf.d").mkdir(parents=True)
    (d / "logs").mkdir()
    (d / "var").mkdir()
    (conf_dir / "fox-avatar").symlink_to(ROOT / "nginx" / "fox-avatar")
    shutil.copy("/etc/nginx/mime.types", conf_dir / "mime.types")
    (conf_dir / "conf.d" / "site.conf").write_text(site)
    user = "user www-data;\n" if stacks()._user_exists("www-data") else "user nobody nogroup;\n"
    conf = conf_dir / "nginx.conf"
    conf.write_text(stacks().MAIN_CONF.format(user=user, tmp=d))
    return conf


class NginxAlone(Candidate):
    """Bound 4: Nginx answering / with the random 302 itself, no sidecar at all. It is our own fallback
    path made the only path: the shared http.conf (log format, the generated split_clients list),
    tls.conf and fallback.conf (the 302 with the sidecar's headers), logging like the full stack."""
    key, name = "nginx", "Bound: Nginx alone (split_clients 302)"

    def __init__(self, ctx, access_log=True):
        if not access_log:
            self.key, self.name = "nginx-nolog", "Nginx alone, access_log off"
        super().__init__(ctx)
        self.http, self.https = free_port(), free_port()
        self.startup_port = self.http
        self.targets = [Target(self, "HTTP/1.1", f"http://{HOST}:{self.http}/")]
        if access_log:
            self.targets += [Target(self, "HTTPS/1.1", f"https://{HOST}:{self.https}/"),
                             Target(self, "HTTPS/2", f"https://{HOST}:{self.https}/", tool="h2load")]
        crt, key = ctx.cert
        logline = f"access_log {self.dir}/logs/access.log avatar;" if access_log else "access_log off;"
        self.conf = main_conf(self.dir, f"""# Written by bench/bench.py: Nginx alone answers / itself (bound 4).
include fox-avatar/http.conf;
server {{
    listen {HOST}:{self.http};
    listen {HOST}:{self.https} ssl http2;
    server_name {TLS_NAME};
    ssl_certificate {crt};
    ssl_certificate_key {key};
    include fox-avatar/tls.conf;
    {logline}
    location = / {{
        include fox-avatar/fallback.conf;
    }}
    location / {{
        return 404;
    }}
}}
""")

    def start_procs(self):
        return [nginx_proc(self.dir, self.conf)]


class Php(Candidate):
    """Candidate 5: three lines of PHP behind php-fpm (Debian's stock php.ini, OPcache on), Nginx in front,
    set up the usual way (a connection per request to the pool's socket: FastCGI keep-alive with a
    static pool stalls once Nginx holds more idle connections than there are children)."""
    key, name = "php", "PHP via php-fpm (behind Nginx)"

    def __init__(self, ctx):
        super().__init__(ctx)
        self.http = self.startup_port = free_port()
        self.targets = [Target(self, "HTTP/1.1", f"http://{HOST}:{self.http}/")]
        img, _ = IMAGES
        sock = self.dir / "fpm.sock"
        self.fpm_conf = self.dir / "php-fpm.conf"
        # Debian's default pool size (pm.max_children = 5), static: no spawning while measured.
        self.fpm_conf.write_text(f"""[global]
pid = {self.dir}/php-fpm.pid
error_log = {self.dir}/php-fpm-error.log
daemonize = no
[bench]
listen = {sock}
listen.backlog = 4096
listen.mode = 0666
pm = static
pm.max_children = 5
env[AVATAR_IMAGES] = {img}
""")
        self.conf = main_conf(self.dir, f"""# Written by bench/bench.py: Nginx in front of php-fpm (candidate 5).
server {{
    listen {HOST}:{self.http};
    access_log {self.dir}/logs/access.log;
    location = / {{
        include /etc/nginx/fastcgi_params;
        fastcgi_param SCRIPT_FILENAME {BENCH}/php/index.php;
        fastcgi_pass unix:{sock};
    }}
    location / {{
        return 404;
    }}
}}
""")

    def start_procs(self):
        fpm = spawn([php_fpm_bin(), "-R", "-F", "-y", str(self.fpm_conf)], self.dir / "php-fpm.log")
        return [fpm, nginx_proc(self.dir, self.conf)]


def pin_tree(pids):
    """Pin running processes and every one of their threads to the server core."""
    for p in tree(pids):
        subprocess.run(["taskset", "-a", "-p", "-c", str(SERVER_CPU), str(p)], capture_output=True, check=True)


class Stack(Candidate):
    """Candidate 2: the full stack exactly as the shared HTTP tests start it on loopback
    (tests/stack/stacks.py LoopbackStack: the shared Nginx configuration rendered by nginx/render.py, the
    tests' main nginx.conf, a throw-away CA, the jar with app/jvm.options), pinned to the server core."""
    key, name = "stack", "Full stack: our Nginx config (HTTPS) -> sidecar"

    def __init__(self, ctx):
        super().__init__(ctx)
        self.ls = None
        self.targets = [Target(self, "HTTPS/1.1", None), Target(self, "HTTPS/2", None, tool="h2load")]

    def start(self):
        self.ls = stacks().LoopbackStack()
        self.procs = [self.ls.app, self.ls.nginx_proc]
        pin_tree([p.pid for p in self.procs])
        for t in self.targets:
            t.url = f"https://{HOST}:{self.ls.https_port}/"
        return None

    def stop(self):
        if self.ls:
            self.ls.close()
        self.ls, self.procs = None, []

    def logs(self):
        out = []
        for f in sorted(self.ls.logs.glob("*")) if self.ls else []:
            out.append(f"--- {f.name}\n" + f.read_text(errors="replace")[-3000:])
        return "\n".join(out)

    def app_pids(self):
        return tree([self.procs[0].pid]) if self.procs else []

    def fallbacks(self):
        """Requests Nginx's fallback answered (the sidecar failed them): must stay 0."""
        return len(self.ls.fallback_log().splitlines()) if self.ls else 0


def target_status(t):
    if t.url.startswith("https:"):
        return curl_status(t.url, http2=t.tool == "h2load")
    return http_status(int(t.url.rsplit(":", 1)[1].strip("/")))


def curl_status(url, http2=False):
    r = subprocess.run(["curl", "-sk", "--http2" if http2 else "--http1.1", "-o", "/dev/null",
                        "-w", "%{http_code}", "--max-time", "3", url], capture_output=True, text=True)
    try:
        return int(r.stdout)
    except ValueError:
        return None


# ---------------------------------------------------------------- load tools


class Target:
    def __init__(self, cand, proto, url, tool="wrk"):
        self.cand, self.proto, self.url, self.tool = cand, proto, url, tool
        self.runs = {}  # concurrency -> list of result dicts
        self.ab = self.check = None

    @property
    def label(self):
        return f"{self.cand.key} {self.proto}"


def run_wrk(url, conc, duration, count=False):
    cmd = ["wrk", "-t1", f"-c{conc}", f"-d{duration}s", "--timeout", "5s",
           "-s", str(BENCH / "wrk-report.lua"), url] + (["--", "count"] if count else [])
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


def percentile(sorted_vals, q):
    if not sorted_vals:
        return float("nan")
    i = min(len(sorted_vals) - 1, max(0, int(round(q / 100 * len(sorted_vals) + 0.5)) - 1))
    return sorted_vals[i]


H2_PER_CONNECTION = 1000  # Nginx's keepalive_requests (default 1000, also for HTTP/2 since 1.19.7)


def run_h2load(url, conc, duration):
    """HTTP/2: 10 connections with conc/10 streams each (the same total concurrency as wrk). Nginx ends a
    connection after keepalive_requests (1000) requests and h2load never reconnects, so h2load runs again
    and again with exactly 1000 requests per connection until `duration` is used up; the rate is all
    requests over the sum of h2load's own run times (which include the TLS handshakes, as a browser's
    reconnect would)."""
    conns = min(10, conc)
    streams = max(1, conc // conns)
    done = n3xx = failed = errored = timeouts = 0
    busy = 0.0
    lat = []
    end = time.monotonic() + duration
    runs = 0
    while time.monotonic() < end or runs == 0:
        runs += 1
        with tempfile.NamedTemporaryFile(prefix="h2load-", suffix=".log") as lf:
            cmd = ["h2load", "-t1", f"-c{conns}", f"-m{streams}", "-n", str(conns * H2_PER_CONNECTION),
                   "--log-file", lf.name, url]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            out = r.stdout
            m = re.search(r"finished in ([\d.]+)(m?s), ([\d.]+) req/s", out)
            st = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", out)
            q = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, "
                          r"(\d+) errored, (\d+) timeout", out)
            if r.returncode != 0 or not (m and st and q):
                raise RuntimeError(f"h2load failed ({r.returncode}): {out[-800:]} {r.stderr[-300:]}")
            busy += float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)
            done += int(q.group(3))
            n3xx += int(st.group(2))
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
            "p99_ms": percentile(lat, 99) / 1000, "bad": (done - n3xx) + failed + errored,
            "not302": done - n3xx, "errors": failed + errored + timeouts}


def run_ab(url, n):
    r = subprocess.run(["ab", "-q", "-n", str(n), "-c", "10", url], capture_output=True, text=True,
                       timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"ab failed: {r.stdout[-500:]} {r.stderr[-500:]}")
    rps = float(re.search(r"Requests per second:\s+([\d.]+)", r.stdout).group(1))
    complete = int(re.search(r"Complete requests:\s+(\d+)", r.stdout).group(1))
    failed = int(re.search(r"Failed requests:\s+(\d+)", r.stdout).group(1))
    non2xx = re.search(r"Non-2xx responses:\s+(\d+)", r.stdout)
    # every answer must be a redirect: ab counts 302 as "non-2xx"
    bad = failed + (complete - (int(non2xx.group(1)) if non2xx else 0)) + (n - complete)
    return {"rps": rps, "bad": bad}


def load(target, conc, duration, count=False):
    if target.tool == "h2load":
        return run_h2load(target.url, conc, duration)  # always counts 3xx per response
    return run_wrk(target.url, conc, duration, count)


# ---------------------------------------------------------------- reporting helpers


def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def fmt_int(v):
    return "–" if v is None else f"{v:,.0f}"


def fmt_ms(v):
    return "–" if v is None else (f"{v:.2f}" if v < 10 else f"{v:.0f}")


def fmt_mb(kb):
    return "–" if kb is None else f"{kb / 1024:.1f}"


def fmt_x(v):
    return "–" if v is None else f"{v:.2f}×"


def replace_between(path, begin, end, body):
    text = path.read_text() if path.exists() else ""
    if begin not in text or end not in text:
        log(f"WARNING: markers {begin} / {end} missing in {path}; section not written")
        return False
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    path.write_text(f"{head}{begin}\n{body.rstrip()}\n{end}{tail}")
    return True


def machine_line(m):
    return (f"{m['cpu']}, {m['cpus']} vCPUs ({m['virt']}), {m['mem_gb']} GB RAM, {m['os']}, kernel {m['kernel']}; "
            f"OpenJDK {m['java']}, nginx {m['nginx']}, PHP {m['php']}, wrk {m['wrk']}; server pinned to "
            f"CPU {m['server_cpu']}, load generator to CPU {m['client_cpu']}; 1-min load average at start "
            f"{m['loadavg_start']}; {m['date']}")


class Ctx:
    pass


IMAGES = None


# ---------------------------------------------------------------- the benchmark


def setup_ctx():
    global IMAGES
    IMAGES = images_dir()
    ctx = Ctx()
    ctx.tmp = Path(tempfile.mkdtemp(prefix="fox-bench-"))
    ctx.tmp.chmod(0o755)  # Nginx workers run as nobody
    atexit.register(shutil.rmtree, ctx.tmp, ignore_errors=True)
    ctx.cert = make_cert(ctx.tmp)
    ctx.baseline_classes = ctx.tmp / "baseline-classes"
    subprocess.run(["javac", "-d", str(ctx.baseline_classes), str(BENCH / "baseline" / "Baseline.java")],
                   check=True)
    if not JAR.is_file():
        die(f"{JAR} missing: run `make build`")
    return ctx


def measure(targets, concs, duration, rounds, warmup):
    """Warm-up, then `rounds` rounds; each round runs every target at every concurrency, and the order of
    the targets rotates from round to round, so slow drifts of the shared machine hit every candidate."""
    if warmup:
        for t in targets:
            log(f"warm-up {t.label} ({warmup} s)")
            load(t, max(concs), warmup)
    for r in range(rounds):
        order = targets[r % len(targets):] + targets[:r % len(targets)]
        for t in order:
            for conc in concs:
                pids = t.cand.pids()
                c0, w0 = cpu_seconds(pids), time.monotonic()
                res = load(t, conc, duration)
                res["server_cpu"] = (cpu_seconds(pids) - c0) / (time.monotonic() - w0)
                t.runs.setdefault(conc, []).append(res)
                log(f"round {r + 1}/{rounds} {t.label} c={conc}: {res['rps']:,.0f} req/s, "
                    f"p99 {res['p99_ms']:.2f} ms, bad {res['bad']}, server CPU {res['server_cpu']:.0%}")
                if not t.cand.alive():
                    raise RuntimeError(f"{t.cand.key} died during the run:\n{t.cand.logs()}")


def summarize(t, conc):
    runs = t.runs.get(conc, [])
    if not runs:
        return None
    return {"rps": med([r["rps"] for r in runs]), "p50_ms": med([r["p50_ms"] for r in runs]),
            "p99_ms": med([r["p99_ms"] for r in runs]), "bad": sum(r["bad"] for r in runs),
            "requests": sum(r["requests"] for r in runs), "server_cpu": med([r["server_cpu"] for r in runs])}


def main_bench(out):
    ctx = setup_ctx()
    m = machine()
    log("machine:", machine_line(m))
    cands = [Sidecar(ctx), Stack(ctx), Baseline(ctx), NginxAlone(ctx), NginxAlone(ctx, access_log=False)]
    if php_fpm_bin():
        cands.append(Php(ctx))
    else:
        log("php-fpm not installed: candidate 5 left out")
    # Phase A, throughput: every candidate running, the targets alternate round by round.
    try:
        for c in cands:
            c.start()
            for t in c.targets:
                st = target_status(t)
                if st != 302:
                    raise RuntimeError(f"{t.label}: GET / answered {st}, not 302\n{c.logs()}")
            log(f"started {c.key}: pids {c.pids()}")
        targets = [t for c in cands for t in c.targets]
        measure(targets, CONCS, DURATION, ROUNDS, WARMUP)
        for t in targets:  # every response's status, counted (not timed)
            t.check = load(t, max(CONCS), 1 if SMOKE else 2, count=True)
            log(f"status check {t.label}: {t.check['requests']:,} responses, {t.check['bad']} not 302 or failed")
        for t in targets:
            if t.tool == "wrk" and t.url.startswith("http:") and t.cand.key != "nginx-nolog":
                log(f"ab -n {AB_N} -c 10 {t.label}")
                t.ab = run_ab(t.url, AB_N)
        for c in cands:
            if isinstance(c, Stack):
                c.nfallback = c.fallbacks()
    finally:
        for c in cands:
            c.stop()
    # Phase B, each candidate alone on the machine (PSS depends on who else maps the same pages): fresh
    # starts, timed to the first 302; after the first one a run at the highest concurrency, then memory.
    for c in cands:
        c.startups, c.startup_cpus = [], []
    for i in range(STARTS):
        for c in cands:
            if i and isinstance(c, Stack):
                continue  # its start is Nginx's plus the sidecar's, both timed on their own
            try:
                t = c.start()
                if t is not None and c.key != "nginx-nolog":
                    c.startups.append(t)
                    c.startup_cpus.append(c.start_cpu)
                if i == 0:
                    load(c.targets[0], max(CONCS), DURATION)
                    time.sleep(0.5)
                    pids = c.pids()
                    c.rss, c.pss = memory_kb(pids)
                    c.nthreads, c.nprocs = threads(pids), len(pids)
                    if isinstance(c, Stack):
                        c.app_rss, c.app_pss = memory_kb(c.app_pids())
                    log(f"memory {c.key}: RSS {c.rss / 1024:.1f} MB, PSS {c.pss / 1024:.1f} MB, {c.nthreads} threads")
            finally:
                c.stop()
        log(f"start-up round {i + 1}/{STARTS}: " +
            ", ".join(f"{c.key} {c.startups[-1]:.3f} s" for c in cands if c.startups))
    for c in cands:
        c.startup, c.startup_cpu = med(c.startups), med(c.startup_cpus)
    results = collect(cands, m)
    (out / "results.json").write_text(json.dumps(results, indent=2))
    report(results, out)
    bad = [f"{r['label']} c={k}: {s['bad']} non-302/errors" for r in results["rows"]
           for k, s in r["conc"].items() if s and s["bad"]]
    bad += [f"{r['label']} ab: {r['ab']['bad']} non-302/failed" for r in results["rows"] if r["ab"] and r["ab"]["bad"]]
    bad += [f"{r['label']} status check: {r['check']['bad']} not 302 or failed" for r in results["rows"]
            if r["check"] and r["check"]["bad"]]
    bad += [f"{r['label']}: Nginx's fallback answered {r['fallbacks']} requests" for r in results["rows"] if r["fallbacks"]]
    shutil.rmtree(ctx.tmp, ignore_errors=True)
    if bad:
        die("requests failed or were not 302:\n  " + "\n  ".join(bad))


def collect(cands, m):
    rows = []
    for c in cands:
        for t in c.targets:
            rows.append({"key": c.key, "name": c.name, "proto": t.proto, "label": t.label, "tool": t.tool,
                         "conc": {str(k): summarize(t, k) for k in CONCS}, "ab": t.ab, "check": t.check,
                         "rss_kb": c.rss, "pss_kb": c.pss, "threads": c.nthreads, "procs": c.nprocs,
                         "app_rss_kb": getattr(c, "app_rss", None), "app_pss_kb": getattr(c, "app_pss", None),
                         "startup_s": c.startup, "startup_cpu_s": c.startup_cpu,
                         "fallbacks": getattr(c, "nfallback", 0)})
    return {"machine": m, "mode": "smoke" if SMOKE else "full", "duration_s": DURATION, "rounds": ROUNDS,
            "concurrency": CONCS, "ab_n": AB_N, "starts": STARTS, "rows": rows}


def row(results, key, proto):
    for r in results["rows"]:
        if r["key"] == key and r["proto"] == proto:
            return r
    return None


def ratio(a, b, conc):
    try:
        return a["conc"][str(conc)]["rps"] / b["conc"][str(conc)]["rps"]
    except (TypeError, KeyError, ZeroDivisionError):
        return None


BOUND_PROTO = {"HTTP/1.1": "HTTP/1.1", "HTTPS/1.1": "HTTPS/1.1", "HTTPS/2": "HTTPS/2"}


def table(results, compact=False):
    concs = results["concurrency"]
    base = row(results, "baseline", "HTTP/1.1")
    hi = max(concs)
    head = ["Candidate", "Protocol"] + [f"req/s c={c}" for c in concs] + [f"p50 / p99 ms (c={hi})"]
    if not compact:
        head += ["non-302 + errors", "server CPU", f"ab -c 10, no keep-alive req/s"]
    head += ["RSS MB", "PSS MB"]
    if not compact:
        head += ["threads"]
    head += ["start-up s" if compact else "start-up s (CPU s)", f"× baseline 3 (c={hi})", f"× Nginx alone 4 (c={hi})"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * 2 + ["--:"] * (len(head) - 2)) + "|"]
    for r in results["rows"]:
        s = {c: r["conc"][str(c)] for c in concs}
        bound = row(results, "nginx", BOUND_PROTO[r["proto"]])
        name = r["name"]
        cells = [name, r["proto"] + (" (h2load)" if r["tool"] == "h2load" else "")]
        cells += [fmt_int(s[c]["rps"] if s[c] else None) for c in concs]
        cells += [f"{fmt_ms(s[hi]['p50_ms'])} / {fmt_ms(s[hi]['p99_ms'])}" if s[hi] else "–"]
        if not compact:
            cells += [str(sum(x["bad"] for x in s.values() if x) + (r["check"]["bad"] if r["check"] else 0)
                          + (r["ab"]["bad"] if r["ab"] else 0) + r["fallbacks"]),
                      f"{s[hi]['server_cpu']:.0%}" if s[hi] else "–",
                      f"{fmt_int(r['ab']['rps'])}" if r["ab"] else "–"]
        mem_note = f" (sidecar {fmt_mb(r['app_rss_kb'])})" if r.get("app_rss_kb") else ""
        pss_note = f" (sidecar {fmt_mb(r['app_pss_kb'])})" if r.get("app_pss_kb") else ""
        cells += [fmt_mb(r["rss_kb"]) + mem_note, fmt_mb(r["pss_kb"]) + pss_note]
        if not compact:
            cells += [f"{r['threads']}" + (f" in {r['procs']} processes" if r["procs"] > 1 else "")]
        st = "–" if r["startup_s"] is None else f"{r['startup_s']:.3f}"
        if not compact and r.get("startup_cpu_s") is not None:
            st += f" ({r['startup_cpu_s']:.2f})"
        cells += [st]
        cells += [fmt_x(ratio(r, base, hi)) if r["proto"] == "HTTP/1.1" else "–",
                  fmt_x(ratio(r, bound, hi)) if bound is not r and bound else "–"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def targets_check(results):
    hi = max(results["concurrency"])
    sc, base = row(results, "sidecar", "HTTP/1.1"), row(results, "baseline", "HTTP/1.1")
    ng, ngs = row(results, "nginx", "HTTP/1.1"), row(results, "nginx", "HTTPS/1.1")
    ng2, st, st2 = row(results, "nginx", "HTTPS/2"), row(results, "stack", "HTTPS/1.1"), row(results, "stack", "HTTPS/2")
    out = []

    def check(what, value, ok, shown):
        out.append(f"| {what} | {shown} | {'met' if ok else 'MISSED'} |")

    for c in results["concurrency"]:
        r = ratio(sc, base, c)
        check(f"Sidecar req/s ≥ 2× baseline 3 (c={c})", r, r is not None and r >= 2, fmt_x(r))
    for c in results["concurrency"]:
        r = ratio(sc, ng, c)
        check(f"Sidecar req/s ≥ 0.9× Nginx alone HTTP (c={c})", r, r is not None and r >= 0.9, fmt_x(r))
    r = sc["rss_kb"] / base["rss_kb"] if sc["rss_kb"] and base["rss_kb"] else None
    check("Sidecar RSS ≤ 0.6× baseline 3's", r, r is not None and r <= 0.6,
          f"{fmt_x(r)} ({fmt_mb(sc['rss_kb'])} MB vs {fmt_mb(base['rss_kb'])} MB)")
    check("Sidecar RSS ≤ 40 MB after the run", sc["rss_kb"], sc["rss_kb"] <= 40 * 1024,
          f"{fmt_mb(sc['rss_kb'])} MB (PSS {fmt_mb(sc['pss_kb'])} MB)")
    for c in results["concurrency"]:
        r = ratio(st, ngs, c)
        check(f"Full stack HTTPS/1.1 ≥ 0.6× Nginx alone HTTPS (c={c})", r, r is not None and r >= 0.6, fmt_x(r))
        r = ratio(st2, ng2, c)
        check(f"Full stack HTTP/2 ≥ 0.6× Nginx alone HTTP/2 (c={c})", r, r is not None and r >= 0.6, fmt_x(r))
    s = sc["startup_s"]
    check("Sidecar start-up to first 302 ≤ 0.25 s", s, s is not None and s <= 0.25,
          "–" if s is None else f"{s:.3f} s")
    return "| Target | Measured | |\n|---|--:|---|\n" + "\n".join(out)


def plot(results, png, work):
    """Two panels like the original write-up: throughput per candidate, memory per candidate."""
    concs = results["concurrency"]
    dat = work / "rps.dat"
    with open(dat, "w") as f:
        for r in results["rows"]:
            label = f"{r['key']} {r['proto']}".replace(" ", "\\n", 1)
            vals = [(r["conc"][str(c)] or {}).get("rps") or 0 for c in concs]
            f.write(f"\"{label}\" " + " ".join(f"{v:.0f}" for v in vals) + "\n")
    mem = work / "mem.dat"
    seen = set()
    with open(mem, "w") as f:
        for r in results["rows"]:
            if r["key"] in seen:
                continue
            seen.add(r["key"])
            f.write(f"\"{r['key']}\" {(r['rss_kb'] or 0) / 1024:.1f} {(r['pss_kb'] or 0) / 1024:.1f}\n")
    cols = ", ".join(f"'{dat}' using {i + 2}:xtic(1) title 'c={c}'" for i, c in enumerate(concs))
    m = results["machine"]
    gp = work / "bench.gp"
    gp.write_text(f"""set terminal pngcairo size 1200,900 font 'DejaVu Sans,10'
set output '{png}'
set multiplot layout 2,1 title "fox-avatar: GET / -> 302 on {m['cpu']} (server on 1 core, load on another; load average {m['loadavg_start']} at start), {m['date']}"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set yrange [0:*]
set format y "%.0s%c"
set ylabel 'requests/s (median of rounds)'
set key top right
plot {cols}
set ylabel 'memory after the run (MB)'
set format y "%g"
plot '{mem}' using 2:xtic(1) title 'RSS', '' using 3 title 'PSS'
unset multiplot
""")
    subprocess.run(["gnuplot", str(gp)], check=True)


def report(results, out):
    m = results["machine"]
    png = out / "bench.png"
    plot(results, png, out)
    mode = " (SMOKE: 1-second runs, numbers meaningless)" if SMOKE else ""
    body = f"""_Generated by `make bench`{mode}; do not edit by hand._

Machine: {machine_line(m)}.

Method: wrk {m['wrk']} (1 thread, keep-alive) and h2load for HTTP/2, {results['duration_s']} s per run,
{results['rounds']} alternating rounds after a warm-up, medians shown; `ab -n {results['ab_n']} -c 10`
without keep-alive for the original test; memory of the server processes (sum over Nginx master + worker,
php-fpm + Nginx), each candidate alone on the machine after one run at the highest concurrency; start-up = process start to the first `302`, median of
{results['starts']} fresh starts.

{table(results)}

![benchmark chart](bench.png)

### Targets (issue 7)

{targets_check(results)}
"""
    if SMOKE:  # render into the temp dir only: CI never dirties the tree
        docs_md, readme, final_png = out / "bench.md", out / "README.md", None
        shutil.copy(ROOT / "docs" / "bench.md", docs_md)
        if (ROOT / "README.md").exists():
            shutil.copy(ROOT / "README.md", readme)
    else:
        docs_md, readme, final_png = ROOT / "docs" / "bench.md", ROOT / "README.md", ROOT / "docs" / "bench.png"
    if not replace_between(docs_md, "<!-- bench:results:begin -->", "<!-- bench:results:end -->", body):
        die(f"{docs_md}: results markers missing")
    checks = targets_check(results).splitlines()[2:]
    met = sum(1 for c in checks if c.endswith("| met |"))
    readme_body = f"""Measured by `make bench` on {m['cpu']} ({m['cpus']} vCPUs, {m['os']}, OpenJDK {m['java']}, nginx
{m['nginx']}), {m['date']}: every server on one core, the load generator on the other, medians of
{results['rounds']} rounds{mode}; 1-minute load average {m['loadavg_start']} when the run started (above ~0.5 the
machine was shared and the rates are low and noisy). {met} of {len(checks)} targets of issue 7 met. Method,
what bounds each target, the JVM flag measurements and the chart: [docs/bench.md](docs/bench.md).

{table(results, compact=True)}
"""
    if readme.exists():
        replace_between(readme, "<!-- bench:begin -->", "<!-- bench:end -->", readme_body)
    if final_png:
        shutil.copy(png, final_png)
    log(f"report: {docs_md}, {final_png or png}, {readme}")
    print(table(results))
    print()
    print(targets_check(results))


# ---------------------------------------------------------------- TUNE=1: JVM flags and Undertow settings


def shipped_flags():
    return [l.strip() for l in JVM_OPTIONS.read_text().splitlines() if l.strip() and not l.lstrip().startswith("#")]


def no_limit(flags):
    return [f for f in flags if not f.startswith("--limit-modules")]


def toggle(flags, flag, prefixes):
    """Remove the flag family when the shipped set has it, add `flag` when it has not: (flags, label)."""
    present = [f for f in flags if any(f.startswith(p) for p in prefixes)]
    if present:
        return [f for f in flags if f not in present], "without " + " ".join(present)
    return flags + [flag], "with " + flag


def replace(flags, prefixes, new):
    return [f for f in flags if not any(f.startswith(p) for p in prefixes)] + new


# The modules both deployments' runtimes have and the service needs (app/Dockerfile's jlink list minus
# java.management, which only XNIO's and jboss-threads' optional MBean registration touches).
LIMIT_MODULES = "--limit-modules=java.base,java.logging,java.security.sasl,jdk.unsupported"


def tune_variants(ctx):
    sh = shipped_flags()
    gc = ["-XX:+UseSerialGC", "-XX:+UseG1GC", "-XX:+UseParallelGC", "-XX:+UseEpsilonGC",
          "-XX:+UnlockExperimentalVMOptions", "-XX:+UseZGC", "-XX:+UseShenandoahGC"]
    v = [("shipped", "app/jvm.options as committed", sh, {}, None),
         ("defaults", "no flags (JVM ergonomics)", [], {}, None),
         ("original", "-Xmx8m -Xss256k (the original)", ["-Xmx8m", "-Xss256k"], {}, None),
         ("g1", "shipped, G1 instead", replace(sh, gc, ["-XX:+UseG1GC"]), {}, None),
         ("epsilon", "shipped, Epsilon (no GC) with -Xms1g -Xmx1g",
          replace(sh, gc + ["-Xmx", "-Xms"], ["-XX:+UnlockExperimentalVMOptions", "-XX:+UseEpsilonGC",
                                               "-Xms1g", "-Xmx1g"]), {}, None),
         ("heap8", "shipped, -Xms8m -Xmx8m", replace(sh, ["-Xmx", "-Xms"], ["-Xms8m", "-Xmx8m"]), {}, None)]
    for key, flag, prefixes in [("tiered", "-XX:TieredStopAtLevel=1", ["-XX:TieredStopAtLevel"]),
                                ("codecache", "-XX:ReservedCodeCacheSize=16m", ["-XX:ReservedCodeCacheSize"]),
                                ("xss", "-Xss256k", ["-Xss"]),
                                ("perfdata", "-XX:-UsePerfData", ["-XX:-UsePerfData", "-XX:+UsePerfData"]),
                                ("noshare", "-Xshare:off", ["-Xshare"])]:
        f, label = toggle(sh, flag, prefixes)
        v.append((key, "shipped, " + label, f, {}, None))
    if ctx.appcds:  # CDS needs the full module graph: without --limit-modules
        v.append(("appcds", "shipped without --limit-modules, + AppCDS archive of the app's classes",
                  no_limit(sh) + [f"-XX:SharedArchiveFile={ctx.appcds}"], {}, None))
    f, label = toggle(sh, LIMIT_MODULES, ["--limit-modules"])
    v.append(("modules", "shipped, " + label, f, {}, None))
    v.append(("reloc0", "shipped + -XX:ArchiveRelocationMode=0 (CDS archive mapped, not relocated)",
              sh + ["-XX:+UnlockDiagnosticVMOptions", "-XX:ArchiveRelocationMode=0"], {}, None))
    v.append(("arena2", "shipped, env MALLOC_ARENA_MAX=2", sh, {"MALLOC_ARENA_MAX": "2"}, None))
    v.append(("io1", "shipped, --io-threads 1", sh, {}, 1))
    return v


def make_appcds(ctx):
    """An AppCDS archive made by a training run (start, answer requests, stop): -XX:ArchiveClassesAtExit."""
    jsa = ctx.tmp / "avatar.jsa"
    port = free_port()
    p = spawn(java_cmd(no_limit(shipped_flags()) + [f"-XX:ArchiveClassesAtExit={jsa}"], port), ctx.tmp / "appcds.log")
    try:
        wait_302(port, [p], time.monotonic())
        run_wrk(f"http://{HOST}:{port}/", 10, 1)
    finally:
        stop(p, timeout=60)
    if not jsa.exists():
        log("WARNING: no AppCDS archive was written: " + (ctx.tmp / "appcds.log").read_text()[-500:])
        return None
    return jsa


def heap_used_kb(pid):
    """Bytes allocated so far in an Epsilon heap (never collected): its top minus its bottom, in KB."""
    r = subprocess.run(["jcmd", str(pid), "GC.heap_info"], capture_output=True, text=True, timeout=30)
    m = re.search(r"\[0x([0-9a-f]+), 0x([0-9a-f]+), 0x([0-9a-f]+)\)", r.stdout)
    return (int(m.group(2), 16) - int(m.group(1), 16)) / 1024 if m else None


def main_tune(out):
    """Each flag set alone on the machine, started fresh in every round (rounds alternate the sets):
    start-up to the first 302, a warm-up, wrk at each concurrency, then memory and threads."""
    ctx = setup_ctx()
    m = machine()
    log("machine:", machine_line(m))
    ctx.appcds = make_appcds(ctx)
    duration = 1 if SMOKE else int(os.environ.get("BENCH_DURATION", "5"))
    warmup = 0 if SMOKE else 2
    cands = [Sidecar(ctx, flags=f, env=e, io_threads=io, key=k, name=n) for k, n, f, e, io in tune_variants(ctx)]
    for c in cands:
        c.startups, c.startup_cpus, c.mems = [], [], []
    alloc = None
    for r in range(ROUNDS):
        order = cands[r % len(cands):] + cands[:r % len(cands)]
        for c in order:
            try:
                c.startups.append(c.start())
                c.startup_cpus.append(c.start_cpu)
                t = c.targets[0]
                if warmup:
                    load(t, max(CONCS), warmup)
                for conc in CONCS:
                    pids = c.pids()
                    c0, w0 = cpu_seconds(pids), time.monotonic()
                    res = load(t, conc, duration)
                    res["server_cpu"] = (cpu_seconds(pids) - c0) / (time.monotonic() - w0)
                    t.runs.setdefault(conc, []).append(res)
                if c.key == "epsilon" and alloc is None:
                    before = heap_used_kb(c.procs[0].pid)
                    res = run_wrk(t.url, 10, duration)
                    after = heap_used_kb(c.procs[0].pid)
                    if before is not None and after is not None and res["requests"]:
                        alloc = (after - before) * 1024 / res["requests"]
                time.sleep(0.5)
                pids = c.pids()
                c.mems.append(memory_kb(pids) + (threads(pids),))
                log(f"round {r + 1}/{ROUNDS} {c.key}: start {c.startups[-1]:.3f} s, " +
                    ", ".join(f"c={k} {t.runs[k][-1]['rps']:,.0f} req/s" for k in CONCS) +
                    f", RSS {c.mems[-1][0] / 1024:.1f} MB")
                if not c.alive():
                    raise RuntimeError(f"{c.key} died:\n{c.logs()}")
            finally:
                c.stop()
    res = {"machine": m, "duration_s": duration, "rounds": ROUNDS, "concurrency": CONCS,
           "epsilon_bytes_per_request": alloc, "sets": []}
    for c in cands:
        res["sets"].append({"key": c.key, "name": c.name, "flags": c.flags, "env": c.env, "io_threads": c.io_threads,
                            "conc": {str(k): summarize(c.targets[0], k) for k in CONCS},
                            "rss_kb": med([x[0] for x in c.mems]), "pss_kb": med([x[1] for x in c.mems]),
                            "threads": med([x[2] for x in c.mems]), "startup_s": med(c.startups),
                            "startup_cpu_s": med(c.startup_cpus)})
    (out / "tune.json").write_text(json.dumps(res, indent=2))
    body = tune_report(res)
    docs_md = out / "bench.md" if SMOKE else ROOT / "docs" / "bench.md"
    if SMOKE:
        shutil.copy(ROOT / "docs" / "bench.md", docs_md)
    if not replace_between(docs_md, "<!-- bench:tuning:begin -->", "<!-- bench:tuning:end -->", body):
        die(f"{docs_md}: tuning markers missing")
    print(body)
    shutil.rmtree(ctx.tmp, ignore_errors=True)


def tune_report(res):
    concs, hi = res["concurrency"], max(res["concurrency"])
    ref = res["sets"][0]
    lines = [f"_Generated by `make bench TUNE=1`{' (SMOKE)' if SMOKE else ''}; do not edit by hand._", "",
             f"Machine: {machine_line(res['machine'])}.", "",
             f"The sidecar alone on the machine, one flag set at a time, started fresh in each of "
             f"{res['rounds']} rounds (the rounds alternate the sets); per start: time and CPU to the first "
             f"302, wrk {res['duration_s']} s at each concurrency, then memory; medians. Δ RSS is against the "
             f"first row (the shipped flags).", "",
             "| Flag set | " + " | ".join(f"req/s c={c}" for c in concs) +
             f" | p99 ms c={hi} | RSS MB | PSS MB | Δ RSS MB | threads | start-up s (CPU s) | errors |",
             "|---|" + "--:|" * (len(concs) + 7)]
    for s in res["sets"]:
        c = {k: s["conc"][str(k)] for k in concs}
        d = (s["rss_kb"] - ref["rss_kb"]) / 1024
        lines.append(f"| {s['name']} | " + " | ".join(fmt_int(c[k]['rps'] if c[k] else None) for k in concs) +
                     f" | {fmt_ms(c[hi]['p99_ms']) if c[hi] else '–'} | {fmt_mb(s['rss_kb'])} | {fmt_mb(s['pss_kb'])}"
                     f" | {d:+.1f} | {s['threads']} | {s['startup_s']:.3f} ({s['startup_cpu_s']:.2f})"
                     f" | {sum(x['bad'] for x in c.values() if x)} |")
    lines.append("")
    lines.append("Flags of each set: " + "; ".join(f"**{s['key']}** `{' '.join(s['flags']) or '(none)'}`"
                                                   + (f" env `{s['env']}`" if s['env'] else "")
                                                   + (f" `--io-threads {s['io_threads']}`" if s['io_threads'] else "")
                                                   for s in res["sets"]) + ".")
    if res["epsilon_bytes_per_request"]:
        b = res["epsilon_bytes_per_request"]
        lines += ["", f"Allocation measured under Epsilon (heap used before/after a wrk run, `jcmd GC.heap_info`): "
                      f"**{b:,.0f} bytes per request**, so a 16 MB Epsilon heap would be exhausted after about "
                      f"{16 * 1024 * 1024 / b:,.0f} requests: Epsilon is no option for a long-running service."]
    return "\n".join(lines)


# ---------------------------------------------------------------- SOAK=1: 10 million requests, memory flat


def main_soak(out):
    """wrk in 30-second chunks against the full stack over HTTPS until SOAK_REQUESTS are done (bounded by
    SOAK_MAX_MINUTES), the sidecar's and Nginx's RSS sampled every 5 s by a thread. Fails when a request
    failed or was not a 302, when the fallback answered, or when memory kept growing: the sidecar's RSS
    in the second half of the run must not exceed its peak in the first half by more than 2 MB (the heap is
    bounded, so a leak shows as steady growth past it)."""
    ctx = setup_ctx()
    m = machine()
    total_goal = int(os.environ.get("SOAK_REQUESTS", "20000" if SMOKE else "10000000"))
    max_s = 60 * float(os.environ.get("SOAK_MAX_MINUTES", "1" if SMOKE else "40"))
    chunk = 2 if SMOKE else 30
    st = Stack(ctx)
    samples, stop_evt = [], threading.Event()
    done = bad = 0
    t0 = time.monotonic()
    try:
        st.start()
        url = st.targets[0].url

        def sampler():
            while not stop_evt.is_set():
                a = memory_kb(st.app_pids())
                n = memory_kb(tree([st.procs[1].pid]))
                samples.append((time.monotonic() - t0, a[0], a[1], n[0], done))
                stop_evt.wait(1 if SMOKE else 5)

        th = threading.Thread(target=sampler, daemon=True)
        th.start()
        while done < total_goal and time.monotonic() - t0 < max_s:
            r = run_wrk(url, 100, chunk, count=True)
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
    elapsed = time.monotonic() - t0
    half = len(samples) // 2
    first_peak = max(s[1] for s in samples[:max(half, 1)])
    second_peak = max(s[1] for s in samples[half:]) if samples[half:] else first_peak
    growth = (second_peak - first_peak) / 1024
    ok = done >= total_goal and bad == 0 and fallbacks == 0 and growth <= 2.0
    dat = out / "soak.dat"
    dat.write_text("".join(f"{t:.1f} {a / 1024:.2f} {p_ / 1024:.2f} {n / 1024:.2f} {d}\n" for t, a, p_, n, d in samples))
    png = out / "bench-soak.png"
    gp = out / "soak.gp"
    gp.write_text(f"""set terminal pngcairo size 1000,500 font 'DejaVu Sans,10'
set output '{png}'
set title "fox-avatar soak: {done:,} requests through Nginx (HTTPS) to the sidecar, {m['date']}"
set xlabel 'requests (millions)'
set ylabel 'MB'
set grid
set yrange [0:*]
set key bottom right
plot '{dat}' using ($5/1e6):2 with lines lw 2 title 'sidecar RSS', '' using ($5/1e6):3 with lines title 'sidecar PSS', '' using ($5/1e6):4 with lines title 'Nginx RSS (master + worker)'
""")
    subprocess.run(["gnuplot", str(gp)], check=True)
    body = f"""_Generated by `make bench SOAK=1`{' (SMOKE)' if SMOKE else ''}; do not edit by hand._

Machine: {machine_line(m)}.

{done:,} requests (`wrk -t1 -c100`, {chunk}-second chunks, HTTPS/1.1 keep-alive) through the full stack in
{elapsed / 60:.1f} minutes ({done / elapsed:,.0f} req/s on average); non-302 or failed: **{bad}**; answered by
Nginx's fallback: **{fallbacks}**. Sidecar RSS sampled every {1 if SMOKE else 5} s ({len(samples)} samples):
first {fmt_mb(samples[0][1])} MB, peak of the first half {fmt_mb(first_peak)} MB, peak of the second half
{fmt_mb(second_peak)} MB (growth {growth:+.1f} MB; the limit is +2 MB), last {fmt_mb(samples[-1][1])} MB
(PSS {fmt_mb(samples[-1][2])} MB); Nginx RSS first {fmt_mb(samples[0][3])} MB, last {fmt_mb(samples[-1][3])} MB.
Verdict: **{'flat, no error' if ok else 'FAILED'}**.

![soak chart](bench-soak.png)
"""
    if SMOKE:
        docs_md = out / "bench.md"
        shutil.copy(ROOT / "docs" / "bench.md", docs_md)
    else:
        docs_md = ROOT / "docs" / "bench.md"
        shutil.copy(png, ROOT / "docs" / "bench-soak.png")
    replace_between(docs_md, "<!-- bench:soak:begin -->", "<!-- bench:soak:end -->", body)
    print(body)
    shutil.rmtree(ctx.tmp, ignore_errors=True)
    if not ok:
        die("soak failed: see above")


def main():
    os.sched_setaffinity(0, {CLIENT_CPU})  # the harness and the load generators; servers get SERVER_CPU
    if SERVER_CPU == CLIENT_CPU:
        log("WARNING: one CPU only: server and load generator share it")
    if SMOKE:
        out = Path(tempfile.mkdtemp(prefix="fox-bench-smoke-"))
    else:
        out = Path(os.environ.get("BENCH_OUT", ROOT / "bench" / "results" /
                                  datetime.datetime.now().strftime("%Y%m%d-%H%M%S")))
        out.mkdir(parents=True, exist_ok=True)
    log(f"output: {out}")
    t0 = time.monotonic()
    if TUNE:
        main_tune(out)
    elif SOAK:
        main_soak(out)
    else:
        main_bench(out)
    log(f"done in {time.monotonic() - t0:.0f} s")


if __name__ == "__main__":
    main()
