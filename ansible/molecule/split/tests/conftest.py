"""The split scenario's hosts, as the verifiers (tests/converged, tests/rolling) see them.

molecule.yml sets the verifier's rootdir here, so this file serves every stage directory. The
helpers that every scenario shares are ../../shared/foxmol.py.

  inventory_hosts()   the proxy and the app hosts (in inventory order) with their settings
  proxy, apps, app_address, network, site, proxy_ca   fixtures on top of it
  pool(proxy)         the proxy's upstream pool: {file name: its line}
  report(line)        a line for the end of the verifier's output (timings and counts)
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared"))

import foxmol  # noqa: E402  (the path above first)

POOL_DIR = "/etc/nginx/fox-avatar-pool"
_REPORT: list[str] = []


def report(line: str) -> None:
    """A line printed at the end of the verifier's output (pytest's terminal summary)."""
    _REPORT.append(line)


def pytest_terminal_summary(terminalreporter):
    if _REPORT:
        terminalreporter.section("split scenario: what was measured")
        for line in _REPORT:
            terminalreporter.write_line(line)


_INVENTORY: list[dict] = []


def inventory_hosts() -> dict:
    """{"proxies": [...], "apps": [...] (inventory order), "hostvars": {...}} of the scenario's
    inventory, as ansible-inventory reads it (molecule.yml's groups and host_vars)."""
    if not _INVENTORY:
        out = subprocess.run(["ansible-inventory", "-i", foxmol.inventory(), "--list"],
                             capture_output=True, text=True, check=True).stdout
        inv = json.loads(out)
        _INVENTORY.append({"proxies": inv["avatar_proxies"]["hosts"],
                           "apps": inv["avatar_apps"]["hosts"],
                           "hostvars": inv["_meta"]["hostvars"]})
    return _INVENTORY[0]


@pytest.fixture(scope="session")
def proxy() -> str:
    proxies = inventory_hosts()["proxies"]
    assert len(proxies) == 1, f"one proxy expected, the inventory has {proxies}"
    return proxies[0]


@pytest.fixture(scope="session")
def apps() -> list[str]:
    """The app hosts in inventory order (the order site.yml upgrades them in)."""
    return inventory_hosts()["apps"]


@pytest.fixture(scope="session")
def network(proxy) -> str:
    """The scenario's own docker network."""
    return foxmol.host_network(proxy)


@pytest.fixture(scope="session")
def app_address(apps, network) -> dict[str, str]:
    """Each app host's fox_avatar_app_address, which must be its address on the network."""
    hostvars = inventory_hosts()["hostvars"]
    addresses = {app: hostvars[app]["fox_avatar_app_address"] for app in apps}
    actual = {app: foxmol.host_ip(app, network) for app in apps}
    assert addresses == actual, "fox_avatar_app_address is not each host's address on the network"
    return addresses


@pytest.fixture(scope="session")
def site(proxy) -> str:
    """The site's name (fox_avatar_tls_domains' first, molecule.yml)."""
    return inventory_hosts()["hostvars"][proxy]["fox_avatar_tls_domains"][0]


@pytest.fixture(scope="session")
def proxy_addr(proxy, network) -> str:
    return foxmol.host_ip(proxy, network)


@pytest.fixture(scope="session")
def proxy_ca(proxy) -> Path:
    """The proxy's self-signed certificate, the CA the clients verify against."""
    path = foxmol.workdir("certs") / "proxy-ca.pem"
    path.write_text(foxmol.host_exec(proxy, "cat", "/etc/ssl/fox-avatar/fullchain.pem") + "\n")
    return path


def pool(proxy: str) -> dict[str, str]:
    """The proxy's upstream pool: {file name: its one line}."""
    names = foxmol.host_exec(proxy, "ls", "-1", POOL_DIR).split()
    return {name: foxmol.host_exec(proxy, "cat", f"{POOL_DIR}/{name}") for name in names}
