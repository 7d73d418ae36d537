"""docker-stack.yml on a real three-node swarm (tests/swarm/run.sh made it): n1, the manager, runs
Debian 12's engine and CLI (20.10), n2 and n3, workers, Debian 13's (26.1). The tests run in this
order and build on each other: the stack file through both CLIs, the deploy, where the replicas
run, every node's answers, the hardening, then under a wrk load: a rolling update of the app; a
node's self-signed certificate renewed while its task runs, the own certificate; a
certificate rotation (a rolling update of Nginx), a drained worker, an update whose image fails
its health check, a killed worker. Each load prints its counts."""
import subprocess
import time

import pytest

from swarm import STACK, Load, Swarm, get, served_certificate, sh

# The release the stack runs (AVATAR_VERSION): run.sh pushed the compose images as 1.0.0, as `make
# release` names them (REGISTRY/fox-avatar/app:X.Y.Z); the app's rolling update makes 1.0.1.
RELEASE = {"version": "1.0.0"}


@pytest.fixture(scope="module")
def swarm():
    return Swarm()


def stack_env(swarm, **extra):
    # docs/swarm.md, "Install a release": the registry as the nodes reach it, and the version
    env = {"AVATAR_REGISTRY": swarm.pull, "AVATAR_VERSION": RELEASE["version"], "AVATAR_TLS_NAMES": "fox.test"}
    env.update(extra)
    return env


def deploy(swarm, **extra):
    r = swarm.manager.docker("stack", "deploy", "-c", "/stack/docker-stack.yml", STACK, env=stack_env(swarm, **extra))
    # Debian 12's CLI says so when it drops a key of the file (security_opt, tmpfs, ...)
    assert "Ignoring unsupported options" not in r.stdout + r.stderr, r.stdout + r.stderr
    return r


def derived_image(swarm, name, tag, *lines):
    """An image FROM the running release's with a few more lines, pushed as :tag; as the nodes name it."""
    ref = f"{swarm.push}/fox-avatar/{name}:{tag}"
    sh("docker", "build", "-q", "-t", ref, "-",
       input=f"FROM {swarm.push}/fox-avatar/{name}:{RELEASE['version']}\n" + "\n".join(lines) + "\n")
    sh("docker", "push", "-q", ref)
    return f"{swarm.pull}/fox-avatar/{name}:{tag}"


def report(what, load, fallback, swarm):
    print(f"\n   {what}: {load.counts['requests']} requests, {load.counts['not302']} answers other than 302, "
          f"{load.errors()} socket errors, {fallback} fallback answers; per node {load.per_node}")
    if load.counts["not302"]:
        print(f"   Nginx's log lines of those answers: {swarm.avatar_answers_other_than_302()}")


# ---------------------------------------------------------------- the stack file and the deploy

def test_debian_13s_cli_accepts_the_stack_files(swarm):
    n2 = swarm.node("n2")
    assert n2.docker("version", "-f", "{{.Client.Version}}").stdout.startswith("26.")
    out = n2.docker("stack", "config", "-c", "/stack/docker-stack.yml", env=stack_env(swarm)).stdout
    for want in ("fox.test", "mode: global", "endpoint_mode: dnsrr", "fox-avatar-tls-cert-none", "order: start-first",
                 f"image: {swarm.pull}/fox-avatar/app:1.0.0", f"image: {swarm.pull}/fox-avatar/nginx:1.0.0"):
        assert want in out, want
    # a release needs both settings: without one the CLI stops, naming it (docker-stack.yml, x-settings)
    for missing in ("AVATAR_REGISTRY", "AVATAR_VERSION"):
        env = {k: v for k, v in stack_env(swarm).items() if k != missing}
        r = n2.docker("stack", "config", "-c", "/stack/docker-stack.yml", env=env, check=False)
        assert r.returncode != 0 and f"required variable {missing} is missing a value" in r.stderr, (missing, r.stderr)


def test_debian_12s_cli_deploys_the_stack(swarm):
    assert swarm.manager.docker("version", "-f", "{{.Client.Version}}").stdout.startswith("20.10.")
    deploy(swarm)
    swarm.wait_converged("app", 3)
    swarm.wait_converged("nginx", 3, nodes={"n1", "n2", "n3"})


def test_app_replicas_are_spread_over_the_three_nodes(swarm):
    assert sorted(t[1] for t in swarm.tasks("app")) == ["n1", "n2", "n3"]


def test_every_node_answers_302_to_an_image_it_serves(swarm):
    for n in swarm.nodes:
        # the node's own self-signed certificate (generated at its first start), for fox.test
        ca = swarm.tmp / f"self-signed-{n.host}.pem"
        ca.write_text(served_certificate(n.ip))
        status, location, _ = get(n.ip, "/?s=64", cafile=ca)
        assert status == 302 and location.startswith("/a/"), (n.host, status, location)
        status, _, ctype = get(n.ip, location, cafile=ca)
        assert (status, ctype) == (200, "image/avif"), (n.host, location, status, ctype)


def test_tasks_are_hardened_on_both_engines(swarm):
    for n in swarm.nodes:
        for service, user in (("app", "10001:10001"), ("nginx", "33:33")):
            c = n.run("sh", "-c", f"docker ps -q --filter label=com.docker.swarm.service.name={STACK}_{service}"
                      " | head -n1").stdout.strip()
            assert c, (n.host, service)
            ro, caps, u = n.docker("inspect", "-f", "{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.CapDrop}} "
                                   "{{.Config.User}}", c).stdout.split()
            assert (ro, caps, u) == ("true", "[ALL]", user), (n.host, service)
            status = n.docker("exec", c, "cat", "/proc/1/status").stdout
            assert "CapEff:\t0000000000000000" in status, (n.host, service)
            # no setuid or setgid file to gain privileges with (swarm has no no-new-privileges)
            found = n.docker("exec", c, "find", "/", "-xdev", "-type", "f", "-perm", "/6000", check=False).stdout
            assert found.strip() == "", (n.host, service, found)


# ---------------------------------------------------------------- under load

def test_rolling_update_of_the_app_loses_no_request(swarm):
    """The app's service alone to another image (docs/swarm.md, "Updates and rollback": `docker service
    update --image`); then release 1.0.1 is that app and the same Nginx image, so that the later
    deploys keep it."""
    image = derived_image(swarm, "app", "1.0.1", "LABEL dev.fox-avatar.test=2")
    before = swarm.fallback_answers()
    with Load(swarm.nodes) as load:
        swarm.manager.docker("service", "update", "--detach", "--image", image, f"{STACK}_app")
        swarm.wait_converged("app", 3)
    fallback = swarm.fallback_answers() - before
    report("rolling update of the app", load, fallback, swarm)
    assert swarm.manager.docker("service", "inspect", "-f", "{{.Spec.TaskTemplate.ContainerSpec.Image}}",
                                f"{STACK}_app").stdout.startswith(image)
    assert load.counts["requests"] > 0
    assert load.counts["not302"] == 0 and load.errors() == 0
    # every answer the sidecar's: Nginx never kept the address of a task that was gone
    assert fallback == 0
    nginx = f"{swarm.push}/fox-avatar/nginx"
    sh("docker", "tag", f"{nginx}:{RELEASE['version']}", f"{nginx}:1.0.1")
    sh("docker", "push", "-q", f"{nginx}:1.0.1")
    RELEASE["version"] = "1.0.1"


def test_a_nodes_self_signed_certificate_is_renewed_while_its_task_runs(swarm):
    """A year without a restart (nginx/compose/entrypoint.d/50-certificate-renewal.sh): each node's
    Nginx checks its self-signed certificate while it runs (hourly; here every 2 s, through the
    service's environment) and, once fewer than 30 days remain, makes it again and reloads. Here,
    between the app's rolling update and the own certificate's deploy, which updates Nginx anyway
    (and takes the check's setting away again): earlier, a later `stack deploy` would roll Nginx
    under the app's load."""
    swarm.manager.docker("service", "update", "--detach", "--env-add", "NGINX_TLS_CHECK_SECONDS=2", f"{STACK}_nginx")
    swarm.wait_converged("nginx", 3, nodes={"n1", "n2", "n3"})
    n2 = swarm.node("n2")
    original = served_certificate(n2.ip)
    c = n2.run("sh", "-c", f"docker ps -q --filter label=com.docker.swarm.service.name={STACK}_nginx"
               " | head -n1").stdout.strip()
    # A year later: the node's certificate (same names and key) has 20 days left.
    short = n2.docker("exec", c, "sh", "-c",
                      "cd /etc/nginx/tls && CN=$(head -n1 self-signed.names | cut -d' ' -f1) && "
                      "openssl req -x509 -key privkey.pem -days 20 -subj \"/CN=$CN\" -out short.pem 2>/dev/null "
                      "&& cat short.pem && mv short.pem fullchain.pem").stdout
    assert "BEGIN CERTIFICATE" in short
    deadline = time.monotonic() + 60
    while True:
        served = served_certificate(n2.ip)
        if serial(served) not in (serial(original), serial(short)):
            break
        assert time.monotonic() < deadline, "no renewed certificate served within 60 s"
        time.sleep(1)
    # valid for a year again (the policy's 365 days; more than 300 left)
    assert sh("openssl", "x509", "-noout", "-checkend", str(300 * 86400), input=served, check=False).returncode == 0
    assert n2.run("sh", "-c", f"docker ps -q --filter label=com.docker.swarm.service.name={STACK}_nginx"
                  " | head -n1").stdout.strip() == c, "the task was replaced, not reloaded"


def openssl(*args):
    sh("openssl", *args)


@pytest.fixture(scope="module")
def certificates(swarm):
    """A test CA and two certificates for fox.test it signed (before and after the rotation)."""
    d = swarm.tmp
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/CN=fox-avatar swarm test CA", "-keyout", str(d / "ca.key"), "-out", str(d / "ca.pem"))
    for i in (1, 2):
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=fox.test",
                "-keyout", str(d / f"key-{i}.pem"), "-out", str(d / f"csr-{i}.pem"))
        (d / "ext").write_text("subjectAltName=DNS:fox.test\n")
        openssl("x509", "-req", "-in", str(d / f"csr-{i}.pem"), "-CA", str(d / "ca.pem"), "-CAkey", str(d / "ca.key"),
                "-CAcreateserial", "-days", "2", "-extfile", str(d / "ext"), "-out", str(d / f"cert-{i}.pem"))
    return d


def create_secrets(swarm, d, i):
    for kind, f in (("cert", f"cert-{i}.pem"), ("key", f"key-{i}.pem")):
        subprocess.run(["docker", "exec", "-i", swarm.manager.container, "docker", "secret", "create",
                        f"fox-avatar-tls-{kind}-{i}", "-"], input=(d / f).read_bytes(), check=True,
                       capture_output=True)


def serial(pem):
    return sh("openssl", "x509", "-noout", "-serial", input=pem).stdout.strip()


def test_own_certificate_from_secrets(swarm, certificates):
    for f in ("cert-1.pem", "key-1.pem"):
        sh("docker", "cp", str(certificates / f), f"{swarm.manager.container}:/stack/{f}")
    deploy(swarm, AVATAR_TLS_CERT_FILE="/stack/cert-1.pem", AVATAR_TLS_KEY_FILE="/stack/key-1.pem",
           AVATAR_TLS_SECRET="1")
    swarm.wait_converged("nginx", 3, nodes={"n1", "n2", "n3"})
    want = serial((certificates / "cert-1.pem").read_text())
    for n in swarm.nodes:
        assert serial(served_certificate(n.ip)) == want, n.host
        assert get(n.ip, "/", cafile=certificates / "ca.pem")[0] == 302, n.host


def test_certificate_rotation_is_a_rolling_update_of_nginx(swarm, certificates):
    create_secrets(swarm, certificates, 2)   # docs/swarm.md, "Rotate the certificate"
    before = swarm.fallback_answers()
    with Load(swarm.nodes) as load:
        # docs/swarm.md, "Rotate the certificate"
        swarm.manager.docker(
            "service", "update", "--detach",
            "--secret-rm", "fox-avatar-tls-cert-1", "--secret-rm", "fox-avatar-tls-key-1",
            "--secret-add", "source=fox-avatar-tls-cert-2,target=fullchain.pem,uid=33,gid=33,mode=0444",
            "--secret-add", "source=fox-avatar-tls-key-2,target=privkey.pem,uid=33,gid=33,mode=0400",
            f"{STACK}_nginx")
        swarm.wait_converged("nginx", 3, nodes={"n1", "n2", "n3"})
    fallback = swarm.fallback_answers() - before
    report("certificate rotation (rolling update of Nginx)", load, fallback, swarm)
    want = serial((certificates / "cert-2.pem").read_text())
    for n in swarm.nodes:
        assert serial(served_certificate(n.ip)) == want, n.host
    assert load.counts["requests"] > 0 and load.counts["not302"] == 0
    # What a node costs while its Nginx task is replaced (docs/swarm.md, "Updates and rollback"): its
    # port refuses connections between the old task's graceful exit and the new task's start (wrk
    # counts each attempt: "connect"). Besides, each client connection can lose at most two requests
    # to a reset, seen as "read" or "write" depending on whether the reset came before or after the
    # request was written (browsers send such a request again): once when the kept-alive connection
    # was idle as the old task quit (it is closed), once when a new connection was still in the
    # listen queue the old task closed (the kernel resets it). A request in flight is never cut,
    # nothing times out.
    for host, c in load.per_node.items():
        assert c["timeout"] == 0 and c["read"] + c["write"] <= 2 * load.connections, (host, c)


def test_draining_a_worker_loses_no_request(swarm):
    n1, n2, n3 = (swarm.node(h) for h in ("n1", "n2", "n3"))
    before = swarm.fallback_answers()
    try:
        with Load([n1, n2]) as load:
            swarm.manager.docker("node", "update", "--availability", "drain", "n3")
            swarm.wait_converged("app", 3, nodes={"n1", "n2"})
            swarm.wait_converged("nginx", 2, nodes={"n1", "n2"})
        fallback = swarm.fallback_answers() - before
    finally:   # n3 back for the tests after this one, whatever happened
        swarm.manager.docker("node", "update", "--availability", "active", "n3")
        swarm.wait_converged("nginx", 3, nodes={"n1", "n2", "n3"})
        # Swarm does not move tasks back by itself: a forced update spreads them again
        swarm.manager.docker("service", "update", "--detach", "--force", f"{STACK}_app")
        swarm.wait_converged("app", 3)
    report("drained worker n3", load, fallback, swarm)
    assert load.counts["requests"] > 0 and load.counts["not302"] == 0 and load.errors() == 0 and fallback == 0


def test_an_update_that_fails_its_health_check_rolls_back_by_itself(swarm):
    good = swarm.manager.docker("service", "inspect", "-f", "{{.Spec.TaskTemplate.ContainerSpec.Image}}",
                                f"{STACK}_app").stdout.strip()
    broken = derived_image(swarm, "app", "unhealthy", 'HEALTHCHECK CMD ["false"]')
    before = swarm.fallback_answers()
    with Load(swarm.nodes) as load:
        swarm.manager.docker("service", "update", "--detach", "--image", broken, f"{STACK}_app")
        assert swarm.wait_converged("app", 3, states=("rollback_completed",)) == "rollback_completed"
    fallback = swarm.fallback_answers() - before
    report("update to an unhealthy image, rolled back", load, fallback, swarm)
    assert swarm.manager.docker("service", "inspect", "-f", "{{.Spec.TaskTemplate.ContainerSpec.Image}}",
                                f"{STACK}_app").stdout.strip() == good
    # the unhealthy tasks never joined the name "app": not one request reached them
    assert load.counts["requests"] > 0 and load.counts["not302"] == 0 and load.errors() == 0 and fallback == 0


def test_a_killed_worker_leaves_the_others_answering(swarm):
    n1, n2, n3 = (swarm.node(h) for h in ("n1", "n2", "n3"))
    assert "n3" in {t[1] for t in swarm.tasks("app")}, "no sidecar task on n3 to lose"
    before = swarm.fallback_answers([n1, n2])
    with Load([n1, n2]) as load:
        sh("docker", "kill", n3.container)
        swarm.wait_converged("app", 3, nodes={"n1", "n2"})
    fallback = swarm.fallback_answers([n1, n2]) - before
    report("killed worker n3", load, fallback, swarm)
    assert load.counts["requests"] > 0 and load.counts["not302"] == 0 and load.errors() == 0
