"""The copies that remain of the project's ports (issue 37: "one owner for each port, path and
limit"), and the tests that they still agree with their owner, ports.env. (The other facts' owners:
test_selfsigned_owner.py, test_gravatar_owner.py, test_cross_role_fallbacks.py.)

The ports are ports.env's (tools/ports.py reads it; docs/architecture.md, "One owner for each
fact"). A part that can read a file reads it; the sidecar's Java takes it from Ports.java, generated
from it. What cannot read a file (a Dockerfile's EXPOSE, compose's defaults, Prometheus's sample
configurations) still writes the number: PORT_COPIES lists each such place as its whole line
(stripped), <NAME> standing for ports.env's value, once per line that holds it. The tests fail
- when a listed line is no longer in its file as often as listed (it drifted, also to another
  number: the TCP and the UDP line of one port are two lines; or it is gone: drop it);
- when a product file writes one of ports.env's values on a line not listed (read it from ports.env
  instead, or list it here with the reason it cannot);
- when a file that reads ports.env (or holds a listed copy) writes any number where a port goes
  (`-port 3904`, `host:3904`, `EXPOSE`, `target:`, `..._PORT:-3904`...) on a line not listed: a
  reader gone back to a literal, of any value (NOT_PORTS lists the numbers that are not ports.env's,
  file by file).
The register only shrinks.
"""
import re
import sys
from collections import Counter

import pytest

from product_files import ROOT, holds, is_comment, product_files

sys.path.insert(0, str(ROOT / "tools"))
import ports  # noqa: E402  (tools/ports.py, the owner's reader)

PORTS_OWNER = "ports.env"
PORTS_GENERATED = ["app/src/main/java/dev/foxavatar/Ports.java"]
# A test's data, not a copy: promtool's unit test writes instances as Prometheus would label them.
NOT_COPIES = ["monitoring/prometheus/fox-avatar.rules.test.yml"]

# file: the lines in it that still write a port (whole, stripped; <NAME> for ports.env's NAME).
PORT_COPIES = {
    # The sample of compose's settings, as a user writes them (tests/compose: it equals compose's defaults).
    '.env.example': [
        'AVATAR_HTTPS_PORT=<NGINX_CONTAINER_HTTPS_PORT>',
        'AVATAR_HTTP_PORT=<NGINX_CONTAINER_HTTP_PORT>',
        'AVATAR_APP_PORT=<APP_PORT>',
        'AVATAR_PROMETHEUS_PORT=<PROMETHEUS_PORT>',
    ],
    # EXPOSE takes numbers only (its health check and the training run source the shipped ports.env).
    'app/Dockerfile': [
        'EXPOSE <APP_PORT> <APP_METRICS_PORT>',
    ],
    # Compose reads no file for its defaults and targets (only .env, the user's); the usage header's URLs,
    # as a user opens them.
    'docker-compose.yml': [
        '#   docker compose up --build -d --wait      then open https://localhost:<NGINX_CONTAINER_HTTPS_PORT>/',
        '#                                            http://127.0.0.1:<PROMETHEUS_PORT>/ (docs/monitoring.md, "With compose")',
        'https-port: &https-port ${AVATAR_HTTPS_PORT:-<NGINX_CONTAINER_HTTPS_PORT>}',
        'http-port: &http-port ${AVATAR_HTTP_PORT:-<NGINX_CONTAINER_HTTP_PORT>}',
        'app-port: &app-port ${AVATAR_APP_PORT:-<APP_PORT>}',
        'prometheus-port: &prometheus-port ${AVATAR_PROMETHEUS_PORT:-<PROMETHEUS_PORT>}',
        '- {target: <NGINX_CONTAINER_HTTPS_PORT>, published: *https-port, host_ip: *publish-addr, protocol: tcp}',
        '- {target: <NGINX_CONTAINER_HTTPS_PORT>, published: *https-port, host_ip: *publish-addr, protocol: udp}',
        '- {target: <NGINX_CONTAINER_HTTP_PORT>, published: *http-port, host_ip: *publish-addr, protocol: tcp}',
        '- {target: <PROMETHEUS_PORT>, published: *prometheus-port, host_ip: *prometheus-addr, protocol: tcp}',
    ],
    # As docker-compose.yml: a default and targets, which a stack file cannot read from a file.
    'docker-stack.yml': [
        'app-port: &app-port ${AVATAR_APP_PORT:-<APP_PORT>}',
        '- {target: <NGINX_CONTAINER_HTTPS_PORT>, published: *https-port, protocol: tcp, mode: host}',
        '- {target: <NGINX_CONTAINER_HTTPS_PORT>, published: *https-port, protocol: udp, mode: host}   # HTTP/3',
        '- {target: <NGINX_CONTAINER_HTTP_PORT>, published: *http-port, protocol: tcp, mode: host}',
    ],
    # The four monitoring images: EXPOSE takes numbers only (ENTRYPOINT and HEALTHCHECK source ports.env).
    'monitoring/compose/blackbox.Dockerfile': [
        'EXPOSE <BLACKBOX_PORT>',
    ],
    'monitoring/compose/mtail.Dockerfile': [
        'EXPOSE <MTAIL_PORT> <NGINX_FALLBACK_FEED_PORT>/udp',
    ],
    'monitoring/compose/nginx-exporter.Dockerfile': [
        'EXPOSE <NGINX_EXPORTER_PORT>',
    ],
    'monitoring/compose/prometheus.Dockerfile': [
        'EXPOSE <PROMETHEUS_PORT>',
    ],
    # Prometheus reads its configuration as it is (no environment, no include).
    'monitoring/compose/prometheus.yml': [
        'port: <APP_METRICS_PORT>',
        '- targets: ["nginx:<NGINX_EXPORTER_PORT>"]',
        '- targets: ["nginx:<MTAIL_PORT>"]',
        '- targets: ["https://nginx:<NGINX_CONTAINER_HTTPS_PORT>/"]',
        '- targets: ["https://nginx:<NGINX_CONTAINER_HTTPS_PORT>/"]',
        '- {target_label: __address__, replacement: "blackbox:<BLACKBOX_PORT>"}',
    ],
    # A sample to copy into a Prometheus of one's own, which reads it as it is (no variables):
    'monitoring/prometheus/prometheus.yml': [
        '- targets: ["127.0.0.1:<APP_METRICS_PORT>"]',
        '- targets: ["127.0.0.1:<NGINX_EXPORTER_PORT>"]',
        '- targets: ["127.0.0.1:<MTAIL_PORT>"]',
        '- {target_label: __address__, replacement: "127.0.0.1:<BLACKBOX_PORT>"}',
    ],
    # EXPOSE takes numbers only (30-site.sh and the health check source the shipped ports.env).
    'nginx/Dockerfile': [
        'EXPOSE <NGINX_CONTAINER_HTTP_PORT> <NGINX_CONTAINER_HTTPS_PORT> <NGINX_CONTAINER_HTTPS_PORT>/udp',
    ],
    # A Jinja default in the template Ansible's template module renders too (it reads no file); every
    # deployment passes avatar_upstream_pool or avatar_upstream_servers, only bare renders (tests) use it.
    'nginx/fox-avatar.conf.j2': [
        "{% for server in avatar_upstream_servers | default(['127.0.0.1:<APP_PORT>']) %}",
    ],
}

# file: {number: why}: numbers a file that reads ports.env writes where a port goes, and which are not
# ports.env's. Each says why.
PUBLIC = "HTTP's and HTTPS's well-known ports: a deployment's public ports, a setting of their own"
NOT_PORTS = {
    'ansible/roles/fox_avatar_nginx/defaults/main.yml': {'80': PUBLIC, '443': PUBLIC},
    'ansible/roles/fox_avatar_nginx/meta/argument_specs.yml': {'80': PUBLIC},
    'docker-stack.yml': {'80': PUBLIC, '443': PUBLIC},
    'nginx/fox-avatar.conf.j2': {'443': PUBLIC + " (its Alt-Svc when the browser comes to HTTPS's own port)"},
}

# A number where a port goes: after "port" (`-port 1`, `--port=1`, `port: 1`, `_PORT=1`, `_PORT:-1`),
# in an EXPOSE line, after `target:`, after a host and a colon (`nginx:1`, `127.0.0.1:1`, `[::1]:1`,
# `=:1`: not `10:30` or `100:101`), or in bash's /dev/tcp/HOST/1.
PORT_AT = re.compile(r"""(?ix)
    (?: port\w*["']?\s*(?:[:=]|:-|\s)\s*["']?-?\s*
      | \btarget:\s*
      | (?:(?<=[a-z_\]=\s"'(-])|(?<=\.\d)|(?<=\.\d\d)|(?<=\.\d\d\d)):
      | /dev/tcp/[^/\s]+/ )
    (\d{2,5})(?![\d.:])""")
EXPOSE = re.compile(r"^\s*EXPOSE\s+(.*)$")


def rendered(copy, owner):
    """A register entry with the owner's values in place of its <NAME>s."""
    return re.sub(r"<([A-Z][A-Z0-9_]*)>", lambda m: str(owner[m[1]]), copy)


def port_numbers(line):
    """The numbers a line writes where a port goes."""
    m = EXPOSE.match(line)
    if m:
        return re.findall(r"\b(\d+)(?:/\w+)?\b", m[1])
    return PORT_AT.findall(line)


def reads_ports_env(text, owner):
    return "ports.env" in text or "fox_avatar.deploy.port" in text or any(holds(text, name) for name in owner)


def test_the_ports_owner_reads_as_its_readers_read_it():
    owner = ports.read()
    assert {"APP_PORT", "APP_METRICS_PORT", "NGINX_STATUS_PORT", "NGINX_FALLBACK_FEED_PORT",
            "NGINX_EXPORTER_PORT", "MTAIL_PORT", "BLACKBOX_PORT", "PROMETHEUS_PORT"} <= set(owner), owner
    for names in PORT_COPIES.values():
        for copy in names:
            for name in re.findall(r"<([A-Z][A-Z0-9_]*)>", copy):
                assert name in owner, f"the register names {name}, which {PORTS_OWNER} does not define"


def test_the_generated_ports_are_current():
    for name in PORTS_GENERATED:
        text = (ROOT / name).read_text(encoding="utf-8")
        assert text == ports.java_source(), f"{name} is not what `{ports.COMMAND}` writes from {PORTS_OWNER}: run it"


@pytest.mark.parametrize("name", sorted(PORT_COPIES))
def test_each_remaining_port_copy_agrees_with_ports_env(name):
    owner = ports.read()
    lines = Counter(line.strip() for line in (ROOT / name).read_text(encoding="utf-8").splitlines())
    want = Counter(rendered(copy, owner) for copy in PORT_COPIES[name])
    gone = [f"{line} (listed {n}, found {lines[line]})" for line, n in want.items() if lines[line] < n]
    assert not gone, (f"{name} no longer has these lines as {PORTS_OWNER} gives them (it drifted from the owner, "
                      f"or it reads the owner now: drop them from the register): {gone}")


def test_no_other_product_file_writes_a_port():
    owner = ports.read()
    values = sorted({str(port) for port in owner.values()})
    skip = {PORTS_OWNER, *PORTS_GENERATED, *NOT_COPIES}
    found = []
    for name, text in product_files():
        if name in skip:
            continue
        listed = {rendered(copy, owner) for copy in PORT_COPIES.get(name, [])}
        for number, line in enumerate(text.splitlines(), 1):
            if any(holds(line, value) for value in values) and line.strip() not in listed:
                found.append(f"{name}:{number}: {line.strip()[:100]}")
    assert not found, (f"these write a port of {PORTS_OWNER} themselves (read it from there, or list the line "
                       f"in PORT_COPIES with the reason it cannot):\n" + "\n".join(found))


def test_a_file_that_reads_ports_env_writes_no_port_number_of_its_own():
    owner = ports.read()
    skip = {PORTS_OWNER, *PORTS_GENERATED, *NOT_COPIES}
    found = []
    for name, text in product_files():
        if name in skip or not (name in PORT_COPIES or reads_ports_env(text, owner)):
            continue
        listed = {rendered(copy, owner) for copy in PORT_COPIES.get(name, [])}
        for number, line in enumerate(text.splitlines(), 1):
            own = [n for n in port_numbers(line) if n not in NOT_PORTS.get(name, {})]
            if not is_comment(line) and own and line.strip() not in listed:
                found.append(f"{name}:{number}: {own}: {line.strip()[:100]}")
    assert not found, (f"these read {PORTS_OWNER}, yet write a port number themselves (read it from "
                       f"{PORTS_OWNER}, or list the line in PORT_COPIES or NOT_PORTS with the reason):\n"
                       + "\n".join(found))


def test_the_port_scan_sees_a_port_where_it_goes():
    """PORT_AT's own cases: what the scan must see, and what it must leave."""
    seen = ["exec /usr/bin/mtail -port 3904", "--web.listen-address=:9113", "--port=99", "port: 8081",
            "AVATAR_X_PORT=3904", "${AVATAR_APP_PORT:-8080}", '- targets: ["nginx:3903"]',
            '- {target: 8444, published: *https-port}', "exec 3<>/dev/tcp/127.0.0.1/3904",
            "listen 127.0.0.1:8082;", "listen [::1]:8082;", "EXPOSE 3903 5140/udp", "'127.0.0.1:8080'"]
    left = ["USER 100:101", "at 10:30", "--uid 10001", "version 1.25.0", "mode: 0644", "-perm /6000",
            "seq 400", "rt=0.002"]
    assert [s for s in seen if not port_numbers(s)] == []
    assert [s for s in left if port_numbers(s)] == []
