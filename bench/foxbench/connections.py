"""`make bench CONNECTIONS=1` (the method is section()'s text). The clients talk to the Nginx container's own
address: a published port would pass Docker's userland proxy."""
import asyncio
import json
import multiprocessing
import os
import re
import socket
import ssl
import subprocess
import tempfile
import time
from pathlib import Path

from settle import until

from .common import DURATION, ROOT, SERVER_CPU, SMOKE, cgroup_memory, free_port, loadavg, log, med
from .report import fmt_int, head

PROJECT = "fox-bench-connections"
HELD = int(os.environ.get("BENCH_CONNECTIONS", "500" if SMOKE else "5000"))   # per protocol
NAME = "localhost"   # AVATAR_TLS_NAMES' default: the certificate's name
RETURNING, VISITORS, BATCH, TIMEOUT = 200, 100, 200, 20


class Client:
    """One TLS connection, HTTP/1.1 keep-alive or HTTP/2 (the h2 library's state machine)."""

    async def open(self, addr, port, ctx, http2):
        self.reader, self.writer = await asyncio.wait_for(
            asyncio.open_connection(addr, port, ssl=ctx, server_hostname=NAME), TIMEOUT)
        self.h2 = None
        if http2:
            import h2.connection
            import h2.config
            self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
            self.h2.initiate_connection()
            self.writer.write(self.h2.data_to_send())
        return self

    async def get(self, path):
        """(status, headers) of one GET."""
        if not self.h2:
            self.writer.write(f"GET {path} HTTP/1.1\r\nHost: {NAME}\r\nAccept: image/avif,image/webp,*/*\r\n\r\n".encode())
            lines = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:] if x)}
            await self.reader.readexactly(int(headers.get("content-length", "0")))
            return int(lines[0].split(" ")[1]), headers
        import h2.events
        sid = self.h2.get_next_available_stream_id()
        self.h2.send_headers(sid, [(":method", "GET"), (":scheme", "https"), (":authority", NAME), (":path", path),
                                   ("accept", "image/avif,image/webp,*/*")], end_stream=True)
        headers = {}
        while True:
            self.writer.write(self.h2.data_to_send())
            data = await self.reader.read(65536)
            if not data:
                raise ConnectionError("closed")
            for ev in self.h2.receive_data(data):
                if isinstance(ev, h2.events.ResponseReceived) and ev.stream_id == sid:
                    headers = {k.decode(): v.decode() for k, v in ev.headers}
                elif isinstance(ev, h2.events.DataReceived):
                    self.h2.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                elif isinstance(ev, h2.events.StreamEnded) and ev.stream_id == sid:
                    self.writer.write(self.h2.data_to_send())
                    return int(headers[":status"]), headers
                elif isinstance(ev, h2.events.ConnectionTerminated):
                    raise ConnectionError("GOAWAY")


FAILED = (OSError, asyncio.TimeoutError, ssl.SSLError, asyncio.IncompleteReadError)


async def browsers(addr, port, ca, http2, n, pipe):
    """N idle browsers, then the newest asking again and new visitors timed; the figures go to the pipe, and
    everything stays open until the parent answers (it measures memory meanwhile)."""
    ctx = ssl.create_default_context(cafile=ca)
    ctx.set_alpn_protocols(["h2"] if http2 else ["http/1.1"])
    conns, failed = [], 0

    async def ask(c, path):
        try:
            return (await asyncio.wait_for(c.get(path), TIMEOUT))[0] == 302
        except FAILED:
            return False

    async def idle():
        nonlocal failed
        try:
            c = await Client().open(addr, port, ctx, http2)
            failed += (await asyncio.wait_for(c.get("/?s=64"), TIMEOUT))[0] != 302
            conns.append(c)
        except FAILED:
            failed += 1

    async def visitor():
        t = time.monotonic()
        try:
            c = await Client().open(addr, port, ctx, http2)
            status, headers = await asyncio.wait_for(c.get("/?s=64"), TIMEOUT)
            ok = status == 302 and (await asyncio.wait_for(c.get(headers.get("location", "/")), TIMEOUT))[0] == 200
            c.writer.close()
            return time.monotonic() - t if ok else None
        except FAILED:
            return None

    for start in range(0, n, BATCH):
        await asyncio.gather(*(idle() for _ in range(min(BATCH, n - start))))
    newest = conns[-RETURNING:]
    answered = sum(await asyncio.gather(*(ask(c, "/?s=64&again=1") for c in newest)))
    times = sorted(t for t in [await visitor() for _ in range(VISITORS)] if t is not None)
    pipe.send({"http2": http2, "opened": len(conns), "failed": failed, "newest_answered": answered,
               "returning_of": len(newest),
               "visitor_p50": med(times),
               "visitor_p99": times[min(len(times) - 1, int(len(times) * 0.99))] if times else None})
    await asyncio.get_running_loop().run_in_executor(None, pipe.poll, 180)


def compose(*args, env, timeout=600):
    done = subprocess.run(["docker", "compose", "-p", PROJECT, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"docker compose {' '.join(args)}: {done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout


def container_mib(cid):
    """(in use, limit) of a container's memory in MiB, as docker stats counts it (usage less inactive files)."""
    mem = cgroup_memory(int(subprocess.run(["docker", "inspect", "-f", "{{.State.Pid}}", cid], capture_output=True,
                                           text=True, check=True).stdout))
    return (mem["charged"] - mem["inactive"]) / 2**20, mem["limit"] / 2**20


def container_cpu_s(cid):
    for f, scale in ((f"/sys/fs/cgroup/cpuacct/docker/{cid}/cpuacct.usage", 1e-9),
                     (f"/sys/fs/cgroup/system.slice/docker-{cid}.scope/cpu.stat", 1e-6)):
        if os.path.exists(f):
            text = Path(f).read_text()
            return int(text.split()[1] if text.startswith("usage_usec") else text) * scale
    return None


class Stack:
    """The compose project, up with its defaults but its published ports (free ones on loopback)."""

    def __init__(self, work):
        self.work = work
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("AVATAR_")}
        self.env.update(COMPOSE_ENV_FILES="/dev/null", AVATAR_HTTPS_PORT=str(free_port()), AVATAR_HTTP_PORT=str(free_port()),
                        EXTRA_CA_CERTS="".join(p.read_text() for p in sorted(Path("/usr/local/share/ca-certificates").glob("*.crt"))))

    def up(self):
        compose("up", "--build", "--wait", "--wait-timeout", "240", env=self.env, timeout=1800)
        self.ids = {s: compose("ps", "-q", s, env=self.env).split()[0] for s in ("nginx", "app")}
        for cid in self.ids.values():
            subprocess.run(["docker", "update", f"--cpuset-cpus={SERVER_CPU}", cid], check=True, capture_output=True)
        nets = json.loads(subprocess.run(["docker", "inspect", "-f", "{{json .NetworkSettings.Networks}}", self.ids["nginx"]],
                                         capture_output=True, text=True, check=True).stdout)
        self.addr, self.port, self.ca = next(iter(nets.values()))["IPAddress"], 8443, self.work / "ca.pem"
        self.ca.write_text(compose("exec", "-T", "nginx", "cat", "/etc/nginx/tls/fullchain.pem", env=self.env))
        self.nginx = subprocess.run(["docker", "exec", self.ids["nginx"], "nginx", "-v"], capture_output=True,
                                    text=True).stderr.strip().replace("nginx version: ", "")
        self.settings = {k: v for k, v in json.loads(compose("config", "--format", "json", env=self.env))
                         ["services"]["nginx"]["environment"].items()
                         if k in ("AVATAR_NGINX_CONNECTIONS", "AVATAR_KEEPALIVE_TIMEOUT")}

    def held(self, counts):
        """Idle browsers held at once, a client process per (http2, n); memory before and while held."""
        # a fresh Nginx: its workers' freed memory would be reused by the next connections
        subprocess.run(["docker", "restart", "-t", "5", self.ids["nginx"]], check=True, capture_output=True, timeout=60)
        until(lambda: subprocess.run(["docker", "inspect", "-f", "{{.State.Health.Status}}", self.ids["nginx"]],
                                     capture_output=True, text=True).stdout.strip() == "healthy",
              "the Nginx container healthy after its restart", timeout=60, step=0.5)
        time.sleep(2)   # its start's own allocations done
        memory = lambda: {s: container_mib(cid) for s, cid in self.ids.items()}  # noqa: E731
        before, ctx, runs = memory(), multiprocessing.get_context("fork"), []
        for http2, n in counts:
            mine, theirs = ctx.Pipe()
            p = ctx.Process(target=lambda *a: asyncio.run(browsers(*a)), args=(self.addr, self.port, str(self.ca), http2, n, theirs))
            p.start()
            runs.append((p, mine))
        try:
            got = [pipe.recv() if pipe.poll(600) else {} for _, pipe in runs]   # each holding everything open
            during = memory()
        finally:
            for p, pipe in runs:
                pipe.send("done")
                p.join(180)
        return {"before": before, "during": during, "clients": got}

    def get(self, path, ctx=None, session=None):
        """One connection asking one path; (headers, session, whether it was resumed)."""
        ctx = ctx or ssl.create_default_context(cafile=str(self.ca))
        with socket.create_connection((self.addr, self.port), timeout=10) as s, \
                ctx.wrap_socket(s, server_hostname=NAME, session=session) as t:
            t.sendall(f"GET {path} HTTP/1.1\r\nHost: {NAME}\r\nConnection: close\r\n\r\n".encode())
            data = b""
            while chunk := t.recv(65536):   # to the end: TLS 1.3's tickets come after the handshake
                data += chunk
            return data.split(b"\r\n\r\n")[0].decode("latin-1"), t.session, t.session_reused

    def s_time(self, path, version, reuse, parallel=4):
        """Parallel openssl s_time processes fetching path: connections per second (over the wall time), how
        many were resumed (a letter per connection: r resumed, * full), Nginx's CPU share."""
        cpu0, t = container_cpu_s(self.ids["nginx"]), time.monotonic()
        procs = [subprocess.Popen(["openssl", "s_time", "-connect", f"{self.addr}:{self.port}", f"-{version}",
                                   "-reuse" if reuse else "-new", "-time", str(DURATION), "-www", path],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for _ in range(parallel)]
        outs = [p.communicate(timeout=DURATION + 60)[0] for p in procs]
        wall, cpu1 = time.monotonic() - t, container_cpu_s(self.ids["nginx"])
        total = resumed = full = 0
        for out in outs:
            if not (m := re.search(r"(\d+) connections in [0-9.]+ real seconds", out)):
                raise RuntimeError(f"openssl s_time: no result:\n{out[-1500:]}")
            total += int(m[1])
            # -reuse: after its first connection, which took the session
            letters = "".join(x for x in out.rsplit("starting", 1)[-1].splitlines() if x and set(x) <= set("*r"))
            resumed, full = resumed + letters.count("r"), full + letters.count("*")
        return {"connections": total, "seconds": round(wall, 2), "per_s": total / wall, "resumed": resumed,
                "full": full, "parallel": parallel,
                "nginx_cpu": round((cpu1 - cpu0) / wall, 3) if cpu0 is not None and cpu1 is not None else None}


def run(ws, m):
    stack = Stack(Path(tempfile.mkdtemp(prefix="fox-bench-connections-")))
    try:
        stack.up()
        log(f"Nginx container {stack.addr}:{stack.port}, {stack.nginx}; {stack.settings}")
        res = {"machine": m, "mode": "smoke" if SMOKE else "full", "connections": HELD, "duration_s": DURATION,
               "nginx": stack.nginx, "settings": stack.settings, "idle": {}, "s_time": {}}
        for key, counts in (("http1", [(False, HELD)]), ("http2", [(True, HELD)]), ("both", [(False, HELD), (True, HELD)])):
            got = res["idle"][key] = stack.held(counts)
            log(f"idle {key}: nginx {got['before']['nginx'][0]:.1f} -> {got['during']['nginx'][0]:.1f} MiB; {got['clients']}")
        res["image_path"] = path = re.search(r"^location: (\S+)", stack.get("/?s=64")[0], re.I | re.M).group(1)
        for version in ("tls1_3", "tls1_2"):
            for reuse in (False, True):
                k = f"{version}-{'reuse' if reuse else 'new'}"
                res["s_time"][k] = stack.s_time(path, version, reuse)
                log(f"s_time {k}: {res['s_time'][k]}")
        res["returning"] = {}
        for name, version in (("TLSv1.3", ssl.TLSVersion.TLSv1_3), ("TLSv1.2", ssl.TLSVersion.TLSv1_2)):
            ctx = ssl.create_default_context(cafile=str(stack.ca))   # a session resumes in its own context
            ctx.minimum_version = ctx.maximum_version = version
            _, first, _ = stack.get("/?s=64", ctx)
            res["returning"][name] = {"resumed": stack.get("/?s=64", ctx, first)[2],
                                      "ticket": bool(first and first.has_ticket)}
        log(f"returning visitor: {res['returning']}")
        m["loadavg_end"] = loadavg()
        return res
    finally:
        compose("down", "-v", "--remove-orphans", "--timeout", "5", env=stack.env)


SETTING_WORDS = {"AVATAR_KEEPALIVE_TIMEOUT": "keep-alive timeout (s)", "AVATAR_NGINX_CONNECTIONS": "connection limit"}


def section(res):
    n, idle, st = res["connections"], res["idle"], res["s_time"]

    def client_line(c):
        return (f"{fmt_int(c.get('opened'))} held, {c.get('failed')} failed, {c.get('newest_answered')} of "
                f"{c.get('returning_of')} newest answering again; a new visitor's p50 / p99 "
                f"{c['visitor_p50'] * 1000:.0f} / {c['visitor_p99'] * 1000:.0f} ms")

    lines = head(res, "make bench CONNECTIONS=1") + [
        f"The compose stack as shipped on the run's date ({res['nginx']}; "
        + "".join(f"{SETTING_WORDS.get(k, f'`{k}`')} {v}, " for k, v in sorted(res["settings"].items()))
        + f"a memory limit of {idle['both']['during']['nginx'][1]:.0f} MiB), both containers pinned to the server "
        f"core; the clients on the load generator's core, to the Nginx container's address. Memory: docker "
        f"stats' figure (usage less inactive file pages), before and while the connections are held.", "",
        "| Idle connections held | Nginx MiB before | while held | KiB per connection | clients |", "|---|--:|--:|--:|---|"]
    for key, label, count in (("http1", "HTTPS/1.1", n), ("http2", "HTTP/2", n), ("both", "both at once", 2 * n)):
        got = idle[key]
        lines.append(f"| {fmt_int(count)} {label} | {got['before']['nginx'][0]:.1f} | {got['during']['nginx'][0]:.1f} "
                     f"| {(got['during']['nginx'][0] - got['before']['nginx'][0]) * 1024 / count:.1f} | " + "; ".join(
                         (("HTTP/2: " if c.get("http2") else "HTTPS/1.1: ") if len(got["clients"]) > 1 else "")
                         + client_line(c) for c in got["clients"]) + " |")
    lines += ["", f"Compose's memory limits with {fmt_int(2 * n)} idle connections held and new visitors served:", "",
              "| Container | idle MiB | under that load MiB | limit MiB |", "|---|--:|--:|--:|"]
    lines += [f"| {s} | {idle['both']['before'][s][0]:.1f} | {idle['both']['during'][s][0]:.1f} | "
              f"{idle['both']['during'][s][1]:.0f} |" for s in ("nginx", "app")]
    lines += ["", f"New TLS connections per second (`openssl s_time`, {next(iter(st.values()))['parallel']} processes at "
              f"once, each one connection at a time: a handshake, `GET {res['image_path']}` (HTTP/1.0: an image Nginx "
              f"serves itself) and a close; {res['duration_s']} s each; Nginx CPU: its container's CPU time over the run, "
              f"of the one server core it is pinned to: below 100 % the clients set the pace, not Nginx; per core: the "
              f"rate over that share, what a whole core would do at that cost):", "",
              "| | full handshakes /s | Nginx CPU | per core | resumed sessions /s | Nginx CPU | per core | of which resumed |",
              "|---|--:|--:|--:|--:|--:|--:|--:|"]

    def cpu(run):
        return ("–", "–") if not run.get("nginx_cpu") else (f"{run['nginx_cpu']:.0%}", f"~{fmt_int(round(run['per_s'] / run['nginx_cpu'], -2))}")

    for version, label in (("tls1_3", "TLS 1.3"), ("tls1_2", "TLS 1.2")):
        new, reuse = st[f"{version}-new"], st[f"{version}-reuse"]
        lines.append(f"| {label} | {fmt_int(new['per_s'])} | {' | '.join(cpu(new))} | {fmt_int(reuse['per_s'])} | "
                     f"{' | '.join(cpu(reuse))} | {reuse['resumed']:,} of {reuse['resumed'] + reuse['full']:,} |")
    return "\n".join(lines + ["", "A returning visitor (a new connection offering the session of its first): " + "; ".join(
        f"{v}: {'resumed' if r['resumed'] else '**not resumed**'}" + (" (a session ticket)" if r["ticket"] else "")
        for v, r in sorted(res["returning"].items(), reverse=True)) + "."])
