"""The stack the shared HTTP assertions run against, chosen by environment.

AVATAR_STACK unset or "loopback": start the real jar and a real Nginx with the
shared configuration (nginx/fox-avatar/ + the rendered nginx/fox-avatar.conf.j2)
on free loopback ports, with a fresh test CA and server certificate.

AVATAR_STACK=external: an already running stack, described by
  AVATAR_HOST                 name for SNI, Host and the certificate check
  AVATAR_ADDR                 IP address to connect to
  AVATAR_HTTPS_PORT           HTTPS port (default 443)
  AVATAR_HTTP_PORT            plain HTTP port (default 80)
  AVATAR_HTTPS_REDIRECT_PORT  port the HTTP->HTTPS redirect names (default AVATAR_HTTPS_PORT)
  AVATAR_CA                   PEM file of the CA to trust
  AVATAR_APP_STOP, AVATAR_APP_START  shell commands stopping/starting the Java service(s)
  AVATAR_FALLBACK_LOG_CMD     optional: shell command printing Nginx's fallback log
  AVATAR_IMAGES_DIR           optional: the images the stack serves (default: images/)
"""
import contextlib
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

import pytest
from foxavatar.imageset import image_names

REPO = Path(__file__).resolve().parents[2]
JAR = REPO / "app" / "target" / "avatar.jar"
NGINX_DIR = REPO / "nginx"
LOOPBACK_HOST = "avatar.test"


class Stack:
    """What a test needs to know about a running stack."""
    kind = "?"
    host = addr = ca_file = None
    https_port = http_port = redirect_port = None
    images_dir = REPO / "images"

    def stop_app(self):
        raise NotImplementedError

    def start_app(self):
        raise NotImplementedError

    def fallback_log(self):
        """Text of Nginx's fallback log, or None when this stack cannot tell."""
        return None

    def https_origin(self):
        return f"https://{self.host}" + ("" if self.https_port == 443 else f":{self.https_port}")


# --- external ---------------------------------------------------------------

class ExternalStack(Stack):
    kind = "external"

    def __init__(self, env):
        def need(name):
            value = env.get(name)
            if not value:
                pytest.fail(f"AVATAR_STACK=external needs {name}", pytrace=False)
            return value
        self.host = need("AVATAR_HOST")
        self.addr = env.get("AVATAR_ADDR") or self.host
        self.https_port = int(env.get("AVATAR_HTTPS_PORT", "443"))
        self.http_port = int(env.get("AVATAR_HTTP_PORT", "80"))
        self.redirect_port = int(env.get("AVATAR_HTTPS_REDIRECT_PORT", self.https_port))
        self.ca_file = need("AVATAR_CA")
        if not Path(self.ca_file).is_file():
            pytest.fail(f"AVATAR_CA: no such file: {self.ca_file}", pytrace=False)
        self._stop = env.get("AVATAR_APP_STOP")
        self._start = env.get("AVATAR_APP_START")
        self._log_cmd = env.get("AVATAR_FALLBACK_LOG_CMD")
        if env.get("AVATAR_IMAGES_DIR"):
            self.images_dir = Path(env["AVATAR_IMAGES_DIR"])

    def _run(self, name, cmd):
        if not cmd:
            pytest.skip(f"{name} is not set: cannot stop/start the Java service")
        subprocess.run(cmd, shell=True, check=True, timeout=120)

    def stop_app(self):
        self._run("AVATAR_APP_STOP", self._stop)

    def start_app(self):
        self._run("AVATAR_APP_START", self._start)

    def fallback_log(self):
        if not self._log_cmd:
            return None
        return subprocess.run(self._log_cmd, shell=True, check=True, timeout=60,
                              capture_output=True, text=True).stdout


# --- loopback ---------------------------------------------------------------

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


def nginx_version(nginx):
    out = subprocess.run([nginx, "-v"], capture_output=True, text=True).stderr
    m = re.search(r"nginx/(\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(x) for x in m.groups()) if m else (0, 0, 0)


def load_renderer():
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
    worker_connections 256;
}}
http {{
    sendfile on;
    tcp_nopush on;
    types_hash_max_size 2048;
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


class LoopbackStack(Stack):
    kind = "loopback"

    def __init__(self):
        self.nginx = find_nginx()
        if not self.nginx:
            pytest.skip("nginx is not installed (tests/nginx/run.sh installs it)")
        if not JAR.is_file():
            pytest.skip(f"{JAR.relative_to(REPO)} is missing (run: make build)")
        if not shutil.which("java"):
            pytest.skip("java is not installed")
        self.version = nginx_version(self.nginx)
        self.tmp = Path(tempfile.mkdtemp(prefix="fox-avatar-stack-"))
        self.tmp.chmod(0o755)      # nginx workers (www-data) read the ACME webroot
        self.host, self.addr = LOOPBACK_HOST, "127.0.0.1"
        self.http_port, self.https_port, self.app_port = free_ports(3)
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
        for d in ("logs", "var", "acme", "conf/conf.d"):
            (tmp / d).mkdir(parents=True, exist_ok=True)
        self.logs = tmp / "logs"
        self.acme_webroot = tmp / "acme"
        self.images_dir = REPO / "images"
        certs = make_certs(tmp, self.host)
        self.ca_file = str(certs["ca"])
        self.conf_dir = tmp / "conf"
        (self.conf_dir / "fox-avatar").symlink_to(NGINX_DIR / "fox-avatar")
        shutil.copy("/etc/nginx/mime.types", self.conf_dir / "mime.types")   # nginx-common
        self.variables = {
            "avatar_server_name": self.host,
            "avatar_listen_addresses": ["127.0.0.1"],
            "avatar_http_port": self.http_port,
            "avatar_https_port": self.https_port,
            "avatar_http2_on_directive": self.version >= (1, 25, 1),
            "avatar_tls_certificate": str(certs["cert"]),
            "avatar_tls_certificate_key": str(certs["key"]),
            "avatar_upstream_servers": [f"127.0.0.1:{self.app_port}"],
            "avatar_images_root": str(self.images_dir),
            "avatar_images": image_names(self.images_dir),
            "avatar_acme_webroot": str(self.acme_webroot),
            "avatar_access_log": str(self.logs / "access.log"),
            "avatar_fallback_log": str(self.logs / "fallback.log"),
            "avatar_error_log": str(self.logs / "error.log"),
        }
        (self.conf_dir / "conf.d" / "fox-avatar.conf").write_text(load_renderer()(self.variables))
        user = ""
        if os.geteuid() == 0:
            user = "user www-data;\n" if _user_exists("www-data") else "user nobody nogroup;\n"
        self.main_conf = self.conf_dir / "nginx.conf"
        self.main_conf.write_text(MAIN_CONF.format(user=user, tmp=tmp))

    def nginx_args(self, *extra):
        return [self.nginx, "-p", str(self.tmp), "-c", str(self.main_conf),
                "-e", str(self.logs / "startup-error.log"), *extra]

    def _start_nginx(self):
        self.nginx_proc = subprocess.Popen(self.nginx_args(), stdout=subprocess.DEVNULL,
                                           stderr=open(self.logs / "nginx.stderr", "wb"))
        _wait_for_port(self.https_port, self.nginx_proc, "nginx", self.logs / "nginx.stderr")

    # the sidecar
    def start_app(self):
        if self.app and self.app.poll() is None:
            return
        log = open(self.logs / "app.log", "ab")
        self.app = subprocess.Popen(
            ["java", f"@{REPO / 'app' / 'jvm.options'}", "-jar", str(JAR),
             "--images", str(self.images_dir), "--port", str(self.app_port), "--bind", "127.0.0.1"],
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

    def access_log(self):
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


def _user_exists(name):
    import pwd
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def _wait_for_port(port, proc, what, log, timeout=15):
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


@contextlib.contextmanager
def open_stack(env=os.environ):
    kind = env.get("AVATAR_STACK", "loopback") or "loopback"
    if kind == "external":
        yield ExternalStack(env)
    elif kind == "loopback":
        s = LoopbackStack()
        try:
            yield s
        finally:
            s.close()
    else:
        pytest.fail(f"AVATAR_STACK: unknown stack {kind!r} (loopback or external)", pytrace=False)
