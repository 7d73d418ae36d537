"""Private logs under compose (docs/privacy.md): a client container on the project's network (its
address known: `hostname -I` in it) sends requests with known keys, e-mail hashes, a Referer, a
User-Agent and X-Forwarded-For to Nginx, with the app up and stopped (the fallback, the error log);
then `docker compose logs` of both services is searched for each value. Nginx is recreated for each
AVATAR_ACCESS_LOG: unset (the default, anonymous: none found, the client's /24 and the routes are
there), full (all there), off (no access line). And the container logs' size cap from the settings.

tests/compose/run.sh runs the rest of the suite with AVATAR_ACCESS_LOG=full (those tests find their
requests by a probe in the query); these tests set or unset it themselves and put it back.
"""
import os
import re
import subprocess
import urllib.parse

import pytest

from settle import settled
from stack.private_values import (FORWARDED_FOR, FULL_KEEPS, KEY, MD5, REFERER, SECRETS, SHA256, UNKNOWN,
                                   USER_AGENT)
from compose_helpers import compose, containers, inspect, logs

NEEDED = ("COMPOSE_PROJECT_NAME", "COMPOSE_FILE", "AVATAR_HTTPS_PORT", "AVATAR_TRIXIE_CLIENT")
pytestmark = pytest.mark.skipif(
    any(not os.environ.get(v) for v in NEEDED),
    reason="needs a running compose project and the client image: run tests/compose/run.sh (make test-compose)")


# Inside the project's network: Nginx's own ports (nginx/Dockerfile, HTTPS_PORT and HTTP_PORT).
AVATAR_PATHS = [f"/?u={urllib.parse.quote(KEY, safe='')}&s=80", f"/?s=64&u={KEY}", f"/?u={MD5}",
                f"/avatar/{MD5}", f"/avatar/{MD5.upper()}.png?s=40", f"/avatar/{SHA256}.jpg?d=identicon",
                f"/avatar/{SHA256}?u={MD5}"]
UP_URLS = ([f"https://nginx:8443{p}" for p in AVATAR_PATHS]
           + [f"https://nginx:8443{UNKNOWN}?u={MD5}", f"http://nginx:8080/?u={MD5}"])
DOWN_URLS = [f"https://nginx:8443{p}" for p in AVATAR_PATHS]


def network():
    (nginx,) = containers("nginx")
    (name,) = inspect(nginx)["NetworkSettings"]["Networks"]
    return name


def client(urls):
    """Runs the URLs from a fresh client container on the project's network: (its address, statuses)."""
    script = ('hostname -I; for u in "$@"; do curl -sk -o /dev/null -w "%{http_code}\\n" '
              '-H "Referer: $REFERER" -A "$AGENT" -H "X-Forwarded-For: $XFF" "$u"; done')
    done = subprocess.run(["docker", "run", "--rm", "--network", network(), "-e", f"REFERER={REFERER}",
                           "-e", f"AGENT={USER_AGENT}", "-e", f"XFF={FORWARDED_FOR}",
                           os.environ["AVATAR_TRIXIE_CLIENT"], "sh", "-c", script, "sh", *urls],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    address, *statuses = done.stdout.split()
    return address, statuses


def settings_env(mode, **more):
    env = {k: v for k, v in os.environ.items() if k != "AVATAR_ACCESS_LOG"}
    if mode is not None:
        env["AVATAR_ACCESS_LOG"] = mode
    env.update(more)
    return env


def both_logs():
    return {"nginx": logs("nginx"), "app": logs("app")}


def found(all_logs, value, address=False):
    """The lines holding value; an address as a whole, outside the upstream's field (ua="..."): a
    client container may get an address the app had before it restarted."""
    pattern = (r"(?<![\d.])" + re.escape(value) + r"(?![\d])") if address else re.escape(value)
    return [f"{service}: {line}" for service, text in all_logs.items() for line in text.splitlines()
            if re.search(pattern, re.sub(r'ua="[^"]*"', "", line) if address else line)]


def run_mode(mode):
    """Nginx recreated with AVATAR_ACCESS_LOG=mode (None: unset), the requests with the app up and
    stopped (two client containers: two addresses); then ((their addresses), the statuses, both
    services' logs)."""
    env = settings_env(mode)
    compose("up", "-d", "--wait", "--no-build", "--force-recreate", "--no-deps", "nginx", env=env)
    try:
        address, statuses = client(UP_URLS)
        compose("stop", "app", env=env)
        try:
            down_address, down = client(DOWN_URLS)
        finally:
            compose("up", "-d", "--wait", "--no-recreate", "app", env=env)
        # Nginx buffers its access log (flush=1s): a reopen (SIGUSR1 to Nginx, PID 1) writes it out;
        # then both services' logs are read until they stop changing (tools/settle.py)
        all_logs = settled(both_logs, flush=lambda: compose("kill", "-s", "SIGUSR1", "nginx", env=env),
                           what="both services' logs")
        return (address, down_address), statuses + down, all_logs
    finally:
        # the run's own setting back, and Nginx resolving the restarted app's address
        compose("up", "-d", "--wait", "--no-build", "--force-recreate", "--no-deps", "nginx")


@pytest.fixture(scope="module")
def default_run():
    return run_mode(None)


@pytest.fixture(scope="module")
def full_run():
    return run_mode("full")


@pytest.fixture(scope="module")
def off_run():
    return run_mode("off")


def assert_nothing_personal(addresses, all_logs, mode):
    leaks = {name: found(all_logs, value)[:2] for name, value in SECRETS.items() if found(all_logs, value)}
    for address in addresses:
        if found(all_logs, address, address=True):
            leaks[f"client address {address}"] = found(all_logs, address, address=True)[:2]
    assert not leaks, f"{mode}: the container logs hold personal data: {leaks}"


def test_default_container_logs_hold_no_key_hash_referer_agent_or_client_address(default_run):
    addresses, statuses, all_logs = default_run
    assert statuses == ["302"] * 7 + ["404", "308"] + ["302"] * 7, statuses
    assert_nothing_personal(addresses, all_logs, "AVATAR_ACCESS_LOG unset")


def test_default_access_log_keeps_the_clients_network_route_status_and_fallback(default_run):
    (address, down_address), statuses, all_logs = default_run
    network24 = address.rsplit(".", 1)[0] + ".0"
    assert down_address.rsplit(".", 1)[0] + ".0" == network24
    lines = [line for line in all_logs["nginx"].splitlines() if line.startswith(f"{network24} - - [")]
    routes = [line.split('"')[1].rsplit(" ", 1)[0] for line in lines]   # without the protocol
    assert routes.count("GET /") >= 7 and routes.count("GET /avatar/") >= 8, lines
    assert "GET -" in routes, "the unknown path, as -"
    assert sum("fallback=1" in line and ' 302 ' in line for line in lines) >= 7, lines
    assert all(' "-" "-" rt=' in line for line in lines), lines


def test_full_container_logs_hold_them_all(full_run):
    (address, down_address), statuses, all_logs = full_run
    assert statuses == ["302"] * 7 + ["404", "308"] + ["302"] * 7, statuses
    missing = [name for name in FULL_KEEPS if not found({"nginx": all_logs["nginx"]}, SECRETS[name])]
    assert not missing, f"AVATAR_ACCESS_LOG=full should log {missing}"
    assert found(all_logs, f"{address} - - ["), "full logs the client's address in the access log"
    assert found(all_logs, f"client: {down_address},"), \
        "full logs the client's address in the error log (the sidecar down)"
    for name in SECRETS:   # the sidecar logs none of it, in any mode
        assert not found({"app": all_logs["app"]}, SECRETS[name]), name


def test_off_container_logs_hold_no_access_line(off_run):
    addresses, statuses, all_logs = off_run
    assert statuses == ["302"] * 7 + ["404", "308"] + ["302"] * 7, statuses
    access = [line for line in all_logs["nginx"].splitlines() if re.match(r"\S+ - \S+ \[", line)]
    assert access == [], access
    assert_nothing_personal(addresses, all_logs, "AVATAR_ACCESS_LOG=off")


def test_container_logs_are_capped_by_the_log_size_settings():
    for service in ("app", "nginx"):
        for container in containers(service):
            assert inspect(container)["HostConfig"]["LogConfig"] == \
                {"Type": "local", "Config": {"max-size": "10m", "max-file": "3"}}, service
    try:
        compose("up", "-d", "--wait", "--no-build", "--force-recreate", "--no-deps", "nginx",
                env=dict(os.environ, AVATAR_LOG_MAX_SIZE="2m", AVATAR_LOG_MAX_FILE="5"))
        (nginx,) = containers("nginx")
        assert inspect(nginx)["HostConfig"]["LogConfig"] == \
            {"Type": "local", "Config": {"max-size": "2m", "max-file": "5"}}
    finally:
        compose("up", "-d", "--wait", "--no-build", "--force-recreate", "--no-deps", "nginx")
