#!/usr/bin/env bash
# make test-ansible: the Molecule scenarios (ansible/molecule/*), each `molecule test -s NAME`
# from ansible/ on the local systemd images (tools/docker.sh; nothing is pulled), side by side
# (each has its own hosts). Today: preflight (the pre-flight cases against a fresh Debian 13 host).
# Settings: FOX_MOLECULE_PREFIX names the containers (default foxmol).
. "$(dirname "$0")/lib.sh"
SCENARIOS=(${MOLECULE_SCENARIOS:-preflight})

section "prerequisites"
ansible_prerequisites
unset APT_PROXY
systemd_image_ready trixie || die "no trixie systemd image"
# No colour in the logs.
export NO_COLOR=1 PY_COLORS=0
molecule --version 2>/dev/null | head -n 1
WORK=$(mktemp -d /tmp/fox-molecule.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

pids=()
for s in "${SCENARIOS[@]}"; do
  (cd ansible && t=$SECONDS && molecule test -s "$s" >"$WORK/$s.log" 2>&1; rc=$?
   echo "molecule test -s $s: exit $rc, $((SECONDS - t)) s" >>"$WORK/$s.log"; exit $rc) & pids+=($!)
done
for i in "${!SCENARIOS[@]}"; do
  s=${SCENARIOS[$i]}
  wait "${pids[$i]}"; rc=$?
  section "molecule scenario $s"
  # each case's outcome (the asserts' messages), the recap and the verdict
  grep -E '"msg": |^(ok|fatal|failed):.*=> *$|^PLAY RECAP|^[a-z0-9-]+ +: ok=|^molecule test' "$WORK/$s.log" | tail -n 60
  if [ "$rc" = 0 ]; then pass "molecule test -s $s"; else fail "molecule test -s $s (log below)"; tail -n 80 "$WORK/$s.log"; fi
done

section "summary"
checks_summary tests/ansible/molecule.sh
