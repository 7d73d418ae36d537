"""The copies that remain of the project's shared facts (issue 37: "one owner for each port, path
and limit"), and the test that they still agree with their owner.

The ports are ports.env's (tools/ports.py reads it; docs/architecture.md, "One owner for each
fact"). A part that can read a file reads it; the sidecar's Java takes it from Ports.java, generated
from it. What cannot read a file (a Dockerfile's EXPOSE, compose's defaults, Prometheus's sample
configurations) still writes the number: PORT_COPIES lists each such place as its text, <NAME>
standing for ports.env's value. The tests fail when a listed copy no longer matches the owner (it
drifted, or it is gone: drop it), and when a product file writes one of the ports anywhere else
(read it from ports.env instead, or list it here with the reason it cannot). The register only
shrinks.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import ports  # noqa: E402  (tools/ports.py, the owner's reader)

PORTS_OWNER = "ports.env"
PORTS_GENERATED = ["app/src/main/java/dev/foxavatar/Ports.java"]
# A test's data, not a copy: promtool's unit test writes instances as Prometheus would label them.
NOT_COPIES = ["monitoring/prometheus/fox-avatar.rules.test.yml"]

# file: the places in it that still write a port (text, <NAME> for ports.env's NAME).
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
        'then open https://localhost:<NGINX_CONTAINER_HTTPS_PORT>/',
        'http://127.0.0.1:<PROMETHEUS_PORT>/ (docs/monitoring.md',
        'https-port: &https-port ${AVATAR_HTTPS_PORT:-<NGINX_CONTAINER_HTTPS_PORT>}',
        'http-port: &http-port ${AVATAR_HTTP_PORT:-<NGINX_CONTAINER_HTTP_PORT>}',
        'app-port: &app-port ${AVATAR_APP_PORT:-<APP_PORT>}',
        'prometheus-port: &prometheus-port ${AVATAR_PROMETHEUS_PORT:-<PROMETHEUS_PORT>}',
        '- {target: <NGINX_CONTAINER_HTTPS_PORT>, published: *https-port',
        '- {target: <NGINX_CONTAINER_HTTPS_PORT>, published: *https-port',
        '- {target: <NGINX_CONTAINER_HTTP_PORT>, published: *http-port',
        '- {target: <PROMETHEUS_PORT>, published: *prometheus-port',
    ],
    # As docker-compose.yml: a default and targets, which a stack file cannot read from a file.
    'docker-stack.yml': [
        'app-port: &app-port ${AVATAR_APP_PORT:-<APP_PORT>}',
        '- {target: <NGINX_CONTAINER_HTTPS_PORT>, published: *https-port',
        '- {target: <NGINX_CONTAINER_HTTPS_PORT>, published: *https-port',
        '- {target: <NGINX_CONTAINER_HTTP_PORT>, published: *http-port',
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
        'targets: ["https://nginx:<NGINX_CONTAINER_HTTPS_PORT>/"]',
        'targets: ["https://nginx:<NGINX_CONTAINER_HTTPS_PORT>/"]',
        'replacement: "blackbox:<BLACKBOX_PORT>"}',
    ],
    # A sample to copy into a Prometheus of one's own, which reads it as it is (no variables):
    'monitoring/prometheus/prometheus.yml': [
        'targets: ["127.0.0.1:<APP_METRICS_PORT>"]',
        'targets: ["127.0.0.1:<NGINX_EXPORTER_PORT>"]',
        'targets: ["127.0.0.1:<MTAIL_PORT>"]',
        'replacement: "127.0.0.1:<BLACKBOX_PORT>"}',
    ],
    # EXPOSE takes numbers only (30-site.sh and the health check source the shipped ports.env).
    'nginx/Dockerfile': [
        'EXPOSE <NGINX_CONTAINER_HTTP_PORT> <NGINX_CONTAINER_HTTPS_PORT> <NGINX_CONTAINER_HTTPS_PORT>/udp',
    ],
    # A Jinja default in the template Ansible's template module renders too (it reads no file); every
    # deployment passes avatar_upstream_pool or avatar_upstream_servers, only bare renders (tests) use it.
    'nginx/fox-avatar.conf.j2': [
        "| default(['127.0.0.1:<APP_PORT>']) %}",
    ],
}


def product_files():
    """The repository's product files: neither tests nor docs nor Molecule scenarios; links once, as
    the files they point at."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.split("\0")
    for name in listed:
        if not name or name.startswith(("tests/", "docs/", "app/src/test/", "ansible/molecule/")) \
                or name.endswith(".md") or os.path.islink(ROOT / name):
            continue
        try:
            yield name, (ROOT / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue


def holds(text, value):
    return re.search(r"(?<![0-9A-Za-z_.])" + value + r"(?![0-9A-Za-z_])", text) is not None


def rendered(copy, owner):
    """A register entry with the owner's values in place of its <NAME>s."""
    return re.sub(r"<([A-Z][A-Z0-9_]*)>", lambda m: str(owner[m[1]]), copy)


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
    text = (ROOT / name).read_text(encoding="utf-8")
    gone = [copy for copy in PORT_COPIES[name] if rendered(copy, owner) not in text]
    assert not gone, (f"{name} no longer writes these as {PORTS_OWNER} gives them (it drifted from the owner, "
                      f"or it reads the owner now: drop them from the register): {gone}")


def test_no_other_product_file_writes_a_port():
    owner = ports.read()
    values = sorted({str(port) for port in owner.values()})
    skip = {PORTS_OWNER, *PORTS_GENERATED, *NOT_COPIES}
    found = []
    for name, text in product_files():
        if name in skip:
            continue
        listed = [rendered(copy, owner) for copy in PORT_COPIES.get(name, [])]
        for number, line in enumerate(text.splitlines(), 1):
            if any(holds(line, value) for value in values) and not any(copy in line for copy in listed):
                found.append(f"{name}:{number}: {line.strip()[:100]}")
    assert not found, (f"these write a port of {PORTS_OWNER} themselves (read it from there, or list the place "
                       f"in PORT_COPIES with the reason it cannot):\n" + "\n".join(found))


def test_the_self_signed_policy_has_one_owner():
    """nginx/selfsigned.env owns the self-signed certificate's days (issue 37): compose's start
    script sources it, the TLS role reads it through its link; neither writes a number of its own."""
    owner = ROOT / "nginx/selfsigned.env"
    values = dict(line.split("=", 1) for line in owner.read_text(encoding="utf-8").splitlines()
                  if line and not line.startswith("#"))
    assert set(values) == {"SELFSIGNED_DAYS", "SELFSIGNED_RENEW_DAYS"}, values
    script = (ROOT / "nginx/compose/entrypoint.d/20-certificate.sh").read_text(encoding="utf-8")
    assert ". /usr/local/lib/fox-avatar/nginx/selfsigned.env" in script
    assert "nginx/selfsigned.env" in (ROOT / "nginx/Dockerfile").read_text(encoding="utf-8")
    code = "\n".join(line for line in script.splitlines() if not line.lstrip().startswith("#"))
    assert not re.search(r"-days [0-9]|checkend \$\(\([0-9]", code), "20-certificate.sh writes days of its own"
    link = ROOT / "ansible/roles/fox_avatar_tls/files/selfsigned.env"
    assert link.is_symlink() and link.resolve() == owner.resolve(), f"{link} does not link to {owner}"
    role = ROOT / "ansible/roles/fox_avatar_tls"
    for path in [*role.glob("tasks/*.yml"), *role.glob("vars/*.yml"), *role.glob("defaults/*.yml")]:
        for name, days in values.items():
            assert not holds(path.read_text(encoding="utf-8"), days), f"{path.relative_to(ROOT)} writes {days} ({name})"


# Gravatar's path (/avatar/<hash>[.<ext>]: the prefix, 32 or 64 hex digits, an extension of 1-5) is the
# image-set contract's (imageset/contract.py, issue 37). The sidecar takes it from the generated
# ImageSetContract.java, Nginx from the template's data (imageset/nginx.py) and from the generated
# location-gravatar.conf. The product files that still write the prefix themselves, outside comments
# (the benchmark and the tests are clients: they write the URL as a browser does):
GRAVATAR_OWNER = "imageset/contract.py"
GRAVATAR_GENERATED = ["app/src/main/java/dev/foxavatar/ImageSetContract.java", "nginx/fox-avatar/location-gravatar.conf"]
GRAVATAR_COPIES = []   # mtail's route label takes the route as Nginx's feed writes it
GRAVATAR_SHAPE = re.compile(r"(?<![0-9A-Za-z_.-])(?:/|\\/)avatar(?:/|\\/)|\[0-9A-Fa-f\]\{(?:32|64)\}|\[A-Za-z0-9\]\{1,5\}")


def code_lines(text):
    """The lines of a file that are not comments (#, //, /* and * lines, Jinja's {# #})."""
    return [line for line in text.splitlines()
            if not line.strip().startswith(("#", "//", "/*", "*", "{#"))]


def test_gravatars_path_has_one_owner():
    owner = (ROOT / GRAVATAR_OWNER).read_text(encoding="utf-8")
    assert 'GRAVATAR_PREFIX = "/avatar/"' in owner, f"{GRAVATAR_OWNER} no longer defines GRAVATAR_PREFIX"
    for name in GRAVATAR_GENERATED:
        first = (ROOT / name).read_text(encoding="utf-8").splitlines()[0]
        assert "Generated by `python3 -m imageset" in first, f"{name} is not generated by the owner: {first}"
    found = {name for name, text in product_files() if not name.startswith("bench/")
             and any(GRAVATAR_SHAPE.search(line) for line in code_lines(text))}
    want = {GRAVATAR_OWNER, *GRAVATAR_GENERATED, *GRAVATAR_COPIES}
    assert not want - found, f"these no longer write Gravatar's path (drop them from the register): {sorted(want - found)}"
    assert not found - want, f"new copies of Gravatar's path (take it from {GRAVATAR_OWNER} instead): {sorted(found - want)}"
    java = (ROOT / "app/src/main/java/dev/foxavatar/GravatarPath.java").read_text(encoding="utf-8")
    for constant in ("GRAVATAR_PREFIX", "GRAVATAR_MD5_DIGITS", "GRAVATAR_SHA256_DIGITS", "GRAVATAR_MAX_EXTENSION"):
        assert f"ImageSetContract.{constant}" in java, f"GravatarPath.java does not read {constant}"
    assert "static final" not in java, "GravatarPath.java defines a constant of its own"


# A role's setting that another role needs is read as it is where the reader has the owner's defaults
# loaded. The pre-flight play checks each role's settings (fox_avatar_common's assert_spec.yml) with
# that role's defaults only, not its dependencies', and some readers must not run the owner at all
# (Prometheus's and the exporters' role on a host without Nginx): those readers fall back on the
# owner's default, written again. These pairs, each checked to give what the owner's default gives.
# (reader role, the owner's variable)
CROSS_ROLE_FALLBACKS = {
    ("fox_avatar_monitoring", "fox_avatar_tls_mode"),
    ("fox_avatar_monitoring", "fox_avatar_tls_domains"),
    ("fox_avatar_monitoring", "fox_avatar_tls_cert_path"),
    ("fox_avatar_nginx", "fox_avatar_monitoring_enabled"),
    ("fox_avatar_app", "fox_avatar_monitoring_address"),
    ("fox_avatar_nginx", "fox_avatar_tls_domains"),
    ("fox_avatar_nginx", "fox_avatar_tls_cert_path"),
    ("fox_avatar_nginx", "fox_avatar_tls_key_path"),
    ("fox_avatar_nginx", "fox_avatar_images_src"),
    ("fox_avatar_nginx", "fox_avatar_images_dir"),
    ("fox_avatar_app", "fox_avatar_images_src"),
    ("fox_avatar_app", "fox_avatar_images_dir"),
    ("fox_avatar_acme", "fox_avatar_tls_mode"),
    ("fox_avatar_acme", "fox_avatar_tls_domains"),
    ("fox_avatar_acme", "fox_avatar_tls_cert_path"),
    ("fox_avatar_acme", "fox_avatar_tls_key_path"),
    ("fox_avatar_acme", "fox_avatar_nginx_acme_root"),
}
FALLBACK = re.compile(r"\b(fox_avatar_[a-z0-9_]+) \| default\(([^()]*(?:\([^()]*\))?[^()]*)\)")


def role_owning(variable, roles):
    return max((role for role in roles if variable.startswith(role + "_")), key=len, default=None)


def test_a_role_reads_another_roles_setting_only_with_the_owners_default():
    import os.path

    import yaml
    from jinja2.nativetypes import NativeEnvironment
    env = NativeEnvironment()
    env.filters["dirname"] = os.path.dirname
    roles_dir = ROOT / "ansible/roles"
    roles = sorted(path.name for path in roles_dir.iterdir() if (path / "tasks").is_dir())
    defaults = {role: yaml.safe_load((roles_dir / role / "defaults/main.yml").read_text(encoding="utf-8")) or {}
                for role in roles if (roles_dir / role / "defaults/main.yml").exists()}
    magic = {"playbook_dir": "/repo/ansible", "inventory_hostname": "host1"}

    def value_of(owner, variable):
        value = defaults[owner][variable]
        context = {**magic, **{k: v for k, v in defaults[owner].items() if k != variable and "{{" not in str(v)}}
        if isinstance(value, list):
            return [env.from_string(v).render(context) if isinstance(v, str) else v for v in value]
        return env.from_string(value).render(context) if isinstance(value, str) and "{{" in value else value

    found, wrong = set(), []
    for path in roles_dir.rglob("*"):
        if path.suffix not in (".yml", ".j2") or "molecule" in path.parts:
            continue
        reader = path.relative_to(roles_dir).parts[0]
        for variable, fallback in FALLBACK.findall(path.read_text(encoding="utf-8")):
            owner = role_owning(variable, roles)
            if owner is None or owner == reader:
                continue
            found.add((reader, variable))
            got = env.from_string("{{ " + fallback + " }}").render(magic)
            want = value_of(owner, variable)
            if got != want:
                wrong.append(f"{path.relative_to(ROOT)}: {variable} | default({fallback}) gives {got!r}, "
                             f"{owner}'s default {want!r}")
    assert not wrong, "fallbacks that differ from their owner's default:\n" + "\n".join(wrong)
    assert not found - CROSS_ROLE_FALLBACKS, (
        f"new fallbacks on another role's default (read it where the owner's defaults are loaded, or list "
        f"the pair with why): {sorted(found - CROSS_ROLE_FALLBACKS)}")
    assert not CROSS_ROLE_FALLBACKS - found, f"these no longer fall back: drop them: {sorted(CROSS_ROLE_FALLBACKS - found)}"
