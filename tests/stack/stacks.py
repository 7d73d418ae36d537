"""The stack the shared HTTP tests run against, chosen by environment.

AVATAR_STACK unset or "loopback": the real jar behind a real Nginx on free loopback ports, with a
throwaway CA (tools/loopback.py). AVATAR_STACK=external: a running stack, described by
  AVATAR_HOST                 name for SNI, Host and the certificate check
  AVATAR_ADDR                 IP address to connect to (default: AVATAR_HOST)
  AVATAR_HTTPS_PORT           HTTPS port (default 443)
  AVATAR_HTTP_PORT            plain HTTP port (default 80)
  AVATAR_HTTPS_REDIRECT_PORT  the HTTPS port port 80's redirect names (default AVATAR_HTTPS_PORT)
  AVATAR_CA                   PEM file of the CA to trust
  AVATAR_APP_STOP, AVATAR_APP_START  shell commands stopping/starting the Java service(s)
  AVATAR_FALLBACK_LOG_CMD     optional: shell command printing Nginx's fallback log
  AVATAR_IMAGES_DIR           optional: the set the stack serves (default: images/)
  AVATAR_HTTP3, AVATAR_PQ     1 | 0: the stack must | must not serve HTTP/3 on the HTTPS port (UDP)
                              and name it in Alt-Svc; give X25519MLKEM768 to a client offering it
  AVATAR_CLIENT_NETWORK       docker network the Debian 13 client joins (default "host")
The loopback stack reads HTTP/3 and ML-KEM from the site it rendered. AVATAR_TRIXIE_CLIENT (any
stack): the Debian 13 client image (the run.sh scripts set it; unset, the tests make it).
"""
import contextlib
import os
import re
import subprocess
from pathlib import Path

import pytest
import loopback
# Re-exported for the other layers' tests.
from loopback import NGINX_DIR, REPO, free_ports, load_renderer  # noqa: F401


class Stack:
    """What a test needs to know about a running stack."""
    kind = "?"
    host = addr = ca_file = None
    https_port = http_port = redirect_port = None
    images_dir = REPO / "images"
    http3 = pq = None           # True/False: the stack must/must not serve HTTP/3, X25519MLKEM768
    client_network = "host"     # docker network of the Debian 13 client container

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


class LoopbackStack(loopback.LoopbackStack, Stack):
    """tools/loopback.py's stack; a missing prerequisite skips (under CI=true: fails). Its access
    log is "full" unless asked otherwise: the tests find their requests in it by their query."""

    def __init__(self, images_dir=REPO / "images", access_log_mode="full", extra_variables=None, app_args=()):
        try:
            super().__init__(images_dir, access_log_mode, extra_variables, app_args)
        except loopback.Unavailable as e:
            pytest.skip(str(e))
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
