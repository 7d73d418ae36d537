"""Server processes: free ports, starting them pinned to the server core, stopping them, and what /proc
says about a process tree (memory, threads, CPU time); the plain-HTTP probe and the wait for the first 302."""
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from .settings import HOST, SERVER_CPU, TLS_NAME


def log(*a):
    print("bench:", *a, file=sys.stderr, flush=True)


def die(msg):
    log("ERROR:", msg)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def pin_server():
    os.sched_setaffinity(0, {SERVER_CPU})


def spawn(argv, logfile, env=None, cwd=None):
    """Start a server process pinned to the server core, in its own process group."""
    out = open(logfile, "ab")
    return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=env, cwd=cwd, preexec_fn=pin_server, start_new_session=True)


def stop(proc, sig=signal.SIGTERM, timeout=15):
    if proc is None or proc.poll() is not None:
        return
    try:
        proc.send_signal(sig)
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def children_map():
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = Path(f"/proc/{d}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(d))
    return kids


def tree(pids):
    """The given pids and all their descendants (nginx master + workers, php-fpm master + children)."""
    kids, out, todo = children_map(), [], list(pids)
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def pin_tree(pids):
    """Pin running processes and every one of their threads to the server core."""
    for p in tree(pids):
        subprocess.run(["taskset", "-a", "-p", "-c", str(SERVER_CPU), str(p)], capture_output=True, check=True)


def rollup_kb(pids, *fields):
    """Sums of smaps_rollup's fields (kB) over the processes, in the order asked."""
    sums = dict.fromkeys(fields, 0)
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                name = line.split(":", 1)[0]
                if name in sums:
                    sums[name] += int(line.split()[1])
        except OSError:
            pass
    return tuple(sums[f] for f in fields)


def memory_kb(pids):
    """RSS and PSS, kB."""
    return rollup_kb(pids, "Rss", "Pss")


def anonymous_kb(pids):
    """Private anonymous memory (smaps_rollup's Anonymous): the part of RSS no file backs, which a container's
    memory limit cannot reclaim by dropping pages and reading them again."""
    return rollup_kb(pids, "Anonymous")[0]


def threads(pids):
    n = 0
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("Threads:"):
                    n += int(line.split()[1])
        except OSError:
            pass
    return n


def cpu_seconds(pids):
    t = 0
    for p in pids:
        try:
            f = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            t += int(f[11]) + int(f[12])
        except OSError:
            pass
    return t / os.sysconf("SC_CLK_TCK")


def http_status(port, path="/", timeout=2.0):
    """One plain HTTP/1.1 request; the status code, or None when nothing answers yet."""
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: {TLS_NAME}\r\nConnection: close\r\n\r\n".encode())
            head = s.recv(64)
        m = re.match(rb"HTTP/1\.[01] (\d{3})", head)
        return int(m.group(1)) if m else None
    except OSError:
        return None


def wait_302(port, procs, t0, deadline_s=20.0):
    """Tight poll (0.5 ms apart) until GET / answers 302; seconds since t0. Bounded by deadline_s."""
    end = t0 + deadline_s
    while time.monotonic() < end:
        if http_status(port, timeout=1.0) == 302:
            return time.monotonic() - t0
        for p in procs:
            if p.poll() is not None:
                raise RuntimeError(f"{p.args[0]} exited with {p.returncode} before answering")
        time.sleep(0.0005)
    raise RuntimeError(f"no 302 on port {port} within {deadline_s} s")
