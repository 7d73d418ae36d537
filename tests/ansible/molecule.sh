#!/usr/bin/env bash
# make test-molecule: the playbook's Molecule scenarios (ansible/molecule/*), each `molecule test`
# from ansible/ on the local systemd images (tools/docker.sh; nothing is pulled):
#   split      a proxy and two app hosts, the certificate from Pebble, a rolling upgrade under light load
#   beside     a Debian 12 server in use, the collection installed from its tarball as docs/ansible.md
#              says, monitoring, several settings changed in one run, a --check --diff preview
#   fresh      docs/ansible.md's first block as written onto a fresh Debian 13 server over SSH, then
#              docs/behind-a-proxy.md's Ansible block (Debian's Caddy in front)
#   preflight  wrong settings refused before any host changes
# At most MOLECULE_PARALLEL (2) at once, started in the order of MOLECULE_SCENARIOS (default above).
# FOX_MOLECULE_PREFIX names the containers and networks (default foxmol); MOLECULE_KEEP=1 keeps the
# hosts and files of a failed run.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
START=$SECONDS
. tools/apt.sh
. tools/docker.sh
. tests/lib/checks.sh
die() { echo "$0: $*" >&2; exit 1; }
RUNS=(${MOLECULE_SCENARIOS:-split beside fresh preflight})
PARALLEL=${MOLECULE_PARALLEL:-2}
[[ $PARALLEL =~ ^[1-9][0-9]*$ ]] || die "MOLECULE_PARALLEL: '$PARALLEL' is not a positive number"

section "prerequisites"
apt_need openssl curl
. tools/venv.sh
command -v ansible-playbook >/dev/null || die "ansible-playbook missing after venv setup"
[ -f app/target/avatar.jar ] || make -s build || die "make build failed"
docker_engine_ready || die "no Docker engine"
export ANSIBLE_CONFIG=$ROOT/ansible/ansible.cfg ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_DEPRECATION_WARNINGS=false
ansible-playbook --version 2>/dev/null | awk 'NR == 1'
for suite in bookworm trixie; do systemd_image_ready "$suite" || die "no $suite systemd image"; done
trixie_client_ready >/dev/null || die "no Debian 13 client image (tools/docker.sh trixie_client_ready)"
FOX_PEBBLE_BIN=$(pebble_ready) || die "Pebble could not be installed (tools/docker.sh pebble_ready)"
FOX_PEBBLE_CERTS=$(pebble_certs_dir) || die "Pebble's test certificates not found"
export FOX_PEBBLE_BIN FOX_PEBBLE_CERTS NO_COLOR=1 PY_COLORS=0
molecule --version 2>/dev/null | head -n 1
# The fox set's keyed identities beside it, as `make identities` leaves them, for split, beside and
# preflight (fresh's checkout draws its own: docs/ansible.md's block runs `make identities`).
python3 images/identities.py images || die "images/identities.py images failed"
WORK=$(mktemp -d /tmp/fox-molecule.XXXXXX)
[ -n "${MOLECULE_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT

run_one() { # SCENARIO -> $WORK/SCENARIO.log, its exit code in $WORK/SCENARIO.rc
  local t=$SECONDS rc
  mkdir -p "$WORK/$1.eph"
  (cd ansible && MOLECULE_EPHEMERAL_DIRECTORY="$WORK/$1.eph" molecule test -s "$1" ${MOLECULE_KEEP:+--destroy never}) >"$WORK/$1.log" 2>&1
  rc=$?
  echo "$rc" >"$WORK/$1.rc"
  echo "molecule test -s $1: exit $rc, $((SECONDS - t)) s" | tee -a "$WORK/$1.log"
}

section "molecule test: ${RUNS[*]}, at most $PARALLEL at once"
for run in "${RUNS[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$PARALLEL" ]; do wait -n; done
  echo "$(date +%T) start: $run"
  run_one "$run" &
done
wait

for run in "${RUNS[@]}"; do
  section "molecule: $run"
  grep -E '^(PASSED|FAILED|ERROR) |::test_|passed|failed|: exit [0-9]+, [0-9]+ s$|rolling upgrade:|docblocks:|^molecule test' "$WORK/$run.log" | tail -n 60
  if [ "$(cat "$WORK/$run.rc" 2>/dev/null)" = 0 ]; then
    pass "molecule test: $run"
  else
    fail "molecule test: $run (the end of its log below; whole log $WORK/$run.log)"
    tail -n 120 "$WORK/$run.log"
  fi
done

section "summary"
checks_summary tests/ansible/molecule.sh
