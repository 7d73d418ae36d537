"""A Debian 12 server in use, provisioned by the installed collection: the owner's sites as before,
a second run that changes nothing, monitoring (the dashboard's queries are test-monitoring's), the
self-signed renewal, then one run that changes several settings at once and one --check --diff
preview (the logs' modes are test-nginx's; the preview shows the setting reaching the site)."""
import hashlib
import json
import re
import subprocess
import sys
from types import SimpleNamespace

import pytest

import foxmol
import owner
from conftest import SITE, converge
from imageset import read_manifest
from stack.client import get
from stack.custom_set import make_custom_set

PID = "systemctl show -p MainPID --value"
ALICE, STRANGER = "alice@example.org", "stranger@example.org"


@pytest.fixture(scope="module")
def first(host, addr, collection):
    before = owner.snapshot(addr)
    run = converge("converge", collection)
    return SimpleNamespace(before=before, run=run)


def test_the_first_run_is_the_installed_collections(first, collection):
    assert first.run.clean, first.run.excerpt()
    assert f"the playbook in {collection.resolve()}/ansible_collections/fox_avatar/deploy" in first.run.text, first.run.excerpt()


def test_the_owners_sites_answer_as_before(first, addr):
    assert not owner.differences(first.before, owner.snapshot(addr))


def test_a_second_run_changes_nothing_and_the_owners_sites_still_answer_as_before(first, addr, collection):
    run = converge("second-run", collection)
    assert run.unchanged, run.excerpt()
    assert not owner.differences(first.before, owner.snapshot(addr))


def test_nginx_runs_with_the_raised_limits(first, host):
    conf = foxmol.host_exec(host, "nginx", "-T")
    for directive in ("worker_connections 6400;", "worker_rlimit_nofile 16384;", "map_hash_max_size 4096;", "map_hash_bucket_size 256;",
                      "variables_hash_bucket_size 128;"):
        assert re.search(rf"^\s*{directive}", conf, re.M), directive
    worker = foxmol.host_exec(host, "pgrep", "-f", "nginx: worker").split()[0]
    assert re.search(r"^Max open files\s+16384\s", foxmol.host_exec(host, "cat", f"/proc/{worker}/limits"), re.M)


def prometheus(host, path):
    return json.loads(foxmol.host_exec(host, "python3", "-c", "import urllib.request as u, sys; "
                                       f"print(u.urlopen('http://127.0.0.1:9090{path}').read().decode())"))


def target_health(host) -> dict:
    return {(t["labels"]["job"], t["labels"].get("module", "")): t["health"]
            for t in prometheus(host, "/api/v1/targets")["data"]["activeTargets"]}


def test_every_prometheus_target_is_up(first, host):
    assert foxmol.wait_for(lambda: (h := target_health(host)) and len(h) == 6 and set(h.values()) == {"up"}, 90), target_health(host)


def fallback_answers(host) -> float:
    metrics = foxmol.host_exec(host, "python3", "-c", "import urllib.request as u; print(u.urlopen('http://127.0.0.1:3903/metrics').read().decode())")
    return sum(float(v) for v in re.findall(r"^fox_avatar_fallback_answers_total\{[^}]*\} (\S+)$", metrics, re.M))


def test_mtail_counts_the_fallbacks_answers(first, host, addr):
    ca = foxmol.host_file(host, "/etc/ssl/fox-avatar/fullchain.pem")
    before = fallback_answers(host)
    foxmol.host_exec(host, "systemctl", "stop", "fox-avatar")
    try:
        assert [foxmol.https(addr, SITE, "/", ca)[0] for _ in range(3)] == ["302"] * 3
    finally:
        foxmol.host_exec(host, "systemctl", "start", "fox-avatar")
    assert foxmol.wait_for(lambda: fallback_answers(host) >= before + 3, 30), (before, fallback_answers(host))


def test_the_logs_keep_no_personal_data_by_default(first, host):
    log = foxmol.host_exec(host, "cat", "/var/log/nginx/fox-avatar/access.log")
    assert log and not re.search(r"\bu=|\b\d+\.\d+\.\d+\.(?!0 )\d+ ", log), log[-2000:]
    assert foxmol.host_exec(host, "stat", "-c", "%U:%G %a", "/var/log/nginx/fox-avatar/access.log") == "www-data:adm 640"


def test_the_daily_timer_renews_the_self_signed_certificate_with_a_reload(first, host, addr):
    before = foxmol.host_exec(host, "cat", "/etc/ssl/fox-avatar/fullchain.pem")
    nginx = foxmol.host_exec(host, *PID.split(), "nginx")
    foxmol.host_exec(host, "systemctl", "set-environment", "SELFSIGNED_RENEW_DAYS=400")
    try:
        foxmol.host_exec(host, "systemctl", "start", "fox-avatar-selfsigned.service")
    finally:
        foxmol.host_exec(host, "systemctl", "unset-environment", "SELFSIGNED_RENEW_DAYS")
    assert foxmol.host_exec(host, "cat", "/etc/ssl/fox-avatar/fullchain.pem") != before
    ca = foxmol.host_file(host, "/etc/ssl/fox-avatar/fullchain.pem")
    assert foxmol.wait_for(lambda: foxmol.https(addr, SITE, "/", ca)[0] == "302", 10)
    assert foxmol.host_exec(host, *PID.split(), "nginx") == nginx


@pytest.fixture(scope="module")
def own_certificate():
    d = foxmol.workdir("files-mode")
    for cmd in (["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                 "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=files-mode test CA"],
                ["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "privkey.pem",
                 "-out", "leaf.csr", "-subj", f"/CN={SITE}"],
                ["openssl", "x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
                 "-extfile", "/dev/stdin", "-out", "fullchain.pem"]):
        subprocess.run(cmd, cwd=d, input=f"subjectAltName=DNS:{SITE}\n", text=True, capture_output=True, check=True)
    return d


@pytest.fixture(scope="module")
def changed(first, host, collection, own_certificate):
    """One run that changes the certificate (files mode), the image set (own pictures), a list of
    people (alice's picture 2, as `make people` writes it) with Gravatar's defaults, and the access
    log (full) at once."""
    own = make_custom_set(foxmol.workdir("own"))
    team = foxmol.workdir("people") / "team.txt"
    team.write_text(f"{ALICE} 2\n")
    (team.parent / "people.tsv").write_text(subprocess.run(
        [sys.executable, "-m", "imageset", "people", str(team), "--images", str(own)], cwd=foxmol.REPO,
        capture_output=True, text=True, check=True).stdout)
    settings = {"fox_avatar_tls_mode": "files", "fox_avatar_tls_cert_src": str(own_certificate / "fullchain.pem"),
                "fox_avatar_tls_key_src": str(own_certificate / "privkey.pem"), "fox_avatar_images_src": str(own),
                "fox_avatar_images_people_file": str(team.parent / "people.tsv"), "fox_avatar_images_gravatar_defaults": True,
                "fox_avatar_nginx_access_log": "full"}
    pids = {unit: foxmol.host_exec(host, *PID.split(), unit) for unit in ("nginx", "fox-avatar")}
    run = converge("changes", collection, extra_vars=settings)
    return SimpleNamespace(run=run, settings=settings, pids=pids, ca=own_certificate / "ca.pem")


def test_one_run_changes_several_settings(changed):
    assert changed.run.clean, changed.run.excerpt()


def test_the_own_pictures_are_served_through_the_own_certificate(changed, addr):
    code, head = foxmol.https(addr, SITE, "/", changed.ca)
    location = foxmol.header(head, "Location")
    assert code == "302" and location.startswith("/a/avatar-"), head
    assert foxmol.https(addr, SITE, location, changed.ca)[0] == "200"


def test_the_previous_image_set_is_gone_and_the_service_restarted_nginx_reloaded(changed, host):
    assert foxmol.host_exec(host, "sh", "-c", "ls -d /opt/fox-avatar/images-*").split() == \
        [foxmol.host_exec(host, "readlink", "/opt/fox-avatar/images")]
    assert foxmol.host_exec(host, *PID.split(), "fox-avatar") != changed.pids["fox-avatar"]
    assert foxmol.host_exec(host, *PID.split(), "nginx") == changed.pids["nginx"]


def test_the_listed_address_gets_its_picture_and_a_strangers_d_404_a_404(changed, addr):
    """The service's answers (the list and Gravatar's defaults are the service's alone; Nginx's
    fallback answers a keyed request 503: test-nginx)."""
    client = SimpleNamespace(host=SITE, addr=addr, https_port=443, ca_file=str(changed.ca))
    own = read_manifest(changed.settings["fox_avatar_images_src"])
    for h in (hashlib.md5(ALICE.encode()).hexdigest(), hashlib.sha256(ALICE.encode()).hexdigest()):
        r = get(client, f"/avatar/{h}?s=64&d=404")
        assert r.status == 302 and own.entry(r.header("Location")[1:]).fox == 2, (r.status, r.headers)
    stranger = hashlib.md5(STRANGER.encode()).hexdigest()
    assert get(client, f"/avatar/{stranger}.png?s=360&d=404").status == 404
    r = get(client, f"/avatar/{stranger}?d=identicon")
    assert r.status == 302 and own.entry(r.header("Location")[1:]) is not None, (r.status, r.headers)


def test_check_diff_previews_a_change_and_changes_nothing(changed, host, collection):
    site = "/etc/nginx/sites-enabled/zz-fox-avatar.conf"
    before = foxmol.host_exec(host, "sha256sum", site)
    run = converge("check-diff", collection, "--check", "--diff",
                   extra_vars={**changed.settings, "fox_avatar_nginx_access_log": "anonymous"})
    shown = run.text.rpartition("TASK [fox_avatar.deploy.fox_avatar : Write the avatar site]")[2].partition("TASK [")[0]
    assert run.clean and "+" in shown and "avatar_anonymous" in shown and "changed:" in shown, run.excerpt()
    assert foxmol.host_exec(host, "sha256sum", site) == before
