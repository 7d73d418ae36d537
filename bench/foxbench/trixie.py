"""The full stack on Debian 13. Debian 13's Nginx (1.26, --with-http_v3_module, OpenSSL 3.5) runs in
a container of image BENCH_TRIXIE_NGINX (tools/docker.sh trixie_nginx_ready) with --network host, pinned to
the server core, serving our shared configuration rendered with that Nginx's own `nginx -V` text (so the
template turns on HTTP/3 and the post-quantum group itself); behind it the same sidecar as the "stack"
candidate (the host's JVM and jar). Its paths (the run's temp dir, nginx/, the images) are bind-mounted at
the same place, so the rendered file works unchanged. Its three rows, HTTPS/1.1, HTTPS/2 and HTTP/3, share
one load generator, oha built with HTTP/3 (tools/oha.sh; BENCH_OHA), on the host pinned to the load core:
Debian 13's h2load would be the natural client but is built without HTTP/3 (nghttp2-client is not linked
with ngtcp2), and one client for the three protocols keeps them comparable. Debian 13's curl (image
BENCH_TRIXIE_CLIENT, tools/docker.sh trixie_client_ready) checks the first answer in each protocol.
bench/run.sh makes the images and oha and exports their names; without them (no Docker) the candidate is left
out with a note, except under CI=true, where that is a failure. The smoke (BENCH_SMOKE=1) leaves it out and
bench/run.sh builds none of it: its rows are oha's alone, and building oha (about 8 minutes) buys a smoke
that asserts no timing nothing; the HTTP/3 path is proven by tests/stack/test_http.py's curl --http3-only."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import loopback

from .candidates import Candidate, java_cmd, tail_logs
from .load import H2load, Target, header_args
from .processes import die, log, spawn, stop, tree
from .settings import CLIENT_CPU, HOST, SERVER_CPU, TLS_NAME

SERVER_IMAGE = os.environ.get("BENCH_TRIXIE_NGINX", "")
OHA = os.environ.get("BENCH_OHA", "")
CLIENT_IMAGE = os.environ.get("BENCH_TRIXIE_CLIENT", "")
# oha gives up on a connection whose set-up takes more than 5 s (its default) and counts an error ("timeout"):
# at the start of an HTTP/3 run 100 QUIC handshakes arrive at once on Nginx's one UDP socket, whose receive
# buffer (net.core.rmem_default, 208 KB) overflows on a busy core (Udp RcvbufErrors, the drops of Nginx's
# socket in /proc/net/udp), and a handshake whose packets are lost again and again backs off past 5 s.
# Those were the HTTP/3 row's "errors" (docs/bench.md): no request was answered wrongly. A slow
# handshake still costs the row its requests; it is not counted as a failure.
CONNECT_TIMEOUT = "60s"
KEEPALIVE_NOTE = "# Written by bench/foxbench/trixie.py: the load client's connections are never ended by Nginx.\n"


def docker_ok():
    return bool(SERVER_IMAGE and CLIENT_IMAGE and OHA and shutil.which("docker")
                and subprocess.run(["docker", "info"], capture_output=True).returncode == 0)


class Oha:
    """oha (crates.io, pinned, built with HTTP/3: tools/oha.sh, path in BENCH_OHA) on the host, pinned to the
    load core with taskset, in one protocol: HTTP/1.1 and HTTP/3 with `conc` connections, HTTP/2 with the
    same shape as H2load (10 connections, conc/10 streams each). One run of `duration` seconds (-z); the
    rate is the 302s over that duration. oha's HTTP/3 client waits about 30 s for its idle QUIC connections
    after the run before it prints (not counted, but it lengthens each HTTP/3 run). Always counts every
    status but 302 and every error; the in-flight requests cut at the deadline are not errors, and a connection
    may take up to CONNECT_TIMEOUT to set up (above)."""

    def __init__(self, name, version, curl_arg):
        self.name, self.version, self.curl_arg = name, version, curl_arg

    def run(self, url, conc, duration, count=False, headers=None):
        conns, streams = (H2load().shape(conc) if self.version == "2" else (conc, 1))
        cmd = ["taskset", "-c", str(CLIENT_CPU), OHA, "--no-tui", "--insecure", "--output-format", "json",
               "--connect-timeout", CONNECT_TIMEOUT, "--http-version", self.version, "-c", str(conns), "-p", str(streams), "-r", "0",
               "-z", f"{duration}s", *header_args(headers), url]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 120)
        try:
            j = json.loads(r.stdout)
        except ValueError:
            raise RuntimeError(f"oha failed ({r.returncode}): {r.stdout[-500:]} {r.stderr[-500:]}") from None
        codes = {int(k): v for k, v in (j.get("statusCodeDistribution") or {}).items()}
        errs = {k: v for k, v in (j.get("errorDistribution") or {}).items() if k != "aborted due to deadline"}
        n302, done = codes.get(302, 0), sum(codes.values())
        errors = sum(errs.values())
        if errs:   # what they were, in the run's log: a failed run must say whose errors they are
            log(f"oha HTTP/{self.version} c={conc}: errors {errs}")
        lat = j.get("latencyPercentiles") or {}
        return {"rps": n302 / duration, "requests": done, "p50_ms": (lat.get("p50") or 0) * 1000,
                "p99_ms": (lat.get("p99") or 0) * 1000, "bad": done - n302 + errors, "not302": done - n302,
                "errors": errors, "busy_s": duration}

    def status(self, url, headers=None):
        """(status, Location) of one GET with Debian 13's curl (client image) in the same protocol."""
        r = subprocess.run(["docker", "run", "--rm", "--network", "host", CLIENT_IMAGE, "curl", "-sk", self.curl_arg,
                            "-o", "/dev/null", *header_args(headers), "-w", "%{http_code} %{redirect_url}",
                            "--max-time", "3", url], capture_output=True, text=True, timeout=60)
        status, _, location = r.stdout.partition(" ")
        return (int(status), location) if status.isdigit() else (None, "")


H1 = Oha("oha-h1", "1.1", "--http1.1")
H2 = Oha("oha-h2", "2", "--http2")
H3 = Oha("oha-h3", "3", "--http3-only")


class TrixieStack(Candidate):
    """The full stack with Debian 13's Nginx (HTTP/3) in a container -> the sidecar."""
    key = "stack-trixie"
    build = None  # the image's `nginx -V` text, asked once
    # make bench-smoke leaves it out (benchmark.run says so): only oha loads it.
    smoke_skip = ("loaded only by oha, which only make bench builds (tools/oha.sh); its HTTP/3 path is "
                  "tested by curl --http3-only in tests/stack/test_http.py")

    @classmethod
    def available(cls):
        if docker_ok():
            return True
        if os.environ.get("CI") == "true":
            die("stack-trixie: Docker, the Debian 13 images (BENCH_TRIXIE_NGINX, BENCH_TRIXIE_CLIENT) or oha "
                "(BENCH_OHA), made by bench/run.sh, are missing; under CI=true that is a failure")
        return False

    def __init__(self, ws):
        super().__init__(ws)
        if TrixieStack.build is None:
            TrixieStack.build = subprocess.run(["docker", "run", "--rm", SERVER_IMAGE, "nginx", "-V"],
                                               capture_output=True, text=True, check=True, timeout=120).stderr
        first = TrixieStack.build.splitlines()
        version = first[0].split("/")[-1] if first else "?"
        ssl = next((line.split()[3] for line in first if line.startswith("built with OpenSSL")), "?")
        self.name = f"Full stack on Debian 13: Nginx {version} (OpenSSL {ssl}, container) -> sidecar"
        self.container = f"fox-bench-trixie-{os.getpid()}-{id(self)}"
        site_http, self.https, self.app_port = loopback.free_ports(3)
        crt, key = ws.cert
        self.variables = loopback.site_variables(TLS_NAME, site_http, self.https, self.app_port, crt, key,
                                                 self.dir / "logs", self.dir, ws.images, build=self.build)
        if "quic" not in (text := loopback.load_renderer()(self.variables)):
            die(f"stack-trixie: the template rendered no `listen ... quic` for {self.name}")
        # oha loses the requests in flight when Nginx ends a connection after keepalive_requests (1000) in
        # HTTP/2 and HTTP/3 (GOAWAY; they count as errors, and its HTTP/3 reconnects crawl): the clients'
        # connections stay open here, in all three protocols alike. A browser asks one avatar per connection.
        self.conf = loopback.nginx_prefix(self.dir, {"fox-avatar.conf": text,
                                                     "zz-bench-client.conf": KEEPALIVE_NOTE + "keepalive_requests 1000000;\n"})
        url = f"https://{HOST}:{self.https}/"
        self.targets = [Target(self, "HTTPS/1.1", url, tool=H1), Target(self, "HTTPS/2", url, tool=H2),
                        Target(self, "HTTP/3", url, tool=H3)]
        self.nginx_pid = None

    def start(self):
        """The sidecar, then Nginx's container; not timed (its start-up is Nginx's plus the sidecar's)."""
        app = spawn(java_cmd(self.ws.images, [f"@{loopback.JVM_OPTIONS}"], self.app_port), self.dir / "java.log")
        self.procs = [app]
        loopback.wait_for_port(self.app_port, app, "the sidecar", self.dir / "java.log", timeout=30)
        mounts = [a for p in (self.ws.tmp, loopback.NGINX_DIR, self.ws.images) for a in ("-v", f"{p}:{p}")]
        self.procs.append(spawn(["docker", "run", "--rm", "--name", self.container, "--network", "host",
                                 "--cpuset-cpus", str(SERVER_CPU), *mounts, SERVER_IMAGE,
                                 "nginx", "-p", str(self.dir), "-e", str(self.dir / "error.log"), "-c", str(self.conf)],
                                self.dir / "docker.log"))
        loopback.wait_for_port(self.https, self.procs[1], "Debian 13's nginx", self.dir / "docker.log", timeout=60)
        r = subprocess.run(["docker", "inspect", "-f", "{{.State.Pid}}", self.container],
                           capture_output=True, text=True, check=True)
        self.nginx_pid = int(r.stdout.strip())
        return None

    def stop(self):
        if len(self.procs) > 1:
            subprocess.run(["docker", "stop", "-t", "10", self.container], capture_output=True)
        for p in reversed(self.procs):
            stop(p)
        self.procs, self.nginx_pid = [], None

    def pids(self):
        return tree([self.procs[0].pid] + ([self.nginx_pid] if self.nginx_pid else [])) if self.procs else []

    def app_pids(self):
        return tree([self.procs[0].pid]) if self.procs else []

    def fallbacks(self):
        """Requests Nginx's fallback answered (the sidecar failed them): must stay 0."""
        f = Path(self.variables["avatar_fallback_log"])
        return len(f.read_text().splitlines()) if f.exists() else 0

    def logs(self):
        return tail_logs(sorted(self.dir.glob("*.log")) + sorted((self.dir / "logs").glob("*")))

