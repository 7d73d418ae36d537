# Sourced by tests/ansible/molecule.sh: ansible_prerequisites (the venv, the jar, a Docker engine,
# Ansible's settings), die MESSAGE; and tools/apt.sh, tools/docker.sh, tests/lib/checks.sh.
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
  docker_engine_ready || die "no Docker engine"
  export ANSIBLE_CONFIG=$ROOT/ansible/ansible.cfg ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_DEPRECATION_WARNINGS=false
  ansible-playbook --version 2>/dev/null | awk 'NR == 1'
}
