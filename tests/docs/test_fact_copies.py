"""The copies that remain of the project's shared ports (issue 37: "one owner for each port").

Each port has one owner, the file whose value the others should read or be generated from; the
product files (not tests, not docs) that still write the number themselves are listed here, as
they are today. The test fails when a copy drifts from its owner (a listed file no longer holds the
number), when a new copy appears (an unlisted product file holds it), or when the owner changes
its value without the copies. The register only shrinks: each entry is a place still to make read
from the owner (docs/architecture.md, "One owner for each fact").
"""
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# fact: (the value, its owner, the product files that still write it)
REGISTER = {
    "the sidecar's port": ("8080", "app/src/main/java/dev/foxavatar/Settings.java", [
        ".env.example", "ansible/plugins/filter/pool_members.yml", "ansible/roles/fox_avatar_app/defaults/main.yml",
        "ansible/roles/fox_avatar_app/meta/argument_specs.yml", "app/Dockerfile", "app/aot-train.sh",
        "docker-compose.yml", "docker-stack.yml", "nginx/Dockerfile", "nginx/fox-avatar.conf.j2"]),
    "the sidecar's /metrics port": ("8081", "app/src/main/java/dev/foxavatar/Settings.java", [
        "ansible/roles/fox_avatar_app/defaults/main.yml", "ansible/roles/fox_avatar_app/meta/argument_specs.yml",
        "app/Dockerfile", "app/aot-train.sh", "monitoring/compose/prometheus.yml",
        "monitoring/prometheus/fox-avatar.rules.test.yml", "monitoring/prometheus/prometheus.yml",
        "tools/loopback.py"]),
    "Nginx's status port": ("8082", "ansible/roles/fox_avatar_nginx/defaults/main.yml", [
        "ansible/roles/fox_avatar_nginx/meta/argument_specs.yml", "ansible/roles/fox_avatar_nginx/tasks/preflight.yml",
        "docker-compose.yml", "monitoring/compose/mtail.Dockerfile", "monitoring/compose/nginx-exporter.Dockerfile",
        "nginx/compose/entrypoint.d/30-site.sh"]),
    "the fallback feed's port": ("5140", "ansible/roles/fox_avatar_nginx/defaults/main.yml", [
        "ansible/roles/fox_avatar_nginx/meta/argument_specs.yml", "ansible/roles/fox_avatar_nginx/tasks/preflight.yml",
        "docker-compose.yml", "monitoring/compose/mtail.Dockerfile", "nginx/compose/entrypoint.d/30-site.sh"]),
    "nginx-exporter's port": ("9113", "ansible/roles/fox_avatar_monitoring/vars/main.yml", [
        "ansible/plugins/filter/scrape_targets.yml", "ansible/roles/fox_avatar_monitoring/meta/argument_specs.yml",
        "docker-compose.yml", "monitoring/compose/nginx-exporter.Dockerfile", "monitoring/compose/prometheus.yml",
        "monitoring/prometheus/fox-avatar.rules.test.yml", "monitoring/prometheus/prometheus.yml"]),
    "blackbox_exporter's port": ("9115", "ansible/roles/fox_avatar_monitoring/vars/main.yml", [
        "ansible/plugins/filter/scrape_targets.yml", "ansible/roles/fox_avatar_monitoring/meta/argument_specs.yml",
        "monitoring/compose/blackbox.Dockerfile", "monitoring/compose/prometheus.yml",
        "monitoring/prometheus/prometheus.yml"]),
    "mtail's port": ("3903", "ansible/roles/fox_avatar_monitoring/vars/main.yml", [
        "ansible/plugins/filter/scrape_targets.yml", "ansible/roles/fox_avatar_monitoring/meta/argument_specs.yml",
        "docker-compose.yml", "monitoring/compose/mtail.Dockerfile", "monitoring/compose/prometheus.yml",
        "monitoring/prometheus/fox-avatar.rules.test.yml", "monitoring/prometheus/prometheus.yml"]),
    "Prometheus's port": ("9090", "ansible/roles/fox_avatar_monitoring/vars/main.yml", [
        ".env.example", "ansible/roles/fox_avatar_monitoring/meta/argument_specs.yml", "docker-compose.yml",
        "monitoring/compose/prometheus.Dockerfile"]),
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


@pytest.mark.parametrize("fact", sorted(REGISTER))
def test_each_port_has_its_owner_and_only_its_listed_copies(fact):
    value, owner, copies = REGISTER[fact]
    assert holds((ROOT / owner).read_text(encoding="utf-8"), value), \
        f"{fact}: its owner {owner} no longer holds {value}: change the register with the owner and every copy"
    found = {name for name, text in product_files() if holds(text, value)}
    want = {owner, *copies}
    assert not want - found, f"{fact}: these copies no longer hold {value} (drifted from {owner}): {sorted(want - found)}"
    assert not found - want, f"{fact}: new copies of {value} (read it from {owner} instead): {sorted(found - want)}"


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
GRAVATAR_COPIES = [
    "monitoring/mtail/fox-avatar.mtail",   # the fallback counter's route label, as Nginx's feed writes it
]
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
