"""Each wrong setting stops site.yml in its pre-flight play, with a message naming the setting (Ansible's
own where it has one: the argument spec, one case for each kind of check, get_url), before any host
changes."""
import concurrent.futures
import functools
import hashlib
import http.server
import os
import re
import shutil
import sys
import threading
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared"))
import foxmol  # noqa: E402

HOST = os.environ.get("FOX_MOLECULE_PREFIX", "foxmol") + "-preflight"
GONE = "never-contacted"
# name: (inventory, extra vars, what the error says)
CASES = {
    "tls mode not a choice": ("one", {"fox_avatar_tls_mode": "bogus"}, ["fox_avatar_tls_mode", "must be one of"]),
    "monitoring switch not a boolean": ("one", {"fox_avatar_monitoring_enabled": "maybe"}, ["fox_avatar_monitoring_enabled"]),
    "image set without a manifest": ("one", {"fox_avatar_images_src": "/nonexistent"}, ["fox_avatar_images_src", "make images"]),
    "drawn set without its identities": ("one", {"fox_avatar_images_src": "NO_IDENTITIES"}, ["fox_avatar_images_src", "make identities"]),
    "list of people not one": ("one", {"fox_avatar_images_people_file": __file__}, ["fox_avatar_images_people_file", "line 1", "make people"]),
    "jar not built": ("one", {"fox_avatar_app_jar_src": "/nonexistent/avatar.jar"}, ["fox_avatar_app_jar_src", "make build"]),
    "release's jar without its checksum": ("one", {"fox_avatar_app_jar_url": "JAR_URL"}, ["fox_avatar_app_jar_checksum"]),
    "release's jar that does not match": ("one", {"fox_avatar_app_jar_url": "JAR_URL", "fox_avatar_app_jar_checksum": "sha256:" + "0" * 64},
                                          ["did not match"]),
    "release's jar that is not there": ("one", {"fox_avatar_app_jar_url": "JAR_URL.gone", "fox_avatar_app_jar_checksum": "JAR_SHA"},
                                        ["404"]),
    "app address every interface": ("one", {"fox_avatar_app_address": "0.0.0.0"}, ["fox_avatar_app_address"]),
    "app host apart without its address": ("split", {}, ["fox_avatar_app_address", "private address"]),
    "metrics port the service's": ("one", {"fox_avatar_app_metrics_port": 8080}, ["fox_avatar_app_metrics_port"]),
    "memory limit not a size": ("one", {"fox_avatar_app_memory_max": "lots"}, ["fox_avatar_app_memory_max"]),
    "no app hosts": ("noapps", {}, ["avatar_apps"]),
    "files mode without a key": ("one", {"fox_avatar_tls_mode": "files", "fox_avatar_tls_cert_src": __file__}, ["fox_avatar_tls_key_src"]),
    "acme without an e-mail": ("one", {"fox_avatar_tls_mode": "acme"}, ["fox_avatar_tls_acme_email"]),
    "acme for an address": ("one", {"fox_avatar_tls_mode": "acme", "fox_avatar_tls_acme_email": "a@avatar.test",
                                    "fox_avatar_tls_domains": ["192.0.2.1"]}, ["fox_avatar_tls_domains"]),
    "proxy mode on the service's port": ("one", {"fox_avatar_tls_mode": "proxy", "fox_avatar_nginx_http_port": 8080},
                                         ["fox_avatar_app_port", "fox_avatar_nginx_http_port"]),
    "monitoring on every interface": ("one", {"fox_avatar_monitoring_address": "0.0.0.0"}, ["fox_avatar_monitoring_address"]),
    "loopback listeners with Prometheus elsewhere": ("monitored", {"fox_avatar_monitoring_enabled": True}, ["fox_avatar_monitoring_address"]),
    "a trusted proxy by name (nginx -t)": ("one", {"fox_avatar_nginx_http3_reuseport": False, "fox_avatar_nginx_real_ip_from": ["proxy.invalid"]},
                                           ["set_real_ip_from", "fox_avatar_nginx_real_ip_from"]),
    "reuseport beside the owner's (nginx -t)": ("one", {}, ["duplicate listen options", "fox_avatar_nginx_http3_reuseport"]),
}


def inventory(kind: str) -> Path:
    groups = {"one": ([HOST], [HOST], []), "split": ([HOST], [f"app-{GONE}"], []), "noapps": ([HOST], [], []),
              "monitored": ([HOST], [HOST], [f"prometheus-{GONE}"])}[kind]
    path = foxmol.workdir("inventories") / f"{kind}.yml"
    # written aside, then renamed: the runs in parallel never read a half-written inventory
    aside = path.with_name(f"{kind}.{threading.get_ident()}.tmp")
    aside.write_text(yaml.safe_dump({"all": {
        "vars": {"ansible_connection": "community.docker.docker", "ansible_become": False, "fox_avatar_tls_domains": ["avatar.test"]},
        "children": {name: {"hosts": {h: None for h in hosts}}
                     for name, hosts in zip(("avatar_proxies", "avatar_apps", "monitoring"), groups)}}}))
    os.replace(aside, path)
    return path


@pytest.fixture(scope="module")
def release():
    """A release's jar (the built one, renamed) served on this machine's loopback: (URL, sha256:HEX)."""
    served = foxmol.workdir("release")
    jar = served / "avatar-0.0.1.jar"
    shutil.copyfile(foxmol.REPO / "app" / "target" / "avatar.jar", jar)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/{jar.name}", "sha256:" + hashlib.sha256(jar.read_bytes()).hexdigest()
    server.shutdown()


@pytest.fixture(scope="module")
def runs(release):
    """Every case's run, four at a time, and what changed on the host meanwhile."""
    bare = foxmol.workdir("set-without-identities")   # the foxes' set, its i/ left out
    shutil.copytree(foxmol.REPO / "images", bare, ignore=shutil.ignore_patterns("i"), dirs_exist_ok=True)
    swap = {"JAR_URL": release[0], "JAR_URL.gone": release[0] + ".gone", "JAR_SHA": release[1], "NO_IDENTITIES": str(bare)}

    def one(name):
        kind, extra_vars, _ = CASES[name]
        extra_vars = {k: swap.get(v, v) if isinstance(v, str) else v for k, v in extra_vars.items()}
        return foxmol.playbook(re.sub(r"\W+", "-", name), hosts=str(inventory(kind)), extra_vars=extra_vars)

    foxmol.host_exec(HOST, "touch", "/tmp/preflight-mark")
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        done = dict(zip(CASES, pool.map(one, CASES)))
    changed = foxmol.host_exec(HOST, "sh", "-c", "find /etc /opt /usr /var/lib/apt /var/lib/dpkg /var/www -newer /tmp/preflight-mark -print; true")
    return done, changed


@pytest.mark.parametrize("name", CASES)
def test_a_wrong_setting_stops_the_run_in_the_pre_flight(name, runs):
    run = runs[0][name]
    plays = [line for line in run.text.splitlines() if line.startswith("PLAY [")]
    assert run.rc != 0 and len(plays) == 1 and plays[0].startswith("PLAY [Pre-flight"), run.excerpt()
    assert all(words in run.text.partition("PLAY RECAP")[0] for words in CASES[name][2]), run.excerpt()


def test_no_refused_run_changed_the_host(runs):
    assert runs[1] == "", f"the host changed: {runs[1]}"


def test_the_same_settings_with_reuseport_off_pass_the_pre_flight_changing_nothing(runs):
    run = foxmol.playbook("control", "--tags", "preflight-only", hosts=str(inventory("one")),
                          extra_vars={"fox_avatar_nginx_http3_reuseport": False})
    assert run.clean and all(r["changed"] == 0 for r in run.recap.values()), run.excerpt()
