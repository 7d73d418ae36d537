"""Nginx's connection sizing (nginx/connections.env, its one owner), read for the tests and the bench.

    connections.read()                  {NAME: int} from nginx/connections.env
    connections.per_worker(total, workers)  (worker_connections, worker_rlimit_nofile) as
                                        15-connections.sh and fox_avatar_nginx write them

connections.env is NAME=NUMBER lines and comment lines (shell sources it, Ansible's ini lookup reads
it); anything else is refused with one line naming the fault.
"""
import re
from pathlib import Path

OWNER = Path(__file__).resolve().parents[1] / "nginx/connections.env"
NAMES = {"NGINX_OWN_CONNECTIONS", "NGINX_OWN_FILES", "NGINX_CONNECTION_KIB", "NGINX_BASE_MIB"}
_LINE = re.compile(r"([A-Z][A-Z0-9_]*)=([0-9]+)")


def read(path=OWNER):
    values = {}
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        match = _LINE.fullmatch(line)
        if not match or match[1] in values:
            raise ValueError(f"{path}:{number}: not a NAME=NUMBER line (each name once): {line!r}")
        values[match[1]] = int(match[2])
    if set(values) != NAMES:
        raise ValueError(f"{path}: holds {sorted(values)}, wants {sorted(NAMES)}")
    return values


def per_worker(total, workers, values=None):
    """Each worker's worker_connections and worker_rlimit_nofile for TOTAL browsers on WORKERS workers."""
    values = read() if values is None else values
    connections = -(-total // workers) + values["NGINX_OWN_CONNECTIONS"]
    return connections, connections + values["NGINX_OWN_FILES"]
