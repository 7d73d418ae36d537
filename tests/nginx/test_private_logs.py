"""Private logs (docs/privacy.md), on the loopback stack: requests with a key, e-mail hashes, a
Referer, a User-Agent and X-Forwarded-For from a client address of their own (127.0.0.23), with the
sidecar up and stopped; then every file the stack writes (Nginx's logs and output, the sidecar's) is
searched for each value. anonymous (the default) keeps none of them and still logs every request;
full keeps them all; off writes no access or fallback line. And http.conf's client-network map."""
import http.client
import shutil
import socket
import ssl
import subprocess
import tempfile
import urllib.parse

import pytest

import loopback
from stack.stacks import NGINX_DIR, LoopbackStack, free_ports

CLIENT = "127.0.0.23"                       # not 127.0.0.1: the upstream's address is in the logs
KEY = "fox.private.key@example.org"
MD5 = "8f14e45fceea167a5a36dedd4bea2543"
SHA256 = "c2f8a1d7e3b94f60a5d2e7c1b8f09a3d4e6c2b1a0f9e8d7c6b5a4f3e2d1c0b9a"
REFERER = "https://forge.example/profile/private-referer-page"
USER_AGENT = "PrivateAgent/7.7"
FORWARDED_FOR = "203.0.113.77"
UNKNOWN = "/private-unknown-path-4c6f67"   # a 404 path can carry anything
# Every value that must stay out of the logs, in each form a log could write it.
SECRETS = {
    "key": KEY, "key URL-encoded": urllib.parse.quote(KEY, safe=""), "key's local part": "fox.private.key",
    "MD5": MD5, "MD5 upper case": MD5.upper(), "SHA-256": SHA256, "SHA-256 upper case": SHA256.upper(),
    "Referer": REFERER, "Referer's page": "private-referer-page", "User-Agent": USER_AGENT,
    "X-Forwarded-For": FORWARDED_FOR, "unknown path": UNKNOWN, "client address": CLIENT,
}
# What anonymous may not keep but full must: the values full writes as sent (the rest are other spellings).
FULL_KEEPS = ["key URL-encoded", "MD5", "MD5 upper case", "SHA-256", "Referer", "User-Agent", "unknown path",
              "client address"]

REQUESTS = [(f"/?u={urllib.parse.quote(KEY, safe='')}&s=80", True), (f"/?s=64&u={KEY}", True), (f"/?u={MD5}", True),
            (f"/avatar/{MD5}", True), (f"/avatar/{MD5.upper()}.png?s=40", True), (f"/avatar/{SHA256}.jpg?d=identicon", True),
            (f"/avatar/{SHA256}?u={MD5}", True), (UNKNOWN + f"?u={MD5}", True),
            (f"/?u={MD5}", False)]   # (path, https); the last: port 80's redirect


def send(stack, path, https=True):
    """One request from CLIENT with the Referer, User-Agent and X-Forwarded-For; its status."""
    sock = socket.socket()
    sock.bind((CLIENT, 0))
    sock.settimeout(10)
    sock.connect((stack.addr, stack.https_port if https else stack.http_port))
    if https:
        sock = ssl.create_default_context(cafile=stack.ca_file).wrap_socket(sock, server_hostname=stack.host)
    with sock:
        sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {stack.host}\r\nReferer: {REFERER}\r\n"
                      f"User-Agent: {USER_AGENT}\r\nX-Forwarded-For: {FORWARDED_FOR}\r\n"
                      "Connection: close\r\n\r\n").encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return int(data.split(b" ", 2)[1])


def run_requests(stack):
    """The requests with the sidecar up, then the avatar ones with it stopped (the fallback)."""
    for path, https in REQUESTS:
        assert send(stack, path, https) in (302, 308, 404), path
    stack.stop_app()
    try:
        for path, https in REQUESTS[:7]:
            assert send(stack, path, https) == 503, path   # keyed: the fallback's 503
    finally:
        stack.start_app()
    stack.flush_logs()   # the access log is buffered
    logs = {f.name: f.read_text(errors="replace") for f in sorted(stack.logs.iterdir()) if f.is_file()}
    assert "app.log" in logs and "listening on" in logs["app.log"], sorted(logs)
    return logs


def found(logs, name):
    return [f"{file}: {line}" for file, text in logs.items() for line in text.splitlines()
            if SECRETS[name] in line]


@pytest.fixture(scope="module")
def logs_of():
    """(stack, {file name: text}) of a stack run in a mode (anonymous: the default, not asked for)."""
    runs = {}

    def run(mode):
        if mode not in runs:
            stack = LoopbackStack(access_log_mode=None if mode == "anonymous" else mode)
            runs[mode] = (stack, run_requests(stack))
        return runs[mode]
    yield run
    for stack, _ in runs.values():
        stack.close()


def test_default_anonymous_logs_hold_no_key_hash_referer_agent_or_client_address(logs_of):
    stack, logs = logs_of("anonymous")
    leaks = {name: found(logs, name)[:2] for name in SECRETS if found(logs, name)}
    assert not leaks, f"the default logs personal data: {leaks}"


def test_off_writes_no_access_or_fallback_line_and_no_personal_data(logs_of):
    stack, logs = logs_of("off")
    leaks = {name: found(logs, name)[:2] for name in SECRETS if found(logs, name)}
    assert not leaks, f"off logs personal data: {leaks}"
    assert logs.get("access.log", "") == "" and logs.get("fallback.log", "") == "" and logs["error.log"] == "", logs


def test_full_logs_hold_them_all(logs_of):
    stack, logs = logs_of("full")
    missing = [name for name in FULL_KEEPS if not found(logs, name)]
    assert not missing, f"full mode should log {missing}:\n" + "\n".join(logs.values())
    assert "connect() failed" in logs["error.log"] and f"client: {CLIENT}" in logs["error.log"]


def test_anonymous_log_keeps_the_network_route_status_and_fallback_of_every_request(logs_of):
    stack, logs = logs_of("anonymous")
    lines = logs["access.log"].splitlines()
    assert len(lines) == len(REQUESTS) + 7, lines
    assert all(line.startswith("127.0.0.0 - - [") and ' "-" "-" rt=' in line for line in lines), lines
    routes = [line.split('"')[1] for line in lines]
    assert routes == (["GET / HTTP/1.1"] * 3 + ["GET /avatar/ HTTP/1.1"] * 4 + ["GET - HTTP/1.1", "GET / HTTP/1.1"]
                      + ["GET / HTTP/1.1"] * 3 + ["GET /avatar/ HTTP/1.1"] * 4), routes
    assert [line.split('"')[2].split()[0] for line in lines[:9]] == ["302"] * 7 + ["404", "308"]
    assert sum("fallback=1" in line for line in lines) == 7
    assert f'ua="127.0.0.1:{stack.app_port}" us="502"' in lines[-1]
    fallback = logs["fallback.log"].splitlines()
    assert len(fallback) == 7 and all("fallback=1" in line and line.startswith("127.0.0.0 ") for line in fallback)
    assert logs["error.log"] == "", "the error log takes only alerts: " + logs["error.log"]


NETWORKS = {"203.0.113.77": "203.0.113.0", "10.1.2.3": "10.1.2.0", "::ffff:198.51.100.23": "198.51.100.0",
            "2001:db8:1234:5678:9abc:def0:1:2": "2001:db8:1234::", "2001:db8:1234::1": "2001:db8:1234::",
            "2001:db8::42": "2001:db8::", "2001::5": "2001::", "::1": "::", "fe80::1ff:fe23:4567:890a": "fe80::",
            "unix:": "-"}


def test_client_addresses_are_truncated_to_their_network():
    """The map of $avatar_log_client, fed an address in a query argument instead of $remote_addr."""
    nginx = loopback.find_nginx()
    if not nginx:
        pytest.skip("nginx is not installed")
    text = (NGINX_DIR / "fox-avatar" / "http.conf").read_text()
    start = text.index("map $remote_addr $avatar_log_client {")
    block = text[start:text.index("\n}", start) + 2].replace("$remote_addr", "$arg_a")
    (port,) = free_ports(1)
    tmp = tempfile.mkdtemp(prefix="fox-avatar-map-")
    conf = loopback.nginx_prefix(tmp, {"map.conf": block + f"""
server {{
    listen 127.0.0.1:{port};
    access_log off;
    location / {{ return 200 "$avatar_log_client"; }}
}}
"""})
    proc = subprocess.Popen([nginx, "-p", tmp, "-c", str(conf), "-e", f"{tmp}/logs/startup-error.log"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        loopback.wait_for_port(port, proc, "nginx", f"{tmp}/logs/startup-error.log")
        got = {}
        for address in NETWORKS:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/?a=" + urllib.parse.quote(address, safe=":"))   # $arg_a is not decoded
            got[address] = c.getresponse().read().decode()
        assert got == NETWORKS
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
