"""The nginx layer's fixtures: the loopback stack as such (its files and processes); Debian's headless
Chromium trusting the stack's test CA (an NSS database under a temporary HOME: no certificate error
ignored, over which Chromium would cache nothing); pages of the tests' own on another origin."""
import contextlib
import functools
import http.server
import shutil
import subprocess
import threading

import pytest

from stack.chromium import chromium
from stack.stacks import free_ports


@pytest.fixture(scope="module")
def loopback(stack):
    if stack.kind != "loopback":
        pytest.skip("needs the loopback stack (its files and processes)")
    return stack


@pytest.fixture(scope="module")
def browser(stack, tmp_path_factory):
    tools = {name: shutil.which(name) for name in ("chromium", "chromedriver", "certutil")}
    if not all(tools.values()):
        pytest.skip(f"not installed: {[n for n, p in tools.items() if not p]} (tests/nginx/run.sh installs them)")
    home = tmp_path_factory.mktemp("browser-home")
    nssdb = home / ".pki" / "nssdb"
    nssdb.mkdir(parents=True)
    subprocess.run([tools["certutil"], "-d", f"sql:{nssdb}", "-N", "--empty-password"], check=True)
    subprocess.run([tools["certutil"], "-d", f"sql:{nssdb}", "-A", "-t", "CP,,", "-n", "fox-avatar test CA",
                    "-i", stack.ca_file], check=True)
    with chromium(tools["chromium"], tools["chromedriver"], home, f"--host-resolver-rules=MAP {stack.host} {stack.addr}",
                  capabilities={"goog:loggingPrefs": {"performance": "ALL"}}) as driver:
        yield driver


@contextlib.contextmanager
def serve_html(tmp_path_factory, name, body, style=""):
    """A page of the test's own, NAME.html with STYLE and BODY, on a free loopback port (plain HTTP:
    another origin than the stack's, as a site embedding avatars); yields its URL."""
    root = tmp_path_factory.mktemp(name)
    (root / f"{name}.html").write_text(f"<!doctype html>\n<html><head><title>{name}</title><style>{style}</style>"
                                       f"</head><body>\n{body}\n</body></html>\n")
    handler = functools.partial(type("Quiet", (http.server.SimpleHTTPRequestHandler,),
                                     {"log_message": lambda self, *args: None}), directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_ports(1)[0]), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/{name}.html"
    finally:
        server.shutdown()
        server.server_close()
