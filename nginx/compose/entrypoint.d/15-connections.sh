#!/bin/bash
# Nginx's connection side, sized at each start (issue 45; docs/compose.md, "Connections"): written to
# /run/nginx/main.conf (main context) and /run/nginx/events.conf (events), which the image's
# nginx.conf includes in place of Debian's "worker_processes auto;" and "worker_connections 768;"
# (nginx/Dockerfile):
#   worker_processes      the CPUs this container may use: its CPU limit (cgroup v2 cpu.max, v1
#                         cpu.cfs_quota_us / cpu.cfs_period_us) rounded up, at most the CPUs it may
#                         run on (nproc); as the official Nginx image's 30-tune-worker-processes.sh
#   worker_connections    each worker's share of AVATAR_NGINX_CONNECTIONS (the browsers held at once,
#                         all workers together), plus NGINX_OWN_CONNECTIONS for its own connections
#                         to the sidecars and the monitoring listeners. A worker whose connections
#                         are all taken closes its oldest idle keep-alive connections for new ones:
#                         a new visitor is never refused
#   worker_rlimit_nofile  those plus NGINX_OWN_FILES (the image files open_file_cache keeps open,
#                         logs, listeners): at most the container's open-file limit (ulimit -Hn)
# Refused in one line naming AVATAR_NGINX_CONNECTIONS when the container's open-file limit, or its
# memory limit (AVATAR_NGINX_MEMORY) at the measured NGINX_CONNECTION_KIB per idle TLS connection
# plus NGINX_BASE_MIB, cannot hold them: Nginx would fail to open, or the kernel would kill a worker
# with every connection it holds.
# (The figures are nginx/connections.env's, their one owner, which the role fox_avatar_nginx reads too.)
set -euo pipefail
die() { echo "nginx-entrypoint: $*" >&2; exit 2; }

# shellcheck source=nginx/connections.env
. /usr/local/lib/fox-avatar/nginx/connections.env

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
connections=$((share + NGINX_OWN_CONNECTIONS))
files=$((connections + NGINX_OWN_FILES))
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
MiB=$((1 << 20))
need=$((((AVATAR_NGINX_CONNECTIONS * NGINX_CONNECTION_KIB << 10) + MiB - 1) / MiB + NGINX_BASE_MIB))
if ((limit > 0 && need * MiB > limit)); then
  die "AVATAR_NGINX_CONNECTIONS=$AVATAR_NGINX_CONNECTIONS: about $need MiB held at once ($NGINX_CONNECTION_KIB KiB a connection, $NGINX_BASE_MIB MiB more), above this container's memory limit of $((limit / MiB)) MiB (AVATAR_NGINX_MEMORY): raise that, or lower this"
fi

mkdir -p /run/nginx
printf '# Written by nginx/compose/entrypoint.d/15-connections.sh at start.\nworker_processes %d;\nworker_rlimit_nofile %d;\n' \
  "$workers" "$files" >/run/nginx/main.conf
printf '# Written by nginx/compose/entrypoint.d/15-connections.sh at start.\nworker_connections %d;\n' \
  "$connections" >/run/nginx/events.conf
