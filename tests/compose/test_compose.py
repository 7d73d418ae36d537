"""What `docker compose` adds on top of the shared HTTP assertions (tests/stack): hardened
containers, the images' contents, the run-time settings, the certificate's life cycle, crash
recovery and scaling. (The settings as files: test_settings.py.)

Runs against the project tests/compose/run.sh started (`docker compose up --build --wait`): it
exports COMPOSE_PROJECT_NAME, COMPOSE_FILE, AVATAR_HTTPS_PORT, AVATAR_HTTP_PORT and AVATAR_CA.
The tests run in file order; the scaling test changes the stack, so it comes last (test_custom_set.py
puts one replica back).
"""
import hashlib
import json
import os
import re
import signal
import subprocess
import time
import uuid

import pytest

from compose_helpers import (  # noqa: F401 (pytestmark, NEEDED: the layer's skip rule)
    access_log, address, compose, containers, digests, get_avatar, IMAGE_LOCATIONS, image_response,
    IMAGE_SET, inspect, logs, NEEDED, pool_servers, pytestmark, recreate, ROOT, same_cert,
    served_certificate, setting, SITE_CONF, upstream_block, volume_certificate, wait_for)


def test_both_services_serve_exactly_the_image_set_byte_for_byte_and_both_images_bake_it():
    """Compose mounts AVATAR_IMAGES_DIR (default: images/) read-only into both services: they read
    the set's manifest and files from there. Each image still bakes the fox set in (a plain
    `docker run` serves it): exactly the manifest and its files."""
    want = {}
    for name in IMAGE_SET:
        with open(os.path.join(ROOT, "images", name), "rb") as f:
            want[name] = hashlib.sha256(f.read()).hexdigest()
    for service, directory in (("app", "/opt/avatar/images"), ("nginx", "/srv/fox-avatar/images")):
        (container,) = containers(service)
        mounts = {m["Destination"]: m for m in inspect(container)["Mounts"]}
        assert mounts[directory]["Source"] == os.path.join(ROOT, "images") and not mounts[directory]["RW"], mounts
        assert digests(["docker", "compose", "exec", "-T", service], directory, IMAGE_SET) == want, service
        image = inspect(container)["Config"]["Image"]
        baked = subprocess.run(["docker", "run", "--rm", "--entrypoint", "bash", image, "-c",
                                f"cd {directory} && find . -type f -printf '%P\\0' | xargs -0 sha256sum --"],
                               capture_output=True, text=True, check=True).stdout
        assert {n: d for d, n in (line.split(None, 1) for line in baked.splitlines())} == want, \
            f"{image}: {directory} is not the image set of images/"


def test_nginx_site_file_is_rendered_at_start_with_every_setting_and_its_config_is_clean():
    """nginx/compose/entrypoint.d/30-site.sh renders the one site file with the settings in it: no
    hand-written include beside it (the app's port in the template's upstream block, the published
    HTTPS port in the redirect's map)."""
    site = compose("exec", "-T", "nginx", "cat", SITE_CONF).stdout
    assert site.startswith("# fox-avatar: per-deployment values, rendered from nginx/fox-avatar.conf.j2")
    # one run-time file: the app's addresses (they change while Nginx runs; 40-app-pool.sh keeps it)
    assert re.findall(r"^\s*include (/run/\S*);", site, re.M) == ["/run/nginx/upstream/*.conf"]
    assert upstream_block(site) == ["include /run/nginx/upstream/*.conf;", "include fox-avatar/upstream-keepalive.conf;"]
    port = compose("exec", "-T", "app", "printenv", "AVATAR_PORT").stdout.strip()
    (app,) = containers("app")
    assert pool_servers() == [f"{address(app)}:{port}"]
    https_port = int(os.environ["AVATAR_HTTPS_PORT"])
    assert f'map "" $avatar_https_port {{ default ":{https_port}"; }}' in site
    test = compose("exec", "-T", "nginx", "nginx", "-t")
    assert "test is successful" in test.stderr
    assert not re.search(r"\[(warn|emerg|alert|crit|error)\]", test.stderr), test.stderr


def test_nginx_is_debian_13s_and_started_without_any_warning():
    """Nginx 1.26 with HTTP/3 (quic listen, reuseport) as www-data: a clean start, nothing logged
    at warn or above since the container started ([error] lines are the sidecar tests' upstream
    failures, on purpose)."""
    build = compose("exec", "-T", "nginx", "nginx", "-V").stderr
    assert "nginx/1.26." in build and "--with-http_v3_module" in build and "OpenSSL 3.5" in build, build
    text = logs("nginx")
    assert not re.findall(r"^.*\[(?:warn|emerg|alert|crit)\].*$", text, re.M)


def test_nginx_listen_ports_agree_with_compose_targets_and_health_check():
    (nginx,) = containers("nginx")
    info = inspect(nginx)
    image = json.loads(subprocess.run(["docker", "image", "inspect", info["Image"]],
                                      capture_output=True, text=True, check=True).stdout)[0]
    exposed = {int(p.split("/")[0]) for p in image["Config"]["ExposedPorts"]}
    targets = {int(p.split("/")[0]) for p, b in info["NetworkSettings"]["Ports"].items() if b}
    assert exposed == targets
    site = compose("exec", "-T", "nginx", "cat", SITE_CONF).stdout
    # the public servers (every address); the stub_status server listens on loopback only
    listening = {int(port) for port in re.findall(r"^\s*listen \*:(\d+)", site, re.M)}
    assert listening == exposed
    assert set(re.findall(r"^\s*listen (\S+):\d+", site, re.M)) == {"*", "127.0.0.1"}
    http_target = min(p for p in listening if f"listen *:{p};" in site)
    # the check reads the HTTP port from the ports.env the image ships, as 30-site.sh does
    assert "/dev/tcp/127.0.0.1/$NGINX_CONTAINER_HTTP_PORT " in " ".join(image["Config"]["Healthcheck"]["Test"])
    shipped = compose("exec", "-T", "nginx", "bash", "-c",
                      ". /usr/local/lib/fox-avatar/ports.env && echo $NGINX_CONTAINER_HTTP_PORT").stdout
    assert int(shipped) == http_target


def test_images_max_age_setting_in_an_env_file_reaches_the_image_responses(tmp_path):
    default = f"public, max-age={setting('AVATAR_IMAGES_MAX_AGE')}"
    r = image_response()
    assert r.status_code == 200 and r.headers["Cache-Control"] == default
    env_file = tmp_path / ".env"
    env_file.write_text("AVATAR_IMAGES_MAX_AGE=1234\n")
    try:
        recreate("nginx", env_file=env_file)
        r = image_response()
        assert r.status_code == 200 and r.headers["Cache-Control"] == "public, max-age=1234"
    finally:
        recreate("nginx")
    assert image_response().headers["Cache-Control"] == default


def test_app_port_setting_in_the_environment_moves_the_app_and_nginx_follows():
    default = setting("AVATAR_APP_PORT")
    assert default != "9090"
    try:
        recreate(AVATAR_APP_PORT="9090")
        (app,) = containers("app")
        assert "AVATAR_PORT=9090" in inspect(app)["Config"]["Env"]
        probe = uuid.uuid4().hex
        r = get_avatar(probe)
        assert r.status_code == 302 and r.headers["Location"] in IMAGE_LOCATIONS
        line = access_log([probe])[probe]
        assert "fallback=0" in line and re.search(r'ua="[^"]*:9090"', line), line
    finally:
        recreate()
    probe = uuid.uuid4().hex
    assert get_avatar(probe).status_code == 302
    assert re.search(f'ua="[^"]*:{default}"', access_log([probe])[probe])


@pytest.mark.parametrize("service", ["app", "nginx"])
def test_containers_run_as_non_root_with_read_only_root_and_no_capabilities(service):
    for container in containers(service):
        info = inspect(container)
        host = info["HostConfig"]
        assert host["ReadonlyRootfs"] is True
        assert host["CapDrop"] == ["ALL"] and not host["CapAdd"]
        assert "no-new-privileges:true" in host["SecurityOpt"]
        assert host["Memory"] > 0, "a memory limit is set"
        assert host["RestartPolicy"]["Name"] == "unless-stopped"

        # The running main process, not just the image metadata.
        status = compose("exec", "-T", service, "cat", "/proc/1/status").stdout
        uids = re.search(r"^Uid:\s+(.*)$", status, re.M).group(1).split()
        assert uids and all(u != "0" for u in uids), f"{service} runs with uids {uids}"
        caps = re.search(r"^CapEff:\s+(\w+)$", status, re.M).group(1)
        assert int(caps, 16) == 0, f"{service} has effective capabilities {caps}"

        write = compose("exec", "-T", service, "bash", "-c", "echo x > /probe", check=False)
        assert write.returncode != 0 and "Read-only file system" in write.stderr


@pytest.mark.parametrize("setting, value", [("AVATAR_HTTPS_PORT", "84x3"),
                                             ("AVATAR_APP_PORT", "70000"),
                                             ("AVATAR_IMAGES_MAX_AGE", "7d"),
                                             ("AVATAR_TLS_NAMES", "local/host"),
                                             ("AVATAR_ACCESS_LOG", "verbose"),
                                             ("AVATAR_TLS", "yes"),
                                             ("AVATAR_REAL_IP_FROM", "172.18.0.1, 10.0.0.1/8"),
                                             ("AVATAR_REAL_IP_FROM", "proxy.example")])
def test_wrong_nginx_setting_is_a_one_line_error_naming_it(setting, value):
    done = compose("run", "--rm", "--no-deps", "-T", "-e", f"{setting}={value}", "nginx", check=False)
    assert done.returncode == 2, (done.returncode, done.stderr)
    errors = [line for line in done.stderr.splitlines() if line.startswith("nginx-entrypoint:")]
    assert len(errors) == 1 and setting in errors[0], done.stderr


def test_generated_certificate_is_served_and_kept_when_nginx_is_recreated():
    generated = volume_certificate()
    assert same_cert(served_certificate(), generated)

    compose("up", "-d", "--wait", "--no-deps", "--force-recreate", "nginx")

    assert same_cert(volume_certificate(), generated), "the certificate was generated again"
    assert same_cert(served_certificate(), generated)


def test_own_certificate_in_a_host_directory_is_served(tmp_path):
    own = tmp_path / "tls"
    own.mkdir()
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
         "-nodes", "-days", "2", "-subj", "/CN=own.localhost",
         "-addext", "subjectAltName=DNS:localhost,DNS:own.localhost",
         "-keyout", str(own / "privkey.pem"), "-out", str(own / "fullchain.pem")],
        check=True, capture_output=True)
    # Nginx runs as www-data (uid 33): it must be able to read the key (documented).
    os.chmod(tmp_path, 0o755)
    os.chmod(own, 0o755)
    os.chmod(own / "privkey.pem", 0o644)
    env = dict(os.environ, AVATAR_TLS_DIR=str(own))
    try:
        compose("up", "-d", "--wait", "--no-deps", "nginx", env=env)
        assert same_cert(served_certificate(), (own / "fullchain.pem").read_text())
        assert sorted(p.name for p in own.iterdir()) == ["fullchain.pem", "privkey.pem"], \
            "nothing is generated next to your own certificate"
    finally:
        compose("up", "-d", "--wait", "--no-deps", "nginx")
    assert same_cert(served_certificate(), volume_certificate())


def test_avatar_still_answers_while_the_app_crashes_and_compose_restarts_it():
    (app,) = containers("app")
    before = inspect(app)
    assert before["State"]["Health"]["Status"] == "healthy"

    # An unexpected death, as from a crash or the kernel's OOM killer: SIGKILL to the JVM from
    # outside Docker (the test runs on the engine's host). Not `docker kill` or `docker compose
    # kill`: the engine counts those as a user's stop and never restarts (checked by hand).
    os.kill(before["State"]["Pid"], signal.SIGKILL)

    probes, answers = [], []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        probe = uuid.uuid4().hex
        r = get_avatar(probe)
        probes.append(probe)
        answers.append((r.status_code, r.headers.get("Location", "")))
        now = inspect(app)["State"]
        if now.get("Health", {}).get("Status") == "healthy" and now["Pid"] != before["State"]["Pid"]:
            break
        time.sleep(0.02)
    else:
        raise AssertionError("compose did not restart the killed app within 60 s")

    bad = [a for a in answers if a[0] != 302 or a[1] not in IMAGE_LOCATIONS]
    assert not bad, f"{len(bad)} of {len(answers)} answers were not a 302 to a fox: {bad[:5]}"
    assert inspect(app)["RestartCount"] == before["RestartCount"] + 1

    # The outage was real (Nginx's fallback answered some), and the restarted app serves again.
    logged = access_log(probes)
    assert sum(1 for line in logged.values() if "fallback=1" in line) >= 1, \
        "no request fell into the outage: the test proved nothing"
    probe = uuid.uuid4().hex
    assert get_avatar(probe).status_code == 302
    line = access_log([probe])[probe]
    assert 'us="302"' in line and "fallback=0" in line, f"not answered by the app: {line}"


def test_scaled_app_replicas_all_serve_without_a_reload_or_restart_of_nginx():
    """Nginx finds the new replicas itself (40-app-pool.sh asks for the app's addresses every second
    and reloads on a change): nothing to do after `--scale`."""
    (nginx,) = containers("nginx")
    started = inspect(nginx)["State"]["StartedAt"]
    compose("up", "-d", "--wait", "--no-recreate", "--scale", "app=3")
    replicas = containers("app")
    assert len(replicas) == 3
    port = setting("AVATAR_APP_PORT")
    addresses = {f"{address(c)}:{port}" for c in replicas}

    seen = {}

    def all_answered():
        probes = [uuid.uuid4().hex for _ in range(30)]
        for probe in probes:
            r = get_avatar(probe)
            assert r.status_code == 302 and r.headers["Location"] in IMAGE_LOCATIONS
        for line in access_log(probes).values():
            upstream = re.search(r'ua="([^"]*)"', line).group(1)
            assert "fallback=0" in line, f"a replica failed: {line}"
            seen[upstream] = seen.get(upstream, 0) + 1
        return addresses <= set(seen)

    wait_for(f"answers from all of {sorted(addresses)}", all_answered, timeout=30, interval=0)
    assert set(seen) == addresses, f"answers by upstream: {seen}"
    assert sorted(pool_servers()) == sorted(addresses)
    assert inspect(nginx)["State"]["StartedAt"] == started, "Nginx was restarted"
