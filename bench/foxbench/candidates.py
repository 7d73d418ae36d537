"""The candidates: the server sets the benchmark compares, each started fresh, its server processes pinned
to the server core. A candidate is one class (its key and name, its targets, start_procs()) and one line
in CANDIDATES, whose order is the report's; a run's candidates share a Workspace (workspace.py)."""
import os
import re
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import jinja2
import loopback

from .load import Target
from .machine import php_fpm_bin
from .processes import cpu_seconds, die, free_port, pin_tree, spawn, stop, tree, wait_302
from .avatar import expected_format
from .settings import AVATAR_PATH, AVATAR_SIZE, BENCH, GRAVATAR_PATH, CHROMIUM_ACCEPT, HOST, JAR, JVM_OPTIONS, TLS_NAME


class Candidate:
    """A server set started fresh by the harness. Subclasses define start_procs() and the targets."""
    key = name = ""
    startup_port = None  # plain-HTTP port answering GET / with 302, for the start-up measurement
    smoke_skip = None    # why make bench-smoke leaves the candidate out (None: the smoke runs it)

    def __init__(self, ws):
        self.ws, self.procs = ws, []
        self.dir = Path(tempfile.mkdtemp(prefix=f"{self.key}-", dir=ws.tmp))
        self.dir.chmod(0o755)  # readable by the Nginx workers whatever their user (tools/loopback.py: root under root)

    @classmethod
    def available(cls):
        """Whether this machine can run the candidate (False: left out of the run, with a note)."""
        return True

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
        return tail_logs(sorted(self.dir.glob("*.log")))


def tail_logs(files):
    return "\n".join(f"--- {f.name}\n" + f.read_text(errors="replace")[-3000:] for f in files)


def java_cmd(images, flags, port, io_threads=None, metrics_port=None):
    """The jar's command line; the /metrics listener only with a metrics_port, off otherwise."""
    cmd = ["java", *flags, "-jar", str(JAR), "--images", str(images), "--port", str(port), "--bind", HOST,
           "--metrics-port", str(metrics_port) if metrics_port else "off"]
    if io_threads:
        cmd += ["--io-threads", str(io_threads)]
    return cmd


class Sidecar(Candidate):
    """Candidate 1: the jar with app/jvm.options (or, for TUNE=1, other flags), plain HTTP. Three targets
    (four with the Gravatar URL) in `make bench`, on the same server in the same rounds: the plain `/` (no header), `/` with Chromium's
    image Accept, and the avatar URL `/?s=64&u=KEY` with the same Accept. The last two differ only
    by the query, so their ratio is the cost of parsing it and hashing the key (not of a bigger request).
    A fourth: the Gravatar URL `/avatar/MD5?s=80` with the same Accept."""
    key, name = "sidecar", "Sidecar direct (Undertow, app/jvm.options)"

    def __init__(self, ws, flags=None, env=None, io_threads=None, key=None, name=None, avatar_url=True):
        self.key = key or self.key
        super().__init__(ws)
        self.name = name or self.name
        self.flags = flags if flags is not None else [f"@{JVM_OPTIONS}"]
        self.env, self.io_threads = env, io_threads
        self.port = self.startup_port = free_port()
        self.targets = [Target(self, "HTTP/1.1", f"http://{HOST}:{self.port}/")]
        if avatar_url:
            self.targets += [Target(self, "HTTP/1.1", f"http://{HOST}:{self.port}/", path=path,
                                    headers={"Accept": CHROMIUM_ACCEPT}) for path in ("/", AVATAR_PATH, GRAVATAR_PATH)]

    metrics_port = None

    def start_procs(self):
        env = dict(os.environ, **(self.env or {}))
        return [spawn(java_cmd(self.ws.images, self.flags, self.port, self.io_threads, self.metrics_port),
                      self.dir / "java.log", env=env)]


class SidecarMetrics(Sidecar):
    """The same jar and flags with its /metrics listener on, beside the sidecar row (listener off)
    in the same rounds: the cost of counting every request (target: at most 2 MB more RSS, 3 % fewer req/s).
    Its memory is read after a scrape of /metrics, as Prometheus would make every 15 s."""
    key, name = "sidecar-metrics", "Sidecar direct, /metrics on"

    def __init__(self, ws):
        super().__init__(ws, key=self.key, name=self.name)
        self.metrics_port = free_port()
        # The plain `/` and the avatar URL (a format and a size rung counted): the sidecar row's first and third.
        self.targets = [self.targets[0], self.targets[2]]

    def scrape(self):
        """One GET /metrics; a busy core (a C2 compiler thread beside the load) may take its time."""
        with urllib.request.urlopen(f"http://{HOST}:{self.metrics_port}/metrics", timeout=60) as r:
            return r.read()


class FullStack(Candidate):
    """Candidate 2: the full stack exactly as the shared HTTP tests start it on loopback
    (tools/loopback.py: the shared Nginx configuration rendered by nginx/render.py, the
    Debian-shaped main nginx.conf, a throw-away CA, the jar with app/jvm.options) serving BENCH_IMAGES,
    pinned to the server core. Its start-up is not timed (it is Nginx's plus the sidecar's).
    Two more targets on the same servers, the images: Nginx answering a content-addressed file
    (the first picture's AVATAR_SIZE px image in the format Chromium's Accept gets, as the avatar URL
    would name it; a 200 with its caching headers) in HTTPS/1.1 and HTTPS/2."""
    key, name = "stack", "Full stack: our Nginx config (HTTPS) -> sidecar"

    def __init__(self, ws):
        super().__init__(ws)
        self.ls = None
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
        pin_tree([p.pid for p in self.procs])
        for t in self.targets:
            t.url = f"https://{HOST}:{self.ls.https_port}/"
        return None

    def stop(self):
        if self.ls:
            self.ls.close()
        self.ls, self.procs = None, []

    def logs(self):
        return tail_logs(sorted(self.ls.logs.glob("*")) if self.ls else [])

    def app_pids(self):
        return tree([self.procs[0].pid]) if self.procs else []

    def nginx_pids(self):
        return tree([self.procs[1].pid]) if self.procs else []

    def fallbacks(self):
        """Requests Nginx's fallback answered (the sidecar failed them): must stay 0."""
        return len(self.ls.fallback_log().splitlines()) if self.ls else 0


class Baseline(Candidate):
    """Candidate 3: bench/baseline/Baseline.java (the JDK's HttpServer), compiled into the candidate's dir,
    run with -Xmx8m -Xss256k, given the legacy names of the manifest as its image-name rule."""
    key, name = "baseline", "Baseline: JDK HttpServer, default executor, -Xmx8m -Xss256k"

    def __init__(self, ws):
        super().__init__(ws)
        self.port = self.startup_port = free_port()
        self.targets = [Target(self, "HTTP/1.1", f"http://{HOST}:{self.port}/")]
        self.classes = self.dir / "classes"
        subprocess.run(["javac", "-d", str(self.classes), str(BENCH / "baseline" / "Baseline.java")], check=True)

    def start_procs(self):
        return [spawn(["java", "-Xmx8m", "-Xss256k", "-cp", str(self.classes), "Baseline",
                       str(self.ws.images), str(self.port), HOST, self.ws.baseline_rule], self.dir / "java.log")]


def nginx_proc(d, conf):
    return spawn(["nginx", "-p", str(d), "-e", str(d / "error.log"), "-c", str(conf)], d / "nginx-stdout.log")


class NginxAlone(Candidate):
    """Bound 4: Nginx answering / with the random 302 itself, no sidecar at all. It is our own fallback
    path made the only path: the per-deployment file rendered by nginx/render.py (the shared http.conf
    with its log format, the image set's fallback split; its own servers idle on other ports), and a
    server of its own with tls.conf and fallback.conf (the 302 with the sidecar's headers), logging like
    the full stack."""
    key, name = "nginx", "Bound: Nginx alone (split_clients 302)"
    access_log = True

    def __init__(self, ws):
        super().__init__(ws)
        self.http, self.https = free_port(), free_port()
        self.startup_port = self.http
        self.targets = [Target(self, "HTTP/1.1", f"http://{HOST}:{self.http}/")]
        if self.access_log:
            self.targets += [Target(self, "HTTPS/1.1", f"https://{HOST}:{self.https}/"),
                             Target(self, "HTTPS/2", f"https://{HOST}:{self.https}/", tool="h2load")]
        crt, key = ws.cert
        site_http, site_https, nobody = loopback.free_ports(3)
        variables = loopback.site_variables(TLS_NAME, site_http, site_https, nobody, crt, key,
                                            self.dir / "logs", self.dir, ws.images,
                                            build=loopback.nginx_build(loopback.find_nginx()))
        site = loopback.load_renderer()(variables)
        # the full stack's HTTPS access log exactly as the template writes it (nginx/fox-avatar.conf.j2,
        # avatar_access_log_mode anonymous): its format and its buffer, the line before the
        # fallback log's
        logline = (access_log_line(site) if self.access_log else "access_log off;")
        # the site's TLS settings: its include file, rendered (the fallback's 302 is written out below)
        tls = jinja2.Environment(loader=jinja2.FileSystemLoader(str(loopback.NGINX_DIR)), trim_blocks=True) \
            .get_template("fox-avatar/tls.conf").render().replace("\n", "\n    ")
        # conf.d/*.conf are read in name order: site.conf after fox-avatar.conf (its log format, the split)
        self.conf = loopback.nginx_prefix(self.dir, {
            "fox-avatar.conf": site,
            "site.conf": f"""# Written by bench/foxbench/candidates.py: Nginx alone answers / itself (bound 4).
server {{
    listen {HOST}:{self.http};
    listen {HOST}:{self.https} ssl http2;
    server_name {TLS_NAME};
    ssl_certificate {crt};
    ssl_certificate_key {key};
    {tls}
    {logline}
    location = / {{
        add_header Cache-Control $avatar_redirect_cache_control always;
        add_header Vary Accept always;
        return 302 $avatar_fallback_location;
    }}
    location / {{
        return 404;
    }}
}}
"""})

    def start_procs(self):
        return [nginx_proc(self.dir, self.conf)]


def access_log_line(site):
    """The HTTPS server's access_log directive of a rendered per-deployment file: the one before its
    fallback log's (`access_log ... if=$avatar_fallback;`)."""
    m = re.search(r"^\s*(access_log [^;]*;)\n\s*access_log [^;]* if=\$avatar_fallback;", site, re.M)
    if not m:
        die("bench: the rendered fox-avatar.conf has no HTTPS access_log before its fallback log's")
    return m.group(1)


class NginxAloneNoLog(NginxAlone):
    """Bound 4 without its access log: what the log costs (plain HTTP only)."""
    key, name = "nginx-nolog", "Nginx alone, access_log off"
    access_log = False


class Php(Candidate):
    """Candidate 5: three lines of PHP behind php-fpm (Debian's stock php.ini, OPcache on), Nginx in front,
    set up the usual way (a connection per request to the pool's socket: FastCGI keep-alive with a
    static pool stalls once Nginx holds more idle connections than there are children)."""
    key, name = "php", "PHP via php-fpm (behind Nginx)"

    @classmethod
    def available(cls):
        return php_fpm_bin() is not None

    def __init__(self, ws):
        super().__init__(ws)
        self.http = self.startup_port = free_port()
        self.targets = [Target(self, "HTTP/1.1", f"http://{HOST}:{self.http}/")]
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
env[AVATAR_IMAGES] = {ws.images}
env[AVATAR_NAME_RULE] = "{ws.baseline_rule}"
""")
        self.conf = loopback.nginx_prefix(self.dir, {"site.conf": f"""# Written by bench/foxbench/candidates.py: Nginx in front of php-fpm (candidate 5).
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
"""})

    def start_procs(self):
        fpm = spawn([php_fpm_bin(), "-R", "-F", "-y", str(self.fpm_conf)], self.dir / "php-fpm.log")
        return [fpm, nginx_proc(self.dir, self.conf)]


from .trixie import TrixieStack  # noqa: E402 (it builds on Candidate above)

# The candidates of `make bench`, in the report's order.
CANDIDATES = [Sidecar, SidecarMetrics, FullStack, TrixieStack, Baseline, NginxAlone, NginxAloneNoLog, Php]
