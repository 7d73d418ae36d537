#!/usr/bin/env bash
# make test-ansible, part 0 (no hosts): the roles' variables are described once, in each role's
# meta/argument_specs.yml, and everything else agrees with that:
#  - every variable of defaults/main.yml has a spec entry (type and description), every spec entry
#    a default, and the defaults are the same in both;
#  - the variable tables in ansible/README.md are the ones tools/ansible_vars.py makes from them;
#  - `ansible-doc -t role` shows every variable of every role;
#  - no role's meta/main.yml or defaults describe the image-name rule that images/names.regex
#    held before it was removed;
#  - ansible-lint's production profile reports nothing on the playbook, the roles and the Molecule
#    scenarios.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
START=$SECONDS
. tests/lib/checks.sh
. tools/venv.sh
export ANSIBLE_NOCOLOR=1 ANSIBLE_DEPRECATION_WARNINGS=false
WORK=$(mktemp -d /tmp/fox-ansible-specs.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

section "argument specs, defaults and the generated tables agree"
check "tools/ansible_vars.py --check: specs match defaults/main.yml, ansible/README.md's tables are current" \
  python tools/ansible_vars.py --check

section "ansible-doc -t role shows every variable of every role"
for dir in ansible/roles/*/; do
  role=$(basename "$dir")
  ansible-doc -t role -r ansible/roles "$role" >"$WORK/$role.txt" 2>&1
  check "$role: ansible-doc -t role runs" test -s "$WORK/$role.txt"
  missing=""
  for var in $(python -c 'import sys, yaml; print(" ".join(yaml.safe_load(open(sys.argv[1])) or {}))' "$dir/defaults/main.yml"); do
    # "- NAME  description" (or "   NAME ..." when ansible-doc colours its output)
    grep -Eq -- "^(- | +)$var( |\$)" "$WORK/$role.txt" || missing+=" $var"
  done
  check "$role: ansible-doc shows all $(grep -c '^fox_' "$dir/defaults/main.yml") variables of defaults/main.yml${missing:+ (missing:$missing)}" \
    test -z "$missing"
done

section "no role describes the removed image-name rule"
check "no meta/main.yml or defaults/main.yml mentions names.regex or an image-name rule" \
  eval "! grep -rEil 'names\.regex|image-name rule' ansible/roles/*/meta ansible/roles/*/defaults"

section "ansible-lint (production profile)"
if (cd ansible && ansible-lint --nocolor site.yml roles/ molecule/ 2>&1) | tee "$WORK/lint.log" | tail -n 5 \
   && grep -q 'Profile .production. was required, and it passed' "$WORK/lint.log"; then
  pass "ansible-lint production profile reports nothing"
else
  fail "ansible-lint production profile reports nothing"
fi

section "summary"
checks_summary tests/ansible/specs.sh
