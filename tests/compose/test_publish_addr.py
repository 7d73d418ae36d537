"""AVATAR_PUBLISH_ADDR: where the ports are published (docs/compose.md, "Hardening and ports"). Nginx is
recreated with each value, the run's own put back at the end:
  empty   every interface, both families: https://127.0.0.1:PORT/ and https://[::1]:PORT/ answer
  ::      every IPv6 interface only (Docker's own meaning; measured on its 20.10): [::1] answers,
          127.0.0.1 is refused
  0.0.0.0 every IPv4 interface only: [::1] is refused (what docs/compose.md once called "every interface")
The certificate is the run's generated one (AVATAR_TLS_NAMES' default holds 127.0.0.1 and ::1).
"""
import os
import socket

import pytest
import requests

from compose_helpers import compose, containers, inspect

NEEDED = ("COMPOSE_PROJECT_NAME", "COMPOSE_FILE", "AVATAR_HTTPS_PORT", "AVATAR_CA")
pytestmark = pytest.mark.skipif(
    any(not os.environ.get(v) for v in NEEDED),
    reason="needs a running compose project: run tests/compose/run.sh (make test-compose)")


def answer(host):
    """The status of GET / at https://HOST:AVATAR_HTTPS_PORT/, or None when the connection is refused."""
    try:
        return requests.get(f"https://{host}:{os.environ['AVATAR_HTTPS_PORT']}/", verify=os.environ["AVATAR_CA"],
                            allow_redirects=False, timeout=5).status_code
    except requests.ConnectionError:
        return None


def published():
    """{(host address, port/protocol)} Docker publishes Nginx on."""
    (nginx,) = containers("nginx")
    ports = inspect(nginx)["NetworkSettings"]["Ports"]
    return {(b["HostIp"], p) for p, bindings in ports.items() for b in bindings or []}


@pytest.fixture(scope="module")
def recreate():
    def with_addr(value):
        compose("up", "-d", "--wait", "--no-build", "--force-recreate", "--no-deps", "nginx",
                env=dict(os.environ, AVATAR_PUBLISH_ADDR=value))
    try:
        yield with_addr
    finally:
        compose("up", "-d", "--wait", "--no-build", "--force-recreate", "--no-deps", "nginx")


def test_an_empty_address_publishes_on_every_interface_ipv4_and_ipv6(recreate):
    if not socket.has_ipv6:
        pytest.fail("this machine has no IPv6: the test needs ::1")
    recreate("")
    assert {addr for addr, _ in published()} == {"0.0.0.0", "::"}, published()
    assert answer("127.0.0.1") == 302
    assert answer("[::1]") == 302


def test_double_colon_publishes_on_ipv6_only(recreate):
    recreate("::")
    assert {addr for addr, _ in published()} == {"::"}, published()
    assert answer("[::1]") == 302
    assert answer("127.0.0.1") is None


def test_0_0_0_0_publishes_on_ipv4_only(recreate):
    recreate("0.0.0.0")
    assert {addr for addr, _ in published()} == {"0.0.0.0"}, published()
    assert answer("127.0.0.1") == 302
    assert answer("[::1]") is None
