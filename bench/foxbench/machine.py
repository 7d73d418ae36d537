"""The machine a run is made on: CPU, memory, OS, kernel, virtualisation, the versions of the servers and
of the load generator, the load average at the start and the cores used. Collected, not rendered
(report.machine_line renders it)."""
import datetime
import os
import platform
import re
import shutil
import subprocess
from pathlib import Path

from .settings import CLIENT_CPU, SERVER_CPU


def tool_version(argv, pattern=None):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=20)
        out = (r.stdout + r.stderr).strip()
    except (OSError, subprocess.TimeoutExpired):
        return "n/a"
    if pattern:
        m = re.search(pattern, out)
        return m.group(1) if m else out.splitlines()[0]
    return out.splitlines()[0] if out else "n/a"


def php_fpm_bin():
    for p in sorted(Path("/usr/sbin").glob("php-fpm*")):
        return str(p)
    return None


def describe():
    cpu = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem_gb = int(Path("/proc/meminfo").read_text().split()[1]) / 1024 / 1024
    osname = "Linux"
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                osname = line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    php = php_fpm_bin()
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu, "cpus": os.cpu_count(), "mem_gb": round(mem_gb, 1), "os": osname,
        "kernel": platform.release(),
        "virt": tool_version(["systemd-detect-virt"]) if shutil.which("systemd-detect-virt") else "n/a",
        "java": tool_version(["java", "-version"], r'version "([^"]+)"'),
        "nginx": tool_version(["nginx", "-v"], r"nginx/(\S+)"),
        "php": tool_version([php, "-v"], r"PHP (\S+)") if php else "not installed",
        "wrk": tool_version(["wrk", "-v"], r"wrk (\S+)"),
        "loadavg_start": Path("/proc/loadavg").read_text().split()[0],
        "server_cpu": SERVER_CPU, "client_cpu": CLIENT_CPU,
    }
