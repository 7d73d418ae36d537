"""HTTP(S) clients for the stack tests: one request per fresh connection, nothing followed or
normalised, to the stack's address in the name of its host (SNI, Host, the certificate check); and
raw bytes for malformed requests."""
import http.client
import socket
import ssl
import time
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


def tls_context(stack, alpn=None):
    ctx = ssl.create_default_context(cafile=stack.ca_file)
    if alpn:
        ctx.set_alpn_protocols(alpn)
    return ctx


def tls_socket(stack, ctx=None, timeout=5):
    """A TLS connection to the stack's HTTPS port."""
    sock = socket.create_connection((stack.addr, stack.https_port), timeout)
    try:
        return (ctx or tls_context(stack)).wrap_socket(sock, server_hostname=stack.host)
    except BaseException:
        sock.close()
        raise


class _Connection(http.client.HTTPConnection):
    def __init__(self, stack, https, timeout):
        self.default_port = 443 if https else 80     # Host names no default port
        super().__init__(stack.host, stack.https_port if https else stack.http_port, timeout=timeout)
        self._stack, self._https = stack, https

    def connect(self):
        self.sock = (tls_socket(self._stack, timeout=self.timeout) if self._https
                     else socket.create_connection((self._stack.addr, self.port), self.timeout))


def request(stack, method, path, headers=None, body=None, https=True, timeout=10):
    conn = _Connection(stack, https, timeout)
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
    """Send bytes exactly as given; parse whatever comes back until the server closes or the
    timeout (status 0 if nothing came)."""
    sock = tls_socket(stack, timeout=timeout) if https else socket.create_connection(
        (stack.addr, stack.http_port), timeout)
    chunks = []
    with sock:
        sock.sendall(data)
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except (socket.timeout, ssl.SSLError, ConnectionResetError):
            pass
    return parse_response(b"".join(chunks))


def parse_response(data):
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    if not lines[0].startswith("HTTP/"):
        return Response(0, {}, data)
    hdrs = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        hdrs.setdefault(k.strip().lower(), []).append(v.strip())
    return Response(int(lines[0].split(" ")[1]), hdrs, body, lines[0].split(" ")[0])


def while_stopped(*batches):
    """Each batch of request callables run 16 at a time, for the requests made while the sidecar is
    stopped (under compose each waits for proxy_connect_timeout: one after another they would take
    minutes); their results, batch by batch, in order."""
    with ThreadPoolExecutor(16) as pool:
        return [list(pool.map(lambda call: call(), batch)) for batch in batches]


def wait_for_sidecar(stack, seconds=30, https=True):
    """After stack.start_app(): until the sidecar answers `/` again (its 302 has an empty body; the
    fallback's carries Nginx's small HTML page)."""
    _wait_for(stack, seconds, https, fallback=False)


def wait_for_fallback(stack, seconds=30, https=True):
    """After stack.stop_app(): until Nginx's fallback answers `/` (under compose Nginx reloads when
    the app's address goes: a kept connection to the old workers may fail at that moment)."""
    _wait_for(stack, seconds, https, fallback=True)


def _wait_for(stack, seconds, https, fallback):
    deadline = time.monotonic() + seconds
    while True:
        r = get(stack, "/?while=waiting", https=https)
        assert r.status == 302, r.status
        if (b"<html>" in r.body) == fallback:
            return
        assert time.monotonic() < deadline, f"{'the fallback' if fallback else 'the sidecar'} not answering after {seconds} s"
        time.sleep(0.5)
