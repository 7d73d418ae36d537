"""The test swarm tests/swarm/run.sh made, as the tests drive it: commands on its nodes, services
converging, wrk loads with their counts, the answers of each node's HTTPS port."""
import json
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from settle import settled

HERE = Path(__file__).resolve().parent
STACK = "fox-avatar"
CONVERGE_TIMEOUT = 240


def sh(*cmd, check=True, input=None, timeout=120):
    r = subprocess.run(cmd, capture_output=True, text=True, input=input, timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} -> {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r


@dataclass
class Node:
    container: str   # the node's container on the test host
    host: str        # its hostname: the swarm's node name (n1, n2, n3)
    ip: str          # its address on the test network

    def run(self, *cmd, env=None, check=True, timeout=120):
        e = [f"--env={k}={v}" for k, v in (env or {}).items()]
        return sh("docker", "exec", *e, self.container, *cmd, check=check, timeout=timeout)

    def docker(self, *args, env=None, check=True, timeout=120):
        return self.run("docker", *args, env=env, check=check, timeout=timeout)


class Swarm:
    def __init__(self):
        net = os.environ["SWARM_NET"]
        self.nodes = []
        for c in os.environ["SWARM_NODES"].split():
            ip = sh("docker", "inspect", "-f", f'{{{{(index .NetworkSettings.Networks "{net}").IPAddress}}}}', c).stdout.strip()
            host = sh("docker", "inspect", "-f", "{{.Config.Hostname}}", c).stdout.strip()
            self.nodes.append(Node(c, host, ip))
        self.manager = self.nodes[0]
        self.push = os.environ["SWARM_PUSH"]   # the registry as the test host pushes to it
        self.pull = os.environ["SWARM_PULL"]   # ... and as the nodes pull from it
        self.tmp = Path(os.environ["SWARM_TMP"])

    def node(self, host):
        return next(n for n in self.nodes if n.host == host)

    # ------------------------------------------------------------ services
    def tasks(self, service, node=None):
        """{task name: (node, current state)} of the service's tasks that should be running."""
        out = self.manager.docker("service", "ps", f"{STACK}_{service}", "--filter", "desired-state=running",
                                  "--format", "{{.Name}}\t{{.Node}}\t{{.CurrentState}}").stdout
        return [line.split("\t") for line in out.splitlines() if line.strip()]

    def update_state(self, service):
        return self.manager.docker("service", "inspect", "-f",
                                   "{{if .UpdateStatus}}{{.UpdateStatus.State}}{{end}}",
                                   f"{STACK}_{service}").stdout.strip()

    def wait_converged(self, service, replicas, nodes=None, states=("completed", "", "rollback_completed"),
                       timeout=CONVERGE_TIMEOUT):
        """Until the service has `replicas` tasks running (on `nodes` when given) and its update
        (if any) is in one of `states`; returns that state."""
        deadline = time.monotonic() + timeout
        while True:
            tasks = self.tasks(service)
            running = [t for t in tasks if t[2].startswith("Running")]
            state = self.update_state(service)
            on = {t[1] for t in running}
            if len(running) == replicas == len(tasks) and state in states and (nodes is None or on == set(nodes)):
                return state
            if time.monotonic() > deadline:
                raise AssertionError(f"{service}: not converged in {timeout} s: update {state!r}, tasks {tasks}")
            time.sleep(1)

    def nginx_logs(self, pattern, nodes=None):
        """{node: the lines matching `pattern` (grep -E)} of the logs of every Nginx container,
        current and exited, of these nodes. Nginx writes its access log in buffers (flush=1s,
        nginx/fox-avatar.conf.j2, issue 36): each running Nginx is made to write them out (SIGUSR1, a
        reopen: Nginx is the container's PID 1; an exited one wrote them as it stopped), then the
        logs are read until they stop changing (tools/settle.py)."""
        nodes = nodes or self.nodes
        label = f"label=com.docker.swarm.service.name={STACK}_nginx"

        def flush():
            for n in nodes:
                n.run("sh", "-c", f"for c in $(docker ps -q --filter {label}); do docker kill --signal USR1 $c >/dev/null; done")

        def read():
            return {n.host: n.run("sh", "-c", f"for c in $(docker ps -a -q --filter {label}); do docker logs $c 2>&1; done"
                                  f" | grep -E '{pattern}' || true").stdout.splitlines()
                    for n in nodes}

        return settled(read, flush=flush, what="the Nginx tasks' logs")

    def fallback_answers(self, nodes=None):
        """Access-log lines with fallback=1 (Nginx answered without the sidecar)."""
        return sum(len(lines) for lines in self.nginx_logs(" fallback=1", nodes).values())

    def avatar_answers_other_than_302(self, nodes=None):
        """Access-log lines of the avatar URL whose answer was not a 302 (what a failed load
        check shows: the status, the sidecar's address and its status)."""
        return {h: lines for h, lines in self.nginx_logs('"GET / HTTP/[0-9.]+" [^3]', nodes).items() if lines}


# ---------------------------------------------------------------- HTTPS as a client sees it
NAME = "fox.test"   # the name the test's certificates are for (AVATAR_TLS_NAMES)


def get(ip, path="/", cafile=None, port=443):
    """(status, Location) of GET https://fox.test<path> at that address; verified against cafile
    (else not verified)."""
    tls = ["--cacert", str(cafile)] if cafile else ["-k"]
    r = sh("curl", "-sS", "-o", "/dev/null", "--max-time", "10", *tls, "--resolve", f"{NAME}:{port}:{ip}",
           "-H", "Accept: image/avif,image/webp,*/*", "-w", "%{http_code} %header{location} %{content_type}",
           f"https://{NAME}:{port}{path}", check=False)
    if r.returncode != 0:
        return None, r.stderr.strip(), ""
    status, location, ctype = (r.stdout.split(" ") + ["", ""])[:3]
    return int(status), location, ctype


def served_certificate(ip, port=443):
    """The PEM certificate the node's HTTPS port serves (SNI fox.test)."""
    r = sh("openssl", "s_client", "-connect", f"{ip}:{port}", "-servername", NAME, input="", timeout=20)
    return sh("openssl", "x509", input=r.stdout).stdout


# ---------------------------------------------------------------- load
# the benchmark's wrk script: counts every answer other than a 302; paced, 10 ms between a
# connection's requests (a few hundred requests a second per node on a shared machine)
WRK_LUA = HERE.parents[1] / "bench" / "wrk-report.lua"
RESULT = re.compile(r"^WRKJSON (.*)$", re.M)


class Load:
    """A bounded wrk load on some nodes' HTTPS ports, for as long as the `with` block lasts:
    one wrk per node (2 connections, each paced), stopped with SIGINT, its counts summed:
    requests, not302 (answers other than 302), errors (connect, read, write, timeout)."""

    def __init__(self, nodes, connections=2):
        self.nodes, self.connections, self.procs, self.counts = nodes, connections, [], {}

    def __enter__(self):
        for n in self.nodes:
            self.procs.append((n.host, subprocess.Popen(
                ["wrk", "-t1", f"-c{self.connections}", "-d600s", "--timeout", "10s", "-s", str(WRK_LUA),
                 "-H", "Accept: image/avif,image/webp,*/*", f"https://{n.ip}/?s=64", "--", "count", "delay=10"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
        time.sleep(2)
        return self

    def __exit__(self, *exc):
        time.sleep(2)
        per_node = {}
        for host, p in self.procs:
            p.send_signal(signal.SIGINT)
            out, _ = p.communicate(timeout=30)
            m = RESULT.search(out)
            assert m, f"wrk on {host} printed no result:\n{out}"
            c = json.loads(m.group(1))
            per_node[host] = {k: c[k] for k in ("requests", "not302", "connect", "read", "write", "timeout", "status")}
        self.per_node = per_node
        self.counts = {k: sum(c[k] for c in per_node.values()) for k in next(iter(per_node.values()))}
        return False

    def errors(self, hosts=None):
        return sum(c[k] for h, c in self.per_node.items() if hosts is None or h in hosts
                   for k in ("connect", "read", "write", "timeout"))
