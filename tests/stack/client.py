"""Small HTTP(S) clients for the stack tests: no redirects followed, no URL
normalisation, connect to the stack's address while naming its host (SNI,
Host, certificate check), plus a raw-bytes client for malformed requests."""
import http.client
import socket
import ssl
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field


@dataclass
class Response:
    status: int
    headers: dict = field(default_factory=dict)   # lower-case name -> list of values
    body: bytes = b""
    version: str = ""

    def header(self, name):
        """The value of a header (joined if repeated), or None."""
        values = self.headers.get(name.lower())
        return ", ".join(values) if values else None

    def count(self, name):
        return len(self.headers.get(name.lower(), []))


def tls_context(stack, minimum=None, maximum=None, alpn=None, ciphers=None):
    ctx = ssl.create_default_context(cafile=stack.ca_file)
    with warnings.catch_warnings():   # TLS 1.0/1.1 are deprecated: that is the point
        warnings.simplefilter("ignore", DeprecationWarning)
        if minimum:
            ctx.minimum_version = minimum
        if maximum:
            ctx.maximum_version = maximum
    if ciphers:
        ctx.set_ciphers(ciphers)
    if alpn:
        ctx.set_alpn_protocols(alpn)
    return ctx


def tls_socket(stack, ctx=None, timeout=5):
    """A TLS connection to the stack's HTTPS port (raises ssl.SSLError if refused)."""
    ctx = ctx or tls_context(stack)
    sock = socket.create_connection((stack.addr, stack.https_port), timeout)
    try:
        return ctx.wrap_socket(sock, server_hostname=stack.host)
    except BaseException:
        sock.close()
        raise


class _HTTPS(http.client.HTTPSConnection):
    def __init__(self, stack, timeout):
        super().__init__(stack.host, stack.https_port, timeout=timeout, context=tls_context(stack))
        self._stack = stack

    def connect(self):
        self.sock = tls_socket(self._stack, self._context, self.timeout)


class _HTTP(http.client.HTTPConnection):
    def __init__(self, stack, timeout):
        super().__init__(stack.host, stack.http_port, timeout=timeout)
        self._addr = stack.addr

    def connect(self):
        self.sock = socket.create_connection((self._addr, self.port), self.timeout)


def request(stack, method, path, headers=None, body=None, https=True, timeout=10):
    """One request on a fresh connection; the response, unfollowed."""
    conn = (_HTTPS if https else _HTTP)(stack, timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        hdrs = {}
        for k, v in r.getheaders():
            hdrs.setdefault(k.lower(), []).append(v)
        return Response(r.status, hdrs, r.read(), f"HTTP/{r.version / 10:.1f}")
    finally:
        conn.close()


def get(stack, path, **kw):
    return request(stack, "GET", path, **kw)


def raw(stack, data, https=True, timeout=5):
    """Send bytes exactly as given; parse whatever comes back until the server
    closes (or the timeout). Returns a Response (status 0 if nothing came)."""
    if https:
        sock = tls_socket(stack, timeout=timeout)
    else:
        sock = socket.create_connection((stack.addr, stack.http_port), timeout)
    chunks = []
    try:
        sock.sendall(data)
        while True:
            try:
                chunk = sock.recv(65536)
            except (socket.timeout, ssl.SSLError, ConnectionResetError):
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        sock.close()
    return parse_response(b"".join(chunks))


def parse_response(data):
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    if not lines or not lines[0].startswith("HTTP/"):
        return Response(0, {}, data)
    version, status = lines[0].split(" ", 2)[:2]
    hdrs = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        hdrs.setdefault(k.strip().lower(), []).append(v.strip())
    return Response(int(status), hdrs, body, version)


def while_stopped(*batches):
    """Runs each batch of request callables at once (16 at a time), for the requests made while the
    sidecar is stopped; returns their results, batch by batch, in order. Where the stopped service's
    address does not refuse connections (compose: the container's address is gone), every answer
    waits for proxy_connect_timeout before the fallback gives it; one after another, the ~60
    requests of a test take minutes."""
    with ThreadPoolExecutor(16) as pool:
        return [list(pool.map(lambda call: call(), batch)) for batch in batches]


def wait_for_sidecar(stack, seconds=30, https=True):
    """After stack.start_app(): until the sidecar answers `/` again (its 302 has an empty body; the
    fallback's carries Nginx's small HTML page)."""
    _wait_for(stack, seconds, https, fallback=False)


def wait_for_fallback(stack, seconds=30, https=True):
    """After stack.stop_app(): until Nginx's fallback answers `/`. (Under compose Nginx reloads when
    the app's address goes: a kept connection to the old workers may fail at that moment.)"""
    _wait_for(stack, seconds, https, fallback=True)


def _wait_for(stack, seconds, https, fallback):
    deadline = time.monotonic() + seconds
    while True:
        r = get(stack, "/?while=waiting", https=https)
        assert r.status == 302, r.status
        if (b"<html>" in r.body) == fallback:
            return
        assert time.monotonic() < deadline, f"{'the fallback' if fallback else 'the sidecar'} did not answer within {seconds} s"
        time.sleep(0.5)
