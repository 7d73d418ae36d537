"""Connections, on the compose stack as shipped (`make bench CONNECTIONS=1`, its own section).

An avatar host is embedded in every page of a forum: each visitor's browser keeps a TLS connection to it
between page views, and a busy site's capacity is its connections as much as its CPU. The stack runs as
docker-compose.yml ships it (its settings' defaults, its memory limits, a private project), both
containers pinned to the server core after start (`docker update --cpuset-cpus`); every client runs on the
load generator's core and talks to the Nginx container's own address (a published port on this host's
loopback would pass Docker's userland proxy, which is the engine's limit, not the stack's).

1. Idle connections held: idle_clients.py opens N connections (HTTPS/1.1, then HTTP/2, then both
   at once), each asking the avatar URL once and staying open; meanwhile a new visitor's 302 and image
   are timed. The Nginx container's memory (docker stats' figure, container_memory.py) before and
   while they are held gives the memory per idle connection; with both at once, each container's
   memory against its compose limit.
2. New TLS connections per second: `openssl s_time` (OpenSSL of this machine), a few processes at
   once for BENCH_DURATION seconds, TLS 1.3 and TLS 1.2, each connection fetching one image Nginx
   serves itself (HTTP/1.0, then closed):
   `-new` (a full handshake each) and `-reuse` (the first session resumed on every later one); its
   per-connection letters say how many were resumed.
3. A returning visitor: Python's ssl, a first connection (one request, its session kept), then a second
   offering that session: resumed or not, for TLS 1.3 (a session ticket) and TLS 1.2 (the template
   sets `ssl_session_cache shared`; tickets too where Nginx rotates their keys itself, 1.23.2 and later).
"""
import json
import os
import re
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import container_memory
from .processes import free_port, log
from .settings import DURATION, ROOT, SERVER_CPU, SMOKE

PROJECT = os.environ.get("BENCH_COMPOSE_PROJECT", "fox-bench-connections")
HELD = int(os.environ.get("BENCH_CONNECTIONS", "500" if SMOKE else "5000"))   # per protocol
NAME = "localhost"   # AVATAR_TLS_NAMES' default: the certificate's name
CLIENTS = Path(__file__).with_name("idle_clients.py")


def compose(*args, env=None, timeout=600):
    done = subprocess.run(["docker", "compose", "-p", PROJECT, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"docker compose {' '.join(args)}: {done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout


class Stack:
    """The compose project, up with the defaults but its published ports (free ones on loopback)."""

    def __init__(self, work):
        self.work = Path(work)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("AVATAR_")}
        self.env.update(COMPOSE_ENV_FILES="/dev/null", AVATAR_HTTPS_PORT=str(free_port()),
                        AVATAR_HTTP_PORT=str(free_port()),
                        EXTRA_CA_CERTS="".join(p.read_text() for p in
                                               sorted(Path("/usr/local/share/ca-certificates").glob("*.crt"))))

    def up(self):
        t = time.monotonic()
        compose("up", "--build", "--wait", "--wait-timeout", "240", env=self.env, timeout=1800)
        log(f"compose project {PROJECT} up in {time.monotonic() - t:.0f} s")
        self.ids = {s: compose("ps", "-q", s, env=self.env).split()[0] for s in ("nginx", "app")}
        for cid in self.ids.values():
            subprocess.run(["docker", "update", f"--cpuset-cpus={SERVER_CPU}", cid], check=True, capture_output=True)
        nets = json.loads(subprocess.run(["docker", "inspect", "-f", "{{json .NetworkSettings.Networks}}",
                                          self.ids["nginx"]], capture_output=True, text=True, check=True).stdout)
        self.addr = next(iter(nets.values()))["IPAddress"]
        self.ca = self.work / "ca.pem"
        self.ca.write_text(compose("exec", "-T", "nginx", "cat", "/etc/nginx/tls/fullchain.pem", env=self.env))
        self.port = 8443   # Nginx's HTTPS port inside its container
        self.nginx = subprocess.run(["docker", "exec", self.ids["nginx"], "nginx", "-v"], capture_output=True,
                                    text=True).stderr.strip().replace("nginx version: ", "")
        self.settings = {k: v for k, v in json.loads(compose("config", "--format", "json", env=self.env))
                         ["services"]["nginx"]["environment"].items()
                         if k in ("AVATAR_NGINX_CONNECTIONS", "AVATAR_KEEPALIVE_TIMEOUT")}

    def restart_nginx(self):
        """A fresh Nginx (its workers' freed memory would be reused by the next connections: each
        measurement starts from a new container process), healthy again within a bounded wait."""
        subprocess.run(["docker", "restart", "-t", "5", self.ids["nginx"]], check=True, capture_output=True, timeout=60)
        end = time.monotonic() + 60
        while subprocess.run(["docker", "inspect", "-f", "{{.State.Health.Status}}", self.ids["nginx"]],
                             capture_output=True, text=True).stdout.strip() != "healthy":
            if time.monotonic() > end:
                raise RuntimeError("the Nginx container was not healthy within 60 s of its restart")
            time.sleep(0.5)

    def memory(self):
        """{service: (in use MiB, limit MiB)} now."""
        return {s: container_memory.mib(cid) for s, cid in self.ids.items()}

    def image_path(self):
        """An image Nginx serves itself: where the avatar URL's 302 points."""
        ctx = ssl.create_default_context(cafile=str(self.ca))
        with socket.create_connection((self.addr, self.port), timeout=10) as s, \
                ctx.wrap_socket(s, server_hostname=NAME) as t:
            t.sendall(f"GET /?s=64 HTTP/1.1\r\nHost: {NAME}\r\nConnection: close\r\n\r\n".encode())
            head = t.recv(4096).decode("latin-1")
        return re.search(r"^location: (\S+)", head, re.I | re.M).group(1)

    def down(self):
        compose("down", "-v", "--remove-orphans", "--timeout", "5", env=self.env)


def held(stack, http2_counts):
    """Idle browsers held at once: one idle_clients.py per protocol (N each, 0 leaves one out); memory
    before and while all are held; each client's JSON."""
    stack.restart_nginx()
    time.sleep(2)   # its start's own allocations done
    before = stack.memory()
    runs, pauses = [], []
    for http2, n in http2_counts:
        if not n:
            continue
        pause = stack.work / f"hold-{len(pauses)}"   # the client holds while this file exists
        pause.touch()
        pauses.append(pause)
        runs.append(subprocess.Popen(
            [sys.executable, str(CLIENTS), "--addr", stack.addr, "--port", str(stack.port), "--host", NAME,
             "--ca", str(stack.ca), "--connections", str(n), "--visitors", "100", "--pause-file", str(pause),
             *(["--http2"] if http2 else [])], stdout=subprocess.PIPE, text=True))
    try:
        got = [json.loads(r.stdout.readline() or "{}") for r in runs]   # each holding everything open
        during = stack.memory()
    finally:
        for p in pauses:
            p.unlink(missing_ok=True)
        for r in runs:
            r.wait(180)
    return {"before": before, "during": during, "clients": got}


def cpu_seconds(cid):
    """The CPU time a container used so far (its cgroup: v1 cpuacct, or v2 cpu.stat), or None."""
    for f, scale in ((f"/sys/fs/cgroup/cpuacct/docker/{cid}/cpuacct.usage", 1e-9),
                     (f"/sys/fs/cgroup/system.slice/docker-{cid}.scope/cpu.stat", 1e-6)):
        if os.path.exists(f):
            text = Path(f).read_text()
            return int(text.split()[1] if text.startswith("usage_usec") else text) * scale
    return None


S_TIME = re.compile(r"(\d+) connections in [0-9.]+ real seconds")
PARALLEL = 4   # s_time processes at once (each one connection at a time)


def s_time(stack, path, version, reuse):
    """PARALLEL openssl s_time processes for DURATION seconds, each connection fetching PATH (a TLS 1.3
    client has its session ticket only once it reads: a handshake alone could not be resumed):
    connections per second (over the wall time measured here: s_time's own is in whole seconds), and
    how many were resumed (s_time prints a letter per connection: r resumed, * a full handshake)."""
    cpu0, t = cpu_seconds(stack.ids["nginx"]), time.monotonic()
    procs = [subprocess.Popen(["openssl", "s_time", "-connect", f"{stack.addr}:{stack.port}", f"-{version}",
                               "-reuse" if reuse else "-new", "-time", str(DURATION), "-www", path],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for _ in range(PARALLEL)]
    outs = [p.communicate(timeout=DURATION + 60)[0] for p in procs]
    wall = time.monotonic() - t
    cpu1 = cpu_seconds(stack.ids["nginx"])
    total = resumed = full = 0
    for out in outs:
        m = S_TIME.search(out)
        if not m:
            raise RuntimeError(f"openssl s_time: no result:\n{out[-1500:]}")
        total += int(m[1])
        timed = out.rsplit("starting", 1)[-1]   # -reuse: after its first connection, which took the session
        letters = "".join(line for line in timed.splitlines() if line and set(line) <= set("*r"))
        resumed, full = resumed + letters.count("r"), full + letters.count("*")
    return {"connections": total, "seconds": round(wall, 2), "per_s": total / wall, "resumed": resumed,
            "full": full, "parallel": PARALLEL,
            "nginx_cpu": round((cpu1 - cpu0) / wall, 3) if cpu0 is not None and cpu1 is not None else None}


def returning(stack, version):
    """A returning visitor: a second connection offering the first one's session; resumed or not."""
    ctx = ssl.create_default_context(cafile=str(stack.ca))
    ctx.minimum_version = ctx.maximum_version = version

    def visit(session=None):
        with socket.create_connection((stack.addr, stack.port), timeout=10) as s, \
                ctx.wrap_socket(s, server_hostname=NAME, session=session) as t:
            t.sendall(f"GET /?s=64 HTTP/1.1\r\nHost: {NAME}\r\nConnection: close\r\n\r\n".encode())
            while t.recv(65536):   # to the end: TLS 1.3's tickets come after the handshake
                pass
            return t.session, t.session_reused

    first, _ = visit()
    _, reused = visit(first)
    return {"resumed": reused, "ticket": bool(first and first.has_ticket)}


def run(ws, m):
    work = Path(tempfile.mkdtemp(prefix="fox-bench-connections-"))
    stack = Stack(work)
    try:
        stack.up()
        log(f"Nginx container {stack.addr}:{stack.port}, {stack.nginx}; {stack.settings}")
        res = {"machine": m, "mode": "smoke" if SMOKE else "full", "connections": HELD, "duration_s": DURATION,
               "nginx": stack.nginx, "settings": stack.settings, "idle": {}}
        for key, counts in (("http1", [(False, HELD)]), ("http2", [(True, HELD)]),
                            ("both", [(False, HELD), (True, HELD)])):
            res["idle"][key] = held(stack, counts)
            got = res["idle"][key]
            log(f"idle {key}: nginx {got['before']['nginx'][0]:.1f} -> {got['during']['nginx'][0]:.1f} MiB; "
                + "; ".join(f"{c.get('opened')} opened, {c.get('failed')} failed" for c in got["clients"]))
        res["image_path"] = path = stack.image_path()
        res["s_time"] = {}
        for version in ("tls1_3", "tls1_2"):
            for reuse in (False, True):
                k = f"{version}-{'reuse' if reuse else 'new'}"
                res["s_time"][k] = s_time(stack, path, version, reuse)
                log(f"s_time {k}: {res['s_time'][k]}")
        res["returning"] = {"TLSv1.3": returning(stack, ssl.TLSVersion.TLSv1_3),
                            "TLSv1.2": returning(stack, ssl.TLSVersion.TLSv1_2)}
        log(f"returning visitor: {res['returning']}")
        m["loadavg_end"] = Path("/proc/loadavg").read_text().split()[0]
        return res
    finally:
        stack.down()


# ---------------------------------------------------------------- the section


# The stack's settings a run records, in words: a setting's name may outlive neither the run nor the
# page (compose's Nginx once took its connection limit from the environment; it is fixed now).
SETTING_WORDS = {"AVATAR_KEEPALIVE_TIMEOUT": "keep-alive timeout (s)",
                 "AVATAR_NGINX_CONNECTIONS": "connection limit"}


def section(res):
    from .sections import fmt_int, generated_by, machine_line
    n = res["connections"]
    idle = res["idle"]

    def per_conn(key, count):
        got = idle[key]
        return (got["during"]["nginx"][0] - got["before"]["nginx"][0]) * 1024 / count

    def client_line(c):
        return (f"{fmt_int(c.get('opened'))} held, {c.get('failed')} failed, {c.get('newest_answered')} of "
                f"{c.get('returning_of')} newest answering again; a new visitor's p50 / p99 "
                f"{c['visitor_p50'] * 1000:.0f} / {c['visitor_p99'] * 1000:.0f} ms")

    s = res["settings"]
    lines = [generated_by("make bench CONNECTIONS=1", res), "", f"Machine: {machine_line(res['machine'])}.", "",
             f"The compose stack as shipped on the run's date ({res['nginx']}; "
             + "".join(f"{SETTING_WORDS.get(k, f'`{k}`')} {v}, " for k, v in sorted(s.items()))
             + f"a memory limit of {idle['both']['during']['nginx'][1]:.0f} MiB), both containers pinned to the server "
             f"core; the clients on the load generator's core, to the Nginx container's address. Memory: docker "
             f"stats' figure (usage less inactive file pages), before and while the connections are held.", "",
             "| Idle connections held | Nginx MiB before | while held | KiB per connection | clients |",
             "|---|--:|--:|--:|---|"]
    for key, label, count in (("http1", "HTTPS/1.1", n), ("http2", "HTTP/2", n), ("both", "both at once", 2 * n)):
        got = idle[key]
        lines.append(f"| {fmt_int(count)} {label} | {got['before']['nginx'][0]:.1f} | {got['during']['nginx'][0]:.1f} "
                     f"| {per_conn(key, count):.1f} | " + "; ".join(
                         ((("HTTP/2" if c.get("http2") else "HTTPS/1.1") + ": ") if len(got["clients"]) > 1 else "")
                         + client_line(c) for c in got["clients"]) + " |")
    both = idle["both"]
    lines += ["", f"Compose's memory limits with {fmt_int(2 * n)} idle connections held and new visitors served:", "",
              "| Container | idle MiB | under that load MiB | limit MiB |", "|---|--:|--:|--:|"]
    for svc in ("nginx", "app"):
        lines.append(f"| {svc} | {both['before'][svc][0]:.1f} | {both['during'][svc][0]:.1f} | {both['during'][svc][1]:.0f} |")
    st = res["s_time"]
    par = next(iter(st.values()))["parallel"]
    lines += ["", f"New TLS connections per second (`openssl s_time`, {par} processes at once, each one connection "
              f"at a time: a handshake, `GET {res['image_path']}` (HTTP/1.0: an image Nginx serves itself) and a close; "
              f"{res['duration_s']} s each; Nginx CPU: its container's CPU time over the run, of the one server core "
              f"it is pinned to: below 100 % the clients set the pace, not Nginx; per core: the rate over that share, what a "
              f"whole core would do at that cost):", "",
              "| | full handshakes /s | Nginx CPU | per core | resumed sessions /s | Nginx CPU | per core | of which resumed |",
              "|---|--:|--:|--:|--:|--:|--:|--:|"]
    def cpu(run):   # of the one server core; below 100 % the clients, not Nginx, set the pace
        return "–" if run.get("nginx_cpu") is None else f"{run['nginx_cpu']:.0%}"

    def core(run):   # what a whole core would do at that cost: the rate over the CPU share
        return "–" if not run.get("nginx_cpu") else f"~{fmt_int(round(run['per_s'] / run['nginx_cpu'], -2))}"

    for version, label in (("tls1_3", "TLS 1.3"), ("tls1_2", "TLS 1.2")):
        new, reuse = st[f"{version}-new"], st[f"{version}-reuse"]
        done = reuse["resumed"] + reuse["full"]
        lines.append(f"| {label} | {fmt_int(new['per_s'])} | {cpu(new)} | {core(new)} | {fmt_int(reuse['per_s'])} | "
                     f"{cpu(reuse)} | {core(reuse)} | {reuse['resumed']:,} of {done:,} |")
    ret = res["returning"]
    lines += ["", "A returning visitor (a new connection offering the session of its first): " + "; ".join(
        f"{v}: {'resumed' if r['resumed'] else '**not resumed**'}" + (" (a session ticket)" if r["ticket"] else "")
        for v, r in sorted(ret.items(), reverse=True)) + "."]   # TLS 1.3 first, as saved (sorted keys) or not
    return "\n".join(lines)
