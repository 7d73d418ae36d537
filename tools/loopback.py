"""The loopback stack: the real jar behind a real Nginx with the shared configuration, on free loopback ports.

    from loopback import LoopbackStack, Unavailable
    stack = LoopbackStack()          # raises Unavailable when nginx, java or the jar is missing
    ...  https://127.0.0.1:{stack.https_port}/ (name stack.host, CA stack.ca_file)
    stack.close()

Owns how fox-avatar is assembled on one machine without installing it: a throwaway CA and server
certificate, the site rendered by nginx/render.py (nginx/fox-avatar.conf.j2, one file), a main nginx.conf shaped like Debian's with every path in a temp dir,
and the jar started with app/jvm.options. Used by the shared HTTP tests (tests/stack/stacks.py) and by
the benchmark's full-stack candidate (bench/foxbench/candidates.py); no pytest here.
Needs Jinja2 (nginx/render.py) and cryptography (the certificates): the project venv has both.
"""
import datetime
import http.client
import importlib.util
import ipaddress
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from imageset import read_manifest
from imageset.nginx import template_data
from settle import settled

REPO = Path(__file__).resolve().parents[1]
JAR = REPO / "app" / "target" / "avatar.jar"
JVM_OPTIONS = REPO / "app" / "jvm.options"
NGINX_DIR = REPO / "nginx"
LOOPBACK_HOST = "avatar.test"


class Unavailable(RuntimeError):
    """A prerequisite of the loopback stack (nginx, java, the jar) is missing."""


def free_ports(n):
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def find_nginx():
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None)


def nginx_build(nginx):
    """The text `nginx -V` prints: the template's avatar_nginx_build (it decides everything that
    depends on the Nginx and OpenSSL versions from it)."""
    return subprocess.run([nginx, "-V"], capture_output=True, text=True, check=True).stderr


def nginx_version(nginx):
    out = subprocess.run([nginx, "-v"], capture_output=True, text=True).stderr
    m = re.search(r"nginx/(\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(x) for x in m.groups()) if m else (0, 0, 0)


def load_renderer():
    """nginx/render.py's render(variables) -> the per-deployment file's text."""
    spec = importlib.util.spec_from_file_location("fox_avatar_render", NGINX_DIR / "render.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.render


def make_certs(directory, host):
    """A throwaway CA and a server certificate for host + 127.0.0.1 signed by it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fox-avatar throwaway test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(hours=1))
          .not_valid_after(now + datetime.timedelta(days=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False),
                         critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)]))
            .issuer_name(ca_name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName(host), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False),
                           critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                           critical=False)
            .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    paths = {"ca": directory / "ca.pem", "cert": directory / "fullchain.pem", "key": directory / "privkey.pem"}
    paths["ca"].write_bytes(ca.public_bytes(pem))
    paths["cert"].write_bytes(cert.public_bytes(pem) + ca.public_bytes(pem))
    paths["key"].write_bytes(key.private_bytes(pem, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    paths["key"].chmod(0o600)
    return paths


MAIN_CONF = """\
# Test main configuration, shaped like Debian's /etc/nginx/nginx.conf (same
# http-level settings, including its permissive ssl_protocols, which the
# shared tls.conf must override), with every path inside the test directory.
{user}worker_processes 1;
pid {tmp}/nginx.pid;
daemon off;
error_log {tmp}/logs/main-error.log;
events {{
    # Debian ships 768. HTTP/3 takes one per QUIC connection and one per stream (about 7 per client
    # connection): the bench's Debian 13 stack ran out of 768 at 100 HTTP/3 connections.
    worker_connections 4096;
}}
http {{
    sendfile on;
    tcp_nopush on;
    types_hash_max_size 2048;
    # The site's maps are large: the deployments' nginx.conf sets these (not the site).
    map_hash_max_size 4096;
    map_hash_bucket_size 128;
    include mime.types;
    default_type application/octet-stream;
    ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;
    ssl_prefer_server_ciphers on;
    access_log {tmp}/logs/main-access.log;
    gzip on;
    client_body_temp_path {tmp}/var/body;
    proxy_temp_path {tmp}/var/proxy;
    fastcgi_temp_path {tmp}/var/fastcgi;
    uwsgi_temp_path {tmp}/var/uwsgi;
    scgi_temp_path {tmp}/var/scgi;
    include conf.d/*.conf;
}}
"""


def nginx_prefix(tmp, sites):
    """Lay out an Nginx prefix in tmp: logs/, var/, conf/ with MAIN_CONF (one worker), Debian's
    mime.types and conf/conf.d/NAME for each NAME: text of sites. Returns conf/nginx.conf."""
    tmp = Path(tmp)
    conf_dir = tmp / "conf"
    for d in ("logs", "var", "conf/conf.d"):
        (tmp / d).mkdir(parents=True, exist_ok=True)
    shutil.copy("/etc/nginx/mime.types", conf_dir / "mime.types")   # nginx-common
    for name, text in sites.items():
        (conf_dir / "conf.d" / name).write_text(text)
    # Run as root (the tests' way on these machines), the workers run as root too: they serve files
    # of the checkout (images/), which www-data or nobody cannot read when the clone sits under a
    # directory only its owner may enter (root's home, /root, is 0700). A test-only main
    # configuration: a deployment's workers are www-data (Debian's nginx.conf, compose's image).
    user = "user root;\n" if os.geteuid() == 0 else ""
    main_conf = conf_dir / "nginx.conf"
    main_conf.write_text(MAIN_CONF.format(user=user, tmp=tmp))
    return main_conf


def site_variables(host, http_port, https_port, app_port, cert, key, logs, acme_webroot,
                   images_dir=REPO / "images", build="", access_log_mode=None):
    """The per-deployment variables (nginx/README.md) of a stack on 127.0.0.1; access_log_mode
    None: the template's default (anonymous)."""
    variables = {
        "avatar_server_name": host,
        "avatar_listen_addresses": ["127.0.0.1"],
        "avatar_http_port": http_port,
        "avatar_https_port": https_port,
        "avatar_nginx_build": build,
        "avatar_tls_certificate": str(cert),
        "avatar_tls_certificate_key": str(key),
        "avatar_upstream_servers": [f"127.0.0.1:{app_port}"],
        "avatar_images_root": str(images_dir),
        "avatar_image_set": template_data(read_manifest(images_dir)),
        "avatar_acme_webroot": str(acme_webroot),
        "avatar_access_log": str(Path(logs) / "access.log"),
        "avatar_fallback_log": str(Path(logs) / "fallback.log"),
        "avatar_error_log": str(Path(logs) / "error.log"),
    }
    if access_log_mode is not None:
        variables["avatar_access_log_mode"] = access_log_mode
    return variables


def wait_for_port(port, proc, what, log, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited ({proc.returncode}): {Path(log).read_text()[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on {port} within {timeout} s")


class LoopbackStack:
    kind = "loopback"

    def __init__(self, images_dir=REPO / "images", access_log_mode=None, extra_variables=None):
        """extra_variables: more template variables (nginx/README.md), e.g. avatar_tls false: the
        avatar server then answers plain HTTP on http_port (https_port is unused)."""
        self.images_dir = Path(images_dir)
        self.access_log_mode = access_log_mode
        self.extra_variables = dict(extra_variables or {})
        self.nginx = find_nginx()
        if not self.nginx:
            raise Unavailable("nginx is not installed (tests/nginx/run.sh and bench/run.sh install it)")
        if not JAR.is_file():
            raise Unavailable(f"{JAR.relative_to(REPO)} is missing (run: make build)")
        if not shutil.which("java"):
            raise Unavailable("java is not installed")
        self.version = nginx_version(self.nginx)
        self.tmp = Path(tempfile.mkdtemp(prefix="fox-avatar-stack-"))
        self.host, self.addr = LOOPBACK_HOST, "127.0.0.1"
        # the sidecar's /metrics listener on a port of its own too: its default (ports.env's APP_METRICS_PORT) would be shared by
        # every stack that runs at once
        self.http_port, self.https_port, self.app_port, self.metrics_port = free_ports(4)
        self.redirect_port = self.https_port
        self.app = self.nginx_proc = None
        try:
            self._prepare()
            self._start_nginx()
            self.start_app()
        except BaseException:
            self.close()
            raise

    # layout
    def _prepare(self):
        tmp = self.tmp
        self.logs = tmp / "logs"
        self.acme_webroot = tmp / "acme"
        self.acme_webroot.mkdir()
        certs = make_certs(tmp, self.host)
        self.ca_file = str(certs["ca"])
        self.conf_dir = tmp / "conf"
        self.variables = site_variables(
            self.host, self.http_port, self.https_port, self.app_port, certs["cert"], certs["key"],
            self.logs, self.acme_webroot, self.images_dir,
            build=nginx_build(self.nginx), access_log_mode=self.access_log_mode)
        self.variables.update(self.extra_variables)
        self.tls = self.extra_variables.get("avatar_tls", True) is not False
        self.main_conf = nginx_prefix(tmp, {"fox-avatar.conf": load_renderer()(self.variables)})

    def nginx_args(self, *extra):
        return [self.nginx, "-p", str(self.tmp), "-c", str(self.main_conf),
                "-e", str(self.logs / "startup-error.log"), *extra]

    def _start_nginx(self):
        self.nginx_proc = subprocess.Popen(self.nginx_args(), stdout=subprocess.DEVNULL,
                                           stderr=open(self.logs / "nginx.stderr", "wb"))
        wait_for_port(self.https_port if self.tls else self.http_port, self.nginx_proc, "nginx",
                      self.logs / "nginx.stderr")

    # the sidecar
    def start_app(self):
        if self.app and self.app.poll() is None:
            return
        log = open(self.logs / "app.log", "ab")
        self.app = subprocess.Popen(
            ["java", f"@{JVM_OPTIONS}", "-jar", str(JAR),
             "--images", str(self.images_dir), "--port", str(self.app_port), "--bind", "127.0.0.1",
             "--metrics-port", str(self.metrics_port)],
            stdout=log, stderr=subprocess.STDOUT, cwd=self.tmp)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.app.poll() is not None:
                raise RuntimeError(f"the jar exited ({self.app.returncode}): see {self.logs / 'app.log'}")
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.app_port, timeout=1)
                c.request("GET", "/healthz")
                if c.getresponse().status == 200:
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the jar did not answer /healthz within 30 s")

    def stop_app(self):
        if self.app and self.app.poll() is None:
            self.app.send_signal(signal.SIGTERM)
            try:
                self.app.wait(15)
            except subprocess.TimeoutExpired:
                self.app.kill()
                self.app.wait()

    def pause_app(self):
        """Freeze the sidecar (it accepts connections, answers nothing)."""
        self.app.send_signal(signal.SIGSTOP)
        stat = Path(f"/proc/{self.app.pid}/stat")
        deadline = time.monotonic() + 5
        while stat.read_text().rsplit(")", 1)[1].split()[0] != "T":
            assert time.monotonic() < deadline, "the sidecar did not stop"
            time.sleep(0.01)

    def resume_app(self):
        self.app.send_signal(signal.SIGCONT)

    def fallback_log(self):
        p = self.logs / "fallback.log"
        return p.read_text() if p.exists() else ""

    def flush_logs(self):
        """Have Nginx write out its buffered access log (the template buffers it, issue 36): a reopen
        (SIGUSR1, what logrotate does) makes each worker write its buffer; then wait until the file stops
        growing."""
        if not (self.nginx_proc and self.nginx_proc.poll() is None):
            return
        self.nginx_proc.send_signal(signal.SIGUSR1)
        p = self.logs / "access.log"
        size, stable, deadline = -1, 0, time.monotonic() + 3
        while stable < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
            now = p.stat().st_size if p.exists() else 0
            stable, size = (stable + 1 if now == size else 0), now

    def access_log(self):
        self.flush_logs()
        p = self.logs / "access.log"
        return p.read_text() if p.exists() else ""

    def close(self):
        if self.app and self.app.poll() is None:
            self.resume_app()
            self.stop_app()
        if self.nginx_proc and self.nginx_proc.poll() is None:
            self.nginx_proc.send_signal(signal.SIGQUIT)   # graceful
            try:
                self.nginx_proc.wait(10)
            except subprocess.TimeoutExpired:
                self.nginx_proc.kill()
                self.nginx_proc.wait()
        if os.environ.get("AVATAR_KEEP_TMP"):
            print(f"kept {self.tmp}")
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)
