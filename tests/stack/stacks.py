"""The stack the shared HTTP assertions run against, chosen by environment.

AVATAR_STACK unset or "loopback": start the real jar and a real Nginx with the
shared configuration (nginx/fox-avatar/ + the rendered nginx/fox-avatar.conf.j2)
on free loopback ports, with a fresh test CA and server certificate: the
LoopbackStack of tools/loopback.py, which the benchmark uses too.

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
  AVATAR_HTTP3                1 | 0: the stack must | must not serve HTTP/3 on AVATAR_HTTPS_PORT (UDP)
                              and name it in Alt-Svc (test_http3.py; unset: those tests fail)
  AVATAR_PQ                   1 | 0: a client offering X25519MLKEM768 must get it | must get X25519
                              (OpenSSL >= 3.5 behind Nginx or not; unset: those tests fail)
  AVATAR_CLIENT_NETWORK       docker network the Debian 13 client container (tools/docker.sh
                              trixie_client_ready) joins to reach AVATAR_ADDR (default "host")
For the loopback stack AVATAR_HTTP3 and AVATAR_PQ are read from the file the template rendered for
its Nginx (a "quic" listen; X25519MLKEM768 in ssl_ecdh_curve), the client network is "host".

AVATAR_TRIXIE_CLIENT (any stack): the client image's name, set by the run.sh scripts; unset, the
tests make it with tools/docker.sh (a missing Docker engine skips them, under CI=true fails).
"""
import contextlib
import os
import re
import subprocess
from pathlib import Path

import pytest
import loopback
# Re-exported for tests/nginx: where the repository and the Nginx files are, free ports, the renderer.
from loopback import NGINX_DIR, REPO, free_ports, load_renderer  # noqa: F401


class Stack:
    """What a test needs to know about a running stack."""
    kind = "?"
    host = addr = ca_file = None
    https_port = http_port = redirect_port = None
    images_dir = REPO / "images"
    http3 = pq = None           # True/False: the stack must/must not serve HTTP/3, X25519MLKEM768
    client_network = "host"     # docker network of the Debian 13 client container

    def stop_app(self):
        raise NotImplementedError

    def start_app(self):
        raise NotImplementedError

    def fallback_log(self):
        """Text of Nginx's fallback log, or None when this stack cannot tell."""
        return None

    def https_origin(self):
        return f"https://{self.host}" + ("" if self.https_port == 443 else f":{self.https_port}")


def _flag(env, name):
    """AVATAR_HTTP3 / AVATAR_PQ: True, False, or None when unset (the tests needing it fail)."""
    value = env.get(name)
    if value in (None, ""):
        return None
    if value not in ("0", "1"):
        pytest.fail(f"{name}: must be 1 or 0, not {value!r}", pytrace=False)
    return value == "1"


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
        self.http3 = _flag(env, "AVATAR_HTTP3")
        self.pq = _flag(env, "AVATAR_PQ")
        self.client_network = env.get("AVATAR_CLIENT_NETWORK") or "host"
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

class LoopbackStack(loopback.LoopbackStack, Stack):
    """The stack of tools/loopback.py (shared with the benchmark); a missing prerequisite
    skips (under CI=true: fails, tests/conftest.py). Its access log is "full" unless asked
    otherwise: the tests find their requests in it by markers in the query (the default,
    "anonymous", keeps no query: tests/nginx/test_private_logs.py checks it)."""

    def __init__(self, images_dir=REPO / "images", access_log_mode="full", extra_variables=None):
        try:
            super().__init__(images_dir, access_log_mode, extra_variables)
        except loopback.Unavailable as e:
            pytest.skip(str(e))
        # What the template decided for this Nginx (nginx -V), read from what it rendered.
        site = (self.conf_dir / "conf.d" / "fox-avatar.conf").read_text()
        self.http3 = bool(re.search(r"^\s*listen \S+ quic\b", site, re.M))
        self.pq = bool(re.search(r"^\s*ssl_ecdh_curve X25519MLKEM768[:;]", site, re.M))


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
