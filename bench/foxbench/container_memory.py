"""A container's memory as `docker stats` counts it (usage less inactive file pages), read from its
memory cgroup: docker.io 20.10's own stats read nothing on this kernel's cgroup v1 ("no metrics
received").

    python3 bench/foxbench/container_memory.py CONTAINER   prints "12.3MiB / 384MiB (cgroup)"
    container_memory.mib(container_id)              (in use, limit) in MiB, or None without a cgroup
"""
import os
import subprocess
import sys

CGROUPS = ("/sys/fs/cgroup/memory/docker/{}", "/sys/fs/cgroup/system.slice/docker-{}.scope")


def mib(container_id):
    """(in use, limit) of the container's memory cgroup in MiB (the full ID), or None when neither
    layout (cgroup v1, v2 under systemd) has it."""
    for pattern in CGROUPS:
        d = pattern.format(container_id)
        if not os.path.isdir(d):
            continue
        with open(f"{d}/memory.stat", encoding="ascii") as f:
            stat = dict(line.split() for line in f)
        if os.path.exists(f"{d}/memory.usage_in_bytes"):
            use, limit = (int(open(f"{d}/memory.{n}", encoding="ascii").read())
                          for n in ("usage_in_bytes", "limit_in_bytes"))
            inactive = int(stat.get("total_inactive_file", 0))
        else:
            use = int(open(f"{d}/memory.current", encoding="ascii").read())
            raw = open(f"{d}/memory.max", encoding="ascii").read().strip()
            limit = 1 << 62 if raw == "max" else int(raw)
            inactive = int(stat.get("inactive_file", 0))
        return (use - inactive) / 1048576, limit / 1048576
    return None


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    cid = subprocess.run(["docker", "inspect", "-f", "{{.Id}}", argv[0]], capture_output=True,
                         text=True, check=True).stdout.strip()
    got = mib(cid)
    if got is None:
        print(f"container_memory.py: no memory cgroup for {argv[0]}", file=sys.stderr)
        return 1
    print(f"{got[0]:.1f}MiB / {got[1]:.0f}MiB (cgroup)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
