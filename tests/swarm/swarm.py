"""The swarm tests/swarm/run.sh made, as the tests drive it: its nodes, the services converging, the
answers of each node's ports, and a load of visitors on them."""
import os
import subprocess
import threading
import time
from dataclasses import dataclass

import requests
from settle import until

STACK = "fox-avatar"


def sh(*cmd, check=True, input=None, timeout=180, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, input=input, timeout=timeout, env=env)
    if check and r.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} -> {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r


@dataclass
class Node:
    container: str
    host: str   # the swarm's node name: n1, n2, n3
    ip: str     # its address on the test network

    def docker(self, *args, env=None, check=True):
        flags = [f"--env={k}={v}" for k, v in (env or {}).items()]
        return sh("docker", "exec", *flags, self.container, "docker", *args, check=check)

    def task(self, service):
        """The node's running container of the service."""
        out = self.docker("ps", "-q", "--filter", f"label=com.docker.swarm.service.name={STACK}_{service}").stdout
        return out.split()[0]


class Swarm:
    def __init__(self):
        net = os.environ["SWARM_NET"]
        self.net, self.push = net, os.environ["SWARM_PUSH"]
        self.nodes = []
        for c in os.environ["SWARM_NODES"].split():
            info = sh("docker", "inspect", "-f", f'{{{{.Config.Hostname}}}} {{{{(index .NetworkSettings.Networks "{net}").IPAddress}}}} {{{{.State.Pid}}}}', c).stdout.split()
            self.nodes.append(Node(c, info[0], info[1]))
            if len(self.nodes) == 1:
                # the manager's engine, for a docker CLI on this machine (the pages' blocks)
                self.docker_host = f"unix:///proc/{info[2]}/root/run/docker.sock"   # /var/run links to /run
        self.manager = self.nodes[0]

    def tasks(self, service):
        """[(node, state)] of the service's tasks that should be running."""
        out = self.manager.docker("service", "ps", f"{STACK}_{service}", "--filter", "desired-state=running",
                                  "--format", "{{.Node}}\t{{.CurrentState}}").stdout
        return [tuple(line.split("\t")) for line in out.splitlines() if line.strip()]

    def wait_converged(self, service, replicas, timeout=240):
        def converged():
            tasks = self.tasks(service)
            state = self.manager.docker("service", "inspect", "-f", "{{if .UpdateStatus}}{{.UpdateStatus.State}}{{end}}",
                                        f"{STACK}_{service}").stdout.strip()
            ok = len(tasks) == replicas and all(s.startswith("Running") for _, s in tasks) and state in ("", "completed")
            return ok and sorted(n for n, _ in tasks)
        return until(converged, f"{service} converged to {replicas} running tasks", timeout, 1)


def avatar(ip, port=443, path="/?s=64"):
    """(status, Location) of GET https://IP/?s=64 (or path) on a new connection (each node's own certificate)."""
    r = requests.get(f"https://{ip}:{port}{path}", verify=False, allow_redirects=False, timeout=10)
    return r.status_code, r.headers.get("Location")


def served_certificate(ip, name):
    out = sh("openssl", "s_client", "-connect", f"{ip}:443", "-servername", name, input="", timeout=20).stdout
    return sh("openssl", "x509", input=out).stdout


class Load:
    """Visitors asking every node for an avatar, one after another on new connections, while the
    `with` block lasts: answers other than a 302, and failed connections."""

    def __init__(self, nodes):
        self.nodes, self.done, self.requests, self.bad = nodes, threading.Event(), 0, []
        self.threads = [threading.Thread(target=self.visit, args=(n,), daemon=True) for n in nodes]

    def visit(self, node):
        while not self.done.is_set():
            try:
                status, location = avatar(node.ip)
                if status != 302 or not location.startswith("/a/"):
                    self.bad.append((node.host, status, location))
            except requests.RequestException as e:
                self.bad.append((node.host, repr(e)))
            self.requests += 1
            time.sleep(0.02)

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        after = self.requests     # visitors keep asking until every node has answered again
        until(lambda: self.requests >= after + 3 * len(self.nodes), "answers after the change", 30)
        self.done.set()
        for t in self.threads:
            t.join(15)
