"""Issue 12: the full stack on Debian 13. Debian 13's Nginx (1.26, --with-http_v3_module, OpenSSL 3.5) runs in
a container of image BENCH_TRIXIE_NGINX (tools/docker.sh trixie_nginx_ready) with --network host, pinned to
the server core, serving our shared configuration rendered with that Nginx's own `nginx -V` text (so the
template turns on HTTP/3 and the post-quantum group itself); behind it the same sidecar as the "stack"
candidate (the host's JVM and jar). Its paths (the run's temp dir, nginx/, the images) are bind-mounted at
the same place, so the rendered file works unchanged. Its three rows, HTTPS/1.1, HTTPS/2 and HTTP/3, share
one load generator: Debian 13's h2load (image BENCH_TRIXIE_CLIENT, tools/docker.sh trixie_client_ready),
run in a container with --network host pinned to the load core (`--h1`; default ALPN; `--alpn-list=h3`).
Debian 13's h2load is built without HTTP/3 (nghttp2-client is not linked with ngtcp2): the HTTP/3 row is
run only with a client image whose h2load has it (h2load_has_http3), and logged as missing otherwise.
bench/run.sh makes both images and exports their names; without them (no Docker) the candidate is left
out with a note, except under CI=true, where that is a failure."""
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from foxavatar import loopback

from .candidates import Candidate, java_cmd, tail_logs
from .load import H2load, Target, header_args
from .processes import die, log, spawn, stop, tree
from .settings import CLIENT_CPU, HOST, SERVER_CPU, TLS_NAME

SERVER_IMAGE = os.environ.get("BENCH_TRIXIE_NGINX", "")
CLIENT_IMAGE = os.environ.get("BENCH_TRIXIE_CLIENT", "")


def docker_ok():
    return bool(SERVER_IMAGE and CLIENT_IMAGE and shutil.which("docker")
                and subprocess.run(["docker", "info"], capture_output=True).returncode == 0)


def h2load_has_http3():
    """Whether the client image's h2load can speak HTTP/3 (it is linked with ngtcp2)."""
    r = subprocess.run(["docker", "run", "--rm", CLIENT_IMAGE, "sh", "-c", 'ldd "$(command -v h2load)"'],
                       capture_output=True, text=True, timeout=120)
    return "libngtcp2" in r.stdout


class TrixieH2load(H2load):
    """Debian 13's h2load in a container on the host network, pinned to the load core; one instance per
    protocol (HTTP/1.1: one request at a time on each of conc connections, as wrk does; HTTP/2 and
    HTTP/3: H2load's 10 connections with conc/10 streams). Its log files are in a bind-mounted dir."""

    def __init__(self, name, alpn_args, curl_arg, one_per_connection=False):
        self.name, self.alpn_args, self.curl_arg = name, alpn_args, curl_arg
        self.one_per_connection = one_per_connection
        self.logdir = None

    def docker(self, *argv):
        if self.logdir is None:
            self.logdir = tempfile.mkdtemp(prefix="fox-bench-h2load-")
        return ["docker", "run", "--rm", "--network", "host", "--cpuset-cpus", str(CLIENT_CPU),
                "-v", f"{self.logdir}:{self.logdir}", CLIENT_IMAGE, *argv]

    def shape(self, conc):
        return (conc, 1) if self.one_per_connection else super().shape(conc)

    def command(self, conns, streams, n, logfile, headers, url):
        return self.docker("h2load", *self.alpn_args, *super().command(conns, streams, n, logfile, headers, url)[1:])

    def status(self, url, headers=None):
        """(status, Location) of one GET with Debian 13's curl in the same protocol."""
        r = subprocess.run(self.docker("curl", "-sk", self.curl_arg, "-o", "/dev/null", *header_args(headers),
                                       "-w", "%{http_code} %{redirect_url}", "--max-time", "3", url),
                           capture_output=True, text=True, timeout=60)
        status, _, location = r.stdout.partition(" ")
        return (int(status), location) if status.isdigit() else (None, "")


H1 = TrixieH2load("trixie-h2load-h1", ["--h1"], "--http1.1", one_per_connection=True)
H2 = TrixieH2load("trixie-h2load", [], "--http2")
H3 = TrixieH2load("trixie-h2load-h3", ["--alpn-list=h3"], "--http3-only")


class TrixieStack(Candidate):
    """Issue 12: the full stack with Debian 13's Nginx (HTTP/3) in a container -> the sidecar."""
    key = "stack-trixie"
    build = None  # the image's `nginx -V` text, asked once

    @classmethod
    def available(cls):
        if docker_ok():
            return True
        if os.environ.get("CI") == "true":
            die("stack-trixie: Docker or the Debian 13 images (BENCH_TRIXIE_NGINX, BENCH_TRIXIE_CLIENT, made "
                "by bench/run.sh) are missing; under CI=true that is a failure")
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
        self.conf = loopback.nginx_prefix(self.dir, {"fox-avatar.conf": text})
        url = f"https://{HOST}:{self.https}/"
        self.targets = [Target(self, "HTTPS/1.1", url, tool=H1), Target(self, "HTTPS/2", url, tool=H2)]
        if h2load_has_http3():
            self.targets.append(Target(self, "HTTP/3", url, tool=H3))
        else:
            log(f"stack-trixie: {CLIENT_IMAGE}'s h2load is built without HTTP/3 (not linked with libngtcp2: "
                "Debian 13's nghttp2-client is not): no HTTP/3 row")
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

