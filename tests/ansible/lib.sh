# Sourced by tests/ansible/run.sh and tests/ansible/acme.sh: what the two Ansible scenarios share.
#   ansible_prerequisites            tools, the venv (ansible-playbook), the jar, a Docker engine,
#                                    Ansible's settings (ansible/ansible.cfg, no colour)
#   hosts_cleanup KEEP NET DIR NAME...  (for the EXIT trap) remove the containers, the network and
#                                    DIR, unless KEEP is set; exits with the script's status
#   playbook INVENTORY LOG [args...] ansible-playbook site.yml; its exit code in LOG.rc
#   ran_clean LOG, ran_unchanged LOG exit 0, failed=0 unreachable=0 (and changed=0) everywhere
#   show_log TITLE LOG               what changed or failed, any certificate request, the recap
#   stack_suite LOG SITE ADDR CA PROXY APP...  the shared HTTP suite (tests/stack,
#                                    AVATAR_STACK=external) over HTTPS against ADDR as SITE
#   nginx_pid HOST                   Nginx's master PID on HOST
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
START=$SECONDS

. tools/apt.sh
. tools/docker.sh
. tests/lib/checks.sh
die() { echo "$0: $*" >&2; exit 1; }

ansible_prerequisites() {
  apt_need openssl curl
  . tools/venv.sh
  command -v ansible-playbook >/dev/null || die "ansible-playbook missing after venv setup"
  [ -f app/target/avatar.jar ] || make -s build || die "make build failed"
  ls images/*.png >/dev/null 2>&1 || die "no images in images/ (make images)"
  docker_engine_ready || die "no Docker engine"
  export ANSIBLE_CONFIG=$ROOT/ansible/ansible.cfg ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 \
         ANSIBLE_DEPRECATION_WARNINGS=false
  ansible-playbook --version 2>/dev/null | awk 'NR == 1'
}

hosts_cleanup() { # KEEP NET DIR NAME...
  local rc=$? keep=$1 net=$2 dir=$3; shift 3
  if [ -n "$keep" ]; then
    echo "kept (debugging): containers $*, network $net, work dir $dir"
  else
    systemd_host_rm "$@"
    docker network ls -q --filter "name=^$net\$" | xargs -r docker network rm >/dev/null 2>&1 || true
    rm -rf "$dir"
  fi
  exit "$rc"
}

playbook() { # INVENTORY LOG [ansible-playbook args...]
  local inv=$1 log=$2 t=$SECONDS; shift 2
  (cd ansible && ansible-playbook -i "$inv" site.yml "$@") >"$log" 2>&1
  echo $? >"$log.rc"
  echo "ansible-playbook $(basename "$log" .log): $((SECONDS - t)) s"
}
ran_clean() { # LOG
  [ "$(cat "$1.rc" 2>/dev/null)" = 0 ] && recap "$1" | grep -q ok= \
    && ! recap "$1" | grep -Eq 'unreachable=[1-9]|failed=[1-9]'
}
ran_unchanged() { ran_clean "$1" && ! recap "$1" | grep -Eq 'changed=[1-9]'; }
show_log() { # TITLE LOG
  echo "--- $1 (exit $(cat "$2.rc" 2>/dev/null); full log: $2)"
  ansible_log_excerpt "$2" 60
  grep -A2 'Say why a certificate was requested' "$2" | grep -o 'Requested .*' || true
  sed -n '/^PLAY RECAP/,$p' "$2"
}

stack_suite() { # LOG SITE ADDR CA PROXY APP...
  local app stop="" start=""
  for app in "${@:6}"; do
    stop+="docker exec $app systemctl stop fox-avatar && "
    start+="docker exec $app systemctl start fox-avatar && "
  done
  AVATAR_STACK=external AVATAR_HOST=$2 AVATAR_ADDR=$3 AVATAR_HTTPS_PORT=443 AVATAR_HTTP_PORT=80 \
    AVATAR_CA=$4 \
    AVATAR_APP_STOP="${stop}true" \
    AVATAR_APP_START="${start}true" \
    AVATAR_FALLBACK_LOG_CMD="docker exec $5 cat /var/log/nginx/fox-avatar.fallback.log" \
    python -m pytest -q -rfEs -p no:cacheprovider tests/stack 2>&1 | tee "$1" | tail -n 15
  [ "${PIPESTATUS[0]}" = 0 ]
}

nginx_pid() { docker exec "$1" systemctl show -p MainPID --value nginx; }
