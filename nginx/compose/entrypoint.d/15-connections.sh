#!/bin/bash
# Nginx's connection side, sized at each start (issue 45; docs/compose.md, "Connections"): written to
# /run/nginx/main.conf (main context) and /run/nginx/events.conf (events), which the image's
# nginx.conf includes in place of Debian's "worker_processes auto;" and "worker_connections 768;"
# (nginx/Dockerfile):
#   worker_processes      the CPUs this container may use: its CPU limit (cgroup v2 cpu.max, v1
#                         cpu.cfs_quota_us / cpu.cfs_period_us) rounded up, at most the CPUs it may
#                         run on (nproc); as the official Nginx image's 30-tune-worker-processes.sh
#   worker_connections    each worker's share of AVATAR_NGINX_CONNECTIONS (the browsers held at once,
#                         all workers together), plus 256 for its own connections to the sidecars and
#                         the monitoring listeners. A worker whose connections are all taken closes its
#                         oldest idle keep-alive connections for new ones: a new visitor is never refused
#   worker_rlimit_nofile  those plus 1,024 (the image files open_file_cache keeps open, logs,
#                         listeners): at most the container's open-file limit (ulimit -Hn)
# Refused in one line naming AVATAR_NGINX_CONNECTIONS when the container's open-file limit, or its
# memory limit (AVATAR_NGINX_MEMORY) at the measured 26 KiB per idle TLS connection plus 32 MiB,
# cannot hold them: Nginx would fail to open, or the kernel would kill a worker with every
# connection it holds.
set -euo pipefail
die() { echo "nginx-entrypoint: $*" >&2; exit 2; }

PER_CONNECTION_KIB=26 BASE_MIB=32 OWN_CONNECTIONS=256 OWN_FILES=1024

workers=$(nproc)
quota=0
if [[ -r /sys/fs/cgroup/cpu.max ]]; then
  read -r q p </sys/fs/cgroup/cpu.max
  [[ $q != max ]] && quota=$(((q + p - 1) / p))
elif [[ -r /sys/fs/cgroup/cpu/cpu.cfs_quota_us && -r /sys/fs/cgroup/cpu/cpu.cfs_period_us ]]; then
  q=$(</sys/fs/cgroup/cpu/cpu.cfs_quota_us) p=$(</sys/fs/cgroup/cpu/cpu.cfs_period_us)
  ((q > 0)) && quota=$(((q + p - 1) / p))
fi
((quota > 0 && quota < workers)) && workers=$quota

share=$(((AVATAR_NGINX_CONNECTIONS + workers - 1) / workers))
connections=$((share + OWN_CONNECTIONS))
files=$((connections + OWN_FILES))
hard=$(ulimit -Hn)
if [[ $hard != unlimited ]] && ((files > hard)); then
  die "AVATAR_NGINX_CONNECTIONS=$AVATAR_NGINX_CONNECTIONS: each of the $workers workers needs $files open files, above this container's open-file limit of $hard (ulimit -Hn): lower the setting, or raise the limit (compose's ulimits)"
fi

limit=0
if [[ -r /sys/fs/cgroup/memory.max ]]; then
  v=$(</sys/fs/cgroup/memory.max)
  [[ $v != max ]] && limit=$v
elif [[ -r /sys/fs/cgroup/memory/memory.limit_in_bytes ]]; then
  v=$(</sys/fs/cgroup/memory/memory.limit_in_bytes)
  ((v < 1 << 60)) && limit=$v
fi
need=$(((AVATAR_NGINX_CONNECTIONS * PER_CONNECTION_KIB + 1023) / 1024 + BASE_MIB))
if ((limit > 0 && need * 1048576 > limit)); then
  die "AVATAR_NGINX_CONNECTIONS=$AVATAR_NGINX_CONNECTIONS: about $need MiB held at once ($PER_CONNECTION_KIB KiB a connection, $BASE_MIB MiB more), above this container's memory limit of $((limit / 1048576)) MiB (AVATAR_NGINX_MEMORY): raise that, or lower this"
fi

mkdir -p /run/nginx
printf '# Written by nginx/compose/entrypoint.d/15-connections.sh at start.\nworker_processes %d;\nworker_rlimit_nofile %d;\n' \
  "$workers" "$files" >/run/nginx/main.conf
printf '# Written by nginx/compose/entrypoint.d/15-connections.sh at start.\nworker_connections %d;\n' \
  "$connections" >/run/nginx/events.conf
