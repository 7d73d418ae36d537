"""What the benchmark's parts share: the settings (docs/bench.md lists the knobs), the server processes and
what /proc says of them, the machine's description, a run's workspace."""
import atexit
import datetime
import hashlib
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from imageset import ManifestError, read_manifest
from loopback import JAR, JVM_OPTIONS, REPO as ROOT, make_certs  # noqa: F401 (the stack's paths, one owner)

BENCH, DOCS = ROOT / "bench", ROOT / "docs"
RAW = DOCS / "bench.json"   # the raw results of the last run of each mode; the report is made from it
SMOKE = os.environ.get("BENCH_SMOKE") == "1"
SOAK = os.environ.get("SOAK") == "1"
CONNECTIONS = os.environ.get("CONNECTIONS") == "1"
SERVER_CPU = int(os.environ.get("BENCH_SERVER_CPU", "1" if len(os.sched_getaffinity(0)) > 1 else "0"))
CLIENT_CPU = int(os.environ.get("BENCH_CLIENT_CPU", "0"))
IMAGES = os.environ.get("BENCH_IMAGES", str(ROOT / "images"))
if SMOKE:
    DURATION, WARMUP, ROUNDS, CONCS, STARTS = 1, 0, 1, [10], 1
else:
    DURATION, WARMUP, ROUNDS = int(os.environ.get("BENCH_DURATION", "8")), 5, int(os.environ.get("BENCH_ROUNDS", "3"))
    CONCS, STARTS = [10, 100], 10
SOAK_REQUESTS = int(os.environ.get("SOAK_REQUESTS", "20000" if SMOKE else "10000000"))
SOAK_MAX_S = 60 * float(os.environ.get("SOAK_MAX_MINUTES", "1" if SMOKE else "40"))
HOST, TLS_NAME = "127.0.0.1", "localhost"
CHROMIUM_ACCEPT = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"   # Chromium's for <img>
AVATAR_SIZE = 64
AVATAR_KEY = hashlib.md5(b"fox@example.org").hexdigest()   # 32 hex digits, as in a Gravatar URL
AVATAR_PATH = f"/?s={AVATAR_SIZE}&u={AVATAR_KEY}"
GRAVATAR_PATH = f"/avatar/{AVATAR_KEY}?s=80"   # as Gitea's Libravatar library and most apps send it


def log(*a):
    print("bench:", *a, file=sys.stderr, flush=True)


def die(msg):
    log("ERROR:", msg)
    sys.exit(1)


def left_out(what):
    """A part this machine cannot run is left out; under CI=true, a failure."""
    if os.environ.get("CI") == "true":
        die(f"{what} (bench/run.sh makes it)")
    log(f"{what}: left out")


def med(vals):
    vals = [v for v in vals if v is not None]
    return median(vals) if vals else None


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def spawn(argv, logfile):
    """A server process pinned to the server core, in its own process group."""
    return subprocess.Popen(argv, stdout=open(logfile, "ab"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True, preexec_fn=lambda: os.sched_setaffinity(0, {SERVER_CPU}))


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def stat(pid):
    """The fields of /proc/PID/stat after the command's name (state first); [] when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return []


def tree(pids):
    """The given pids and all their descendants (nginx master + workers)."""
    kids = {}
    for d in filter(str.isdigit, os.listdir("/proc")):
        if f := stat(d):
            kids.setdefault(int(f[1]), []).append(int(d))
    out, todo = [], list(pids)
    while todo:
        out.append(todo.pop())
        todo.extend(kids.get(out[-1], []))
    return out


def proc_sum(pids, name, field, col=1):
    """Sum over the processes of a field of /proc/PID/NAME (smaps_rollup's kB, status's Threads)."""
    n = 0
    for p in pids:
        try:
            n += sum(int(x.split()[col]) for x in Path(f"/proc/{p}/{name}").read_text().splitlines()
                     if x.split(":")[0] == field)
        except OSError:
            pass
    return n


def memory_kb(pids):
    """RSS and PSS, kB."""
    return proc_sum(pids, "smaps_rollup", "Rss"), proc_sum(pids, "smaps_rollup", "Pss")


def cgroup_memory(pid):
    """What the kernel charges the memory cgroup of a process (a container's), bytes (cgroup v1 or v2)."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        v1 = "memory" in controllers.split(",")
        if v1 or (controllers == "" and Path("/sys/fs/cgroup/cgroup.controllers").exists()):
            d = Path("/sys/fs/cgroup/memory" + path if v1 else "/sys/fs/cgroup" + path)
            stat = dict(x.split() for x in (d / "memory.stat").read_text().splitlines())
            files = ("usage_in_bytes", "max_usage_in_bytes", "limit_in_bytes") if v1 else ("current", "peak", "max")
            got = [(d / f"memory.{f}").read_text().strip() if (d / f"memory.{f}").exists() else None for f in files]
            return {"charged": int(got[0]), "peak": got[1] and int(got[1]),
                    "limit": 1 << 62 if got[2] in ("max", None) else int(got[2]),
                    "anon": int(stat["total_rss" if v1 else "anon"]),
                    "inactive": int(stat.get("total_inactive_file" if v1 else "inactive_file", 0))}
    return {}


def cpu_seconds(pids):
    return sum(int(f[11]) + int(f[12]) for f in map(stat, pids) if f) / os.sysconf("SC_CLK_TCK")


def http_status(port):
    """One plain HTTP/1.1 GET /; the status code, or None when nothing answers yet."""
    try:
        with socket.create_connection((HOST, port), timeout=1.0) as s:
            s.sendall(f"GET / HTTP/1.1\r\nHost: {TLS_NAME}\r\nConnection: close\r\n\r\n".encode())
            m = re.match(rb"HTTP/1\.[01] (\d{3})", s.recv(64))
        return int(m.group(1)) if m else None
    except OSError:
        return None


def wait_302(port, procs, t0, deadline_s=20.0):
    """Poll (0.5 ms apart) until GET / answers 302; seconds since t0."""
    while time.monotonic() < t0 + deadline_s:
        if http_status(port) == 302:
            return time.monotonic() - t0
        for p in procs:
            if p.poll() is not None:
                raise RuntimeError(f"{p.args[0]} exited with {p.returncode} before answering")
        time.sleep(0.0005)
    raise RuntimeError(f"no 302 on port {port} within {deadline_s} s")


def tool_version(argv, pattern):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return "n/a"
    return (re.findall(pattern, r.stdout + r.stderr) or ["n/a"])[0]


def describe():
    """The machine a run is made on (machine_line in report.py renders it)."""
    info = Path("/proc/cpuinfo").read_text()
    osr = dict(x.split("=", 1) for x in Path("/etc/os-release").read_text().splitlines() if "=" in x)
    return {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "cpu": (re.findall(r"^model name\s*:\s*(.*)$", info, re.M) or ["unknown"])[0],
            "cpus": os.cpu_count(), "mem_gb": round(int(Path("/proc/meminfo").read_text().split()[1]) / 1024 / 1024, 1),
            "os": osr.get("PRETTY_NAME", "Linux").strip('"'), "kernel": platform.release(),
            "virt": tool_version(["systemd-detect-virt"], "(.+)"),
            "java": tool_version(["java", "-version"], r'version "([^"]+)"'),
            "nginx": tool_version(["nginx", "-v"], r"nginx/(\S+)"),
            "wrk": tool_version(["wrk", "-v"], r"wrk (\S+)"),
            "loadavg_start": loadavg(), "server_cpu": SERVER_CPU, "client_cpu": CLIENT_CPU}


def loadavg():
    return Path("/proc/loadavg").read_text().split()[0]


class Workspace:
    """A run's temp dir (removed at exit), the images, a throw-away certificate."""

    def __init__(self):
        self.images = Path(IMAGES).resolve()
        try:
            self.manifest = read_manifest(self.images)
        except ManifestError as e:
            die(f"BENCH_IMAGES: {e} (run `make images`)")
        if not JAR.is_file():
            die(f"{JAR} missing: run `make build`")
        self.tmp = Path(tempfile.mkdtemp(prefix="fox-bench-"))
        self.tmp.chmod(0o755)  # readable by the Nginx workers whatever their user
        atexit.register(shutil.rmtree, self.tmp, ignore_errors=True)
        certs = make_certs(self.tmp, TLS_NAME)
        self.cert = certs["cert"], certs["key"]
