"""The server sets `make bench` compares, each started fresh, pinned to the server core; CANDIDATES' order
is the report's."""
import json
import os
import re
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import jinja2
import loopback

from .avatar import expected_format
from .common import (AVATAR_PATH, AVATAR_SIZE, CHROMIUM_ACCEPT, CLIENT_CPU, GRAVATAR_PATH, HOST, JAR,
                     JVM_OPTIONS, SERVER_CPU, TLS_NAME, cpu_seconds, die, free_port, log, spawn, stop,
                     tree, wait_302)
from .load import Target, h2_shape, header_args


def tails(files):
    return "\n".join(f"--- {f.name}\n" + f.read_text(errors="replace")[-3000:] for f in files)


class Candidate:
    key = name = ""
    startup_port = None  # plain-HTTP port answering GET / with 302, for the start-up measurement
    smoke_skip = None    # why make bench-smoke leaves the candidate out
    app_pids = None      # the full stacks': the sidecar's processes

    def __init__(self, ws):
        self.ws, self.procs, self.startups, self.startup_cpus = ws, [], [], []
        self.dir = Path(tempfile.mkdtemp(prefix=f"{self.key}-", dir=ws.tmp))
        self.dir.chmod(0o755)  # readable by the Nginx workers whatever their user

    available = classmethod(lambda cls: True)

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
        return tails(sorted(self.dir.glob("*.log")) + sorted(self.dir.glob("logs/*")))


def java(images, port, metrics_port=None):
    return ["java", f"@{JVM_OPTIONS}", "-jar", str(JAR), "--images", str(images), "--port", str(port), "--bind", HOST,
            "--metrics-port", str(metrics_port or "off")]


class Sidecar(Candidate):
    """The jar, plain HTTP: `/`, and with Chromium's Accept `/`, the avatar URL and the Gravatar URL."""
    key, name = "sidecar", "Sidecar direct (Undertow, app/jvm.options)"
    metrics_port = None

    def __init__(self, ws):
        super().__init__(ws)
        self.port = self.startup_port = free_port()
        url = f"http://{HOST}:{self.port}/"
        self.targets = [Target(self, "HTTP/1.1", url)] + [
            Target(self, "HTTP/1.1", url, path=p, headers={"Accept": CHROMIUM_ACCEPT}) for p in ("/", AVATAR_PATH, GRAVATAR_PATH)]

    def start_procs(self):
        return [spawn(java(self.ws.images, self.port, self.metrics_port), self.dir / "java.log")]


class SidecarMetrics(Sidecar):
    """The same with /metrics on: the cost of counting; its memory is read after a scrape, as Prometheus makes."""
    key, name = "sidecar-metrics", "Sidecar direct, /metrics on"

    def __init__(self, ws):
        super().__init__(ws)
        self.metrics_port = free_port()
        self.targets = [self.targets[0], self.targets[2]]

    def scrape(self):
        urllib.request.urlopen(f"http://{HOST}:{self.metrics_port}/metrics", timeout=60).read()


class FullStack(Candidate):
    """The tests' loopback stack (tools/loopback.py), on `/` and a 64 px image Nginx serves; start-up not timed."""
    key, name = "stack", "Full stack: our Nginx config (HTTPS) -> sidecar"

    ls = None

    def __init__(self, ws):
        super().__init__(ws)
        image = ws.manifest.location(ws.manifest.foxes[0], AVATAR_SIZE, expected_format(ws.manifest))
        self.targets = [Target(self, "HTTPS/1.1", None), Target(self, "HTTPS/2", None, tool="h2load"),
                        Target(self, "HTTPS/1.1", None, path=image, expect=200),
                        Target(self, "HTTPS/2", None, tool="h2load", path=image, expect=200)]

    def start(self):
        try:
            self.ls = loopback.LoopbackStack(images_dir=self.ws.images)
        except loopback.Unavailable as e:
            die(f"the full stack cannot start: {e}")
        self.procs = [self.ls.app, self.ls.nginx_proc]
        for p in self.pids():
            subprocess.run(["taskset", "-a", "-p", "-c", str(SERVER_CPU), str(p)], capture_output=True, check=True)
        for t in self.targets:
            t.url = f"https://{HOST}:{self.ls.https_port}/"

    def stop(self):
        if self.ls:
            self.ls.close()
        self.ls, self.procs = None, []

    def logs(self):
        return tails(sorted(self.ls.logs.glob("*")) if self.ls else [])

    def app_pids(self, i=0):
        return tree([self.procs[i].pid]) if self.procs else []

    def fallbacks(self):
        """Requests Nginx's fallback answered (the sidecar failed them): must stay 0."""
        return len(self.ls.fallback_log().splitlines()) if self.ls else 0


class NginxAlone(Candidate):
    """The bound: the rendered fox-avatar.conf (its log format, the fallback split) and a server of its own
    with tls.conf answering / with the fallback's 302, logging like the full stack."""
    key, name = "nginx", "Bound: Nginx alone (split_clients 302)"
    access_log = True

    def __init__(self, ws):
        super().__init__(ws)
        self.http = self.startup_port = free_port()
        https = free_port()
        self.targets = [Target(self, "HTTP/1.1", f"http://{HOST}:{self.http}/")]
        if self.access_log:
            self.targets += [Target(self, "HTTPS/1.1", f"https://{HOST}:{https}/"),
                             Target(self, "HTTPS/2", f"https://{HOST}:{https}/", tool="h2load")]
        crt, key = ws.cert
        site = loopback.load_renderer()(loopback.site_variables(
            TLS_NAME, *loopback.free_ports(3), crt, key, self.dir / "logs", self.dir, ws.images,
            build=loopback.nginx_build(loopback.find_nginx())))
        # the full stack's HTTPS access_log as the template writes it: the line before the fallback log's
        m = re.search(r"^\s*(access_log [^;]*;)\n\s*access_log [^;]* if=\$avatar_fallback;", site, re.M)
        if not m:
            die("the rendered fox-avatar.conf has no HTTPS access_log before its fallback log's")
        tls = jinja2.Environment(loader=jinja2.FileSystemLoader(str(loopback.NGINX_DIR)), trim_blocks=True) \
            .get_template("fox-avatar/tls.conf").render().replace("\n", "\n    ")
        self.conf = loopback.nginx_prefix(self.dir, {"fox-avatar.conf": site, "site.conf": f"""\
# Written by bench/foxbench/candidates.py: Nginx alone answers / itself (the bound).
server {{
    listen {HOST}:{self.http};
    listen {HOST}:{https} ssl http2;
    server_name {TLS_NAME};
    ssl_certificate {crt};
    ssl_certificate_key {key};
    {tls}
    {m.group(1) if self.access_log else "access_log off;"}
    location = / {{
        add_header Cache-Control "no-store" always;
        return 302 $avatar_fallback_location;
    }}
    location / {{
        return 404;
    }}
}}
"""})

    def start_procs(self):
        return [spawn(["nginx", "-p", str(self.dir), "-e", str(self.dir / "error.log"), "-c", str(self.conf)],
                      self.dir / "nginx-stdout.log")]


class NginxAloneNoLog(NginxAlone):
    """The bound without its access log: what the log costs (plain HTTP only)."""
    key, name = "nginx-nolog", "Nginx alone, access_log off"
    access_log = False


TRIXIE_NGINX, OHA = os.environ.get("BENCH_TRIXIE_NGINX", ""), os.environ.get("BENCH_OHA", "")


class Oha:
    """oha built with HTTP/3 (tools/oha.sh) pinned to the load core, in one protocol (HTTP/2 in h2_shape),
    one run of `duration` (-z); the rate is the 302s over that duration. A connection may take 60 s to set
    up: 100 QUIC handshakes at once overflow Nginx's UDP receive buffer on a busy core, and a handshake lost
    again and again backs off past oha's default 5 s (a slow handshake costs requests, it is no failure)."""

    def __init__(self, version):
        self.name, self.version = f"oha-h{version[0]}", version

    def run(self, url, conc, duration, count=False, headers=None, expect=302):
        conns, streams = h2_shape(conc) if self.version == "2" else (conc, 1)
        r = subprocess.run(["taskset", "-c", str(CLIENT_CPU), OHA, "--no-tui", "--insecure", "--output-format", "json",
                            "--connect-timeout", "60s", "--http-version", self.version, "-c", str(conns),
                            "-p", str(streams), "-r", "0", "-z", f"{duration}s", *header_args(headers), url],
                           capture_output=True, text=True, timeout=duration + 120)
        try:
            j = json.loads(r.stdout)
        except ValueError:
            raise RuntimeError(f"oha failed ({r.returncode}): {r.stdout[-500:]} {r.stderr[-500:]}") from None
        codes = {int(k): v for k, v in (j.get("statusCodeDistribution") or {}).items()}
        errs = {k: v for k, v in (j.get("errorDistribution") or {}).items() if k != "aborted due to deadline"}
        if errs:
            log(f"oha HTTP/{self.version} c={conc}: errors {errs}")
        lat, done = j.get("latencyPercentiles") or {}, sum(codes.values())
        return {"rps": codes.get(302, 0) / duration, "requests": done, "p50_ms": (lat.get("p50") or 0) * 1000,
                "p99_ms": (lat.get("p99") or 0) * 1000, "bad": done - codes.get(302, 0) + sum(errs.values()),
                "busy_s": duration}

    def status(self, url, headers=None):
        """302 when a second of oha at c=1 got only 302s (this machine's curl may have no HTTP/3)."""
        r = self.run(url, 1, 1, headers=headers)
        return 302 if r["requests"] and not r["bad"] else None, None


class TrixieStack(Candidate):
    """The full stack with Debian 13's Nginx in a container (--network host, pinned to the server core), our
    configuration rendered with its `nginx -V`; loaded by oha (Debian 13's h2load has no HTTP/3)."""
    key = "stack-trixie"
    smoke_skip = "loaded only by oha, which only make bench builds (tools/oha.sh)"

    @classmethod
    def available(cls):   # Docker, the Debian 13 image and oha
        return bool(TRIXIE_NGINX and OHA) and subprocess.run(["docker", "info"], capture_output=True).returncode == 0

    def __init__(self, ws):
        super().__init__(ws)
        build = subprocess.run(["docker", "run", "--rm", TRIXIE_NGINX, "nginx", "-V"], capture_output=True,
                               text=True, check=True, timeout=120).stderr
        ssl = next((x.split()[3] for x in build.splitlines() if x.startswith("built with OpenSSL")), "?")
        self.name = f"Full stack on Debian 13: Nginx {build.split()[2].split('/')[-1]} (OpenSSL {ssl}, container) -> sidecar"
        self.container = f"fox-bench-trixie-{os.getpid()}"
        site_http, self.https, self.app_port = loopback.free_ports(3)
        self.variables = loopback.site_variables(TLS_NAME, site_http, self.https, self.app_port, *ws.cert,
                                                 self.dir / "logs", self.dir, ws.images, build=build)
        if "quic" not in (text := loopback.load_renderer()(self.variables)):
            die(f"stack-trixie: the template rendered no `listen ... quic` for {self.name}")
        # oha loses the requests in flight when Nginx ends a connection after keepalive_requests (GOAWAY):
        # the load's connections stay open here, in all three protocols alike.
        self.conf = loopback.nginx_prefix(self.dir, {"fox-avatar.conf": text, "zz-bench-client.conf":
                                                     "# Written by bench/foxbench/candidates.py\nkeepalive_requests 1000000;\n"})
        url = f"https://{HOST}:{self.https}/"
        self.targets = [Target(self, p, url, tool=Oha(v)) for p, v in (("HTTPS/1.1", "1.1"), ("HTTPS/2", "2"), ("HTTP/3", "3"))]

    nginx_pid = None

    def start(self):
        self.procs = [spawn(java(self.ws.images, self.app_port), self.dir / "java.log")]
        loopback.wait_for_port(self.app_port, self.procs[0], "the sidecar", self.dir / "java.log", timeout=30)
        mounts = [a for p in (self.ws.tmp, loopback.NGINX_DIR, self.ws.images) for a in ("-v", f"{p}:{p}")]
        self.procs.append(spawn(["docker", "run", "--rm", "--name", self.container, "--network", "host",
                                 "--cpuset-cpus", str(SERVER_CPU), *mounts, TRIXIE_NGINX, "nginx", "-p", str(self.dir),
                                 "-e", str(self.dir / "error.log"), "-c", str(self.conf)], self.dir / "docker.log"))
        loopback.wait_for_port(self.https, self.procs[1], "Debian 13's nginx", self.dir / "docker.log", timeout=60)
        self.nginx_pid = int(subprocess.run(["docker", "inspect", "-f", "{{.State.Pid}}", self.container],
                                            capture_output=True, text=True, check=True).stdout)

    def stop(self):
        if len(self.procs) > 1:
            subprocess.run(["docker", "stop", "-t", "10", self.container], capture_output=True)
        super().stop()
        self.nginx_pid = None

    def pids(self):
        return tree([self.procs[0].pid] + ([self.nginx_pid] if self.nginx_pid else [])) if self.procs else []

    app_pids = FullStack.app_pids

    def fallbacks(self):
        f = Path(self.variables["avatar_fallback_log"])
        return len(f.read_text().splitlines()) if f.exists() else 0


CANDIDATES = [Sidecar, SidecarMetrics, FullStack, TrixieStack, NginxAlone, NginxAloneNoLog]
