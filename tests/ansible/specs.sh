#!/usr/bin/env bash
# make test-ansible-specs (no hosts): ansible-lint's production profile reports nothing, as
# ansible/README.md says to run it; every role's argument spec documents exactly its defaults/main.yml
# (each variable, its default), and ansible-doc shows them; the collection's tarball builds, and its
# copy of images/identities.py names the same drawing as the repository's.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
START=$SECONDS
. tests/lib/checks.sh
. tools/venv.sh
export ANSIBLE_NOCOLOR=1 ANSIBLE_DEPRECATION_WARNINGS=false
WORK=$(mktemp -d /tmp/fox-ansible-specs.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

section "ansible-lint (production profile): cd ansible && ansible-lint"
if (unset $(compgen -e | grep '^ANSIBLE_'); cd ansible && ansible-lint 2>&1) | tee "$WORK/lint.log" | tail -n 5 \
   && grep -q "Profile 'production' was required, and it passed" "$WORK/lint.log"; then
  pass "ansible-lint: the production profile reports nothing"
else
  fail "ansible-lint: the production profile reports nothing"
fi

section "argument specs: every variable of defaults/main.yml, with its default"
check "each role's main entry point lists exactly its defaults, with the same values" python - <<'PY'
import sys, yaml
from pathlib import Path
bad = []
for role in sorted(Path("ansible/roles").iterdir()):
    defaults = yaml.safe_load((role / "defaults/main.yml").read_text()) or {}
    options = yaml.safe_load((role / "meta/argument_specs.yml").read_text())["argument_specs"]["main"]["options"]
    for name in sorted(set(defaults) | set(options)):
        if name not in options or name not in defaults or options[name].get("default") != defaults[name]:
            bad.append(f"{role.name}: {name}: defaults/main.yml {defaults.get(name)!r}, spec {options.get(name, {}).get('default')!r}")
print(*bad, sep="\n")
sys.exit(1 if bad else 0)
PY
for dir in ansible/roles/*/; do
  role=$(basename "$dir")
  ansible-doc -t role -r ansible/roles "$role" >"$WORK/$role.txt" 2>&1
  missing=$(python -c 'import sys, yaml; print(*yaml.safe_load(open(sys.argv[1])) or {})' "$dir/defaults/main.yml" \
    | tr ' ' '\n' | while read -r var; do grep -Eq -- "^(- | +)$var( |\$)" "$WORK/$role.txt" || echo "$var"; done)
  check "ansible-doc -t role $role shows every variable${missing:+ (missing: $missing)}" test -z "$missing"
done

section "the collection's tarball"
check "ansible-galaxy collection build ansible/" ansible-galaxy collection build ansible/ --output-path "$WORK/dist"
mkdir "$WORK/collection" && tar -xzf "$WORK"/dist/*.tar.gz -C "$WORK/collection"
drawing=$(python3 images/identities.py --describe)
check "the collection's copy of images/identities.py draws the repository's drawing (${drawing%%:*})" \
  test "$(python3 "$WORK/collection/roles/fox_avatar_images/files/identities/identities.py" --describe)" = "$drawing"

section "summary"
checks_summary tests/ansible/specs.sh
