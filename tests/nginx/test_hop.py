"""What crosses the hop between Nginx and the sidecar (issue 36), on the loopback stack: the request the
sidecar gets (the path, the query, Accept, nothing of the browser's else) and the buffered access log."""
import socket
import threading

from settle import until
from stack.client import get, tls_socket


def requests_the_sidecar_gets(stack, paths, headers):
    """The request heads the sidecar's port receives for GETs of paths with headers through Nginx:
    the sidecar stopped, a listener of the test's on its port that records each head and answers 302."""
    heads = []
    stack.stop_app()
    try:
        with socket.create_server(("127.0.0.1", stack.app_port)) as server:
            server.settimeout(5)

            def answer():
                conn, _ = server.accept()
                with conn:
                    conn.settimeout(5)
                    data = b""
                    while b"\r\n\r\n" not in data:
                        data += conn.recv(4096)
                    heads.append(data.split(b"\r\n\r\n")[0].decode("latin-1"))
                    conn.sendall(b"HTTP/1.1 302 Found\r\nLocation: /a/x.png\r\nContent-Length: 0\r\n"
                                 b"Connection: close\r\n\r\n")

            for path in paths:
                t = threading.Thread(target=answer)
                t.start()
                assert get(stack, path, headers=headers).status == 302
                t.join(10)
    finally:
        stack.start_app()
    return heads


def test_the_sidecar_gets_the_path_the_query_and_accept_and_nothing_else(loopback):
    """Issue 36: the hop carries what the sidecar reads (the method, the path, the query, Accept) and
    HTTP/1.1's Host; none of the browser's other headers, no X-Real-IP or X-Forwarded-*."""
    h = "0bc83cb571cd1c50ba6f3e8a78ef1346"
    browser = {"Accept": "image/avif,image/webp,*/*", "Referer": "https://blog.example/post",
               "User-Agent": "Mozilla/5.0 hop-check", "Cookie": "session=1", "Accept-Language": "fr",
               "X-Forwarded-For": "198.51.100.7", "Cache-Control": "no-cache"}
    heads = requests_the_sidecar_gets(loopback, ["/?s=64&u=k&x=hop-check", f"/avatar/{h}.png?s=80"], browser)
    assert [head.splitlines()[0] for head in heads] == [
        "GET /?s=64&u=k&x=hop-check HTTP/1.1", f"GET /avatar/{h}?s=80 HTTP/1.1"], heads
    for head in heads:
        fields = dict(line.split(": ", 1) for line in head.splitlines()[1:])
        assert fields == {"Host": "avatar_app", "Accept": browser["Accept"]}, head
    # without an Accept, none is sent (the sidecar's default format, as for a browser that sends none)
    (head,) = requests_the_sidecar_gets(loopback, ["/?x=hop-check-2"], {"User-Agent": "hop-check"})
    assert head.splitlines()[1:] == ["Host: avatar_app"], head


def test_the_access_log_is_buffered_and_written_out_within_a_second_or_two(loopback):
    """Issue 36: one write per 4 KB of lines instead of one per request; a line still reaches the file
    by the flush timer (1 s) with no other request behind it. The fallback log is not buffered.
    Two requests on one keep-alive connection: Nginx logs the first (its log phase) before it reads the
    second, so once the second is answered an unbuffered log would hold the first's line; a buffered one
    does not, until the flush timer writes it out (polled, with a deadline)."""
    site = (loopback.conf_dir / "conf.d" / "fox-avatar.conf").read_text()
    buffered = [line.strip() for line in site.splitlines() if "buffer=" in line]
    assert buffered == [f"access_log {loopback.logs / 'access.log'} avatar buffer=4k flush=1s;"], buffered
    loopback.flush_logs()   # an empty buffer: the next line starts the flush timer
    path = loopback.logs / "access.log"
    with tls_socket(loopback) as sock:
        for query in ("x=buffer-check", "x=buffer-check-2"):
            sock.sendall(f"GET /?{query} HTTP/1.1\r\nHost: {loopback.host}\r\n\r\n".encode())
            assert read_response(sock).startswith(b"HTTP/1.1 302 "), query
        assert "x=buffer-check " not in path.read_text(), "written at once: not buffered"
    until(lambda: "x=buffer-check " in path.read_text(), "the buffered line written out")


def read_response(sock):
    """One response's head and body (Content-Length) from a keep-alive connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        assert chunk, f"closed before a whole head: {data!r}"
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = int(next((line.split(b":", 1)[1] for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), b"0"))
    while len(body) < length:
        body += sock.recv(4096)
    assert len(body) == length, "more than one response read"
    return head
