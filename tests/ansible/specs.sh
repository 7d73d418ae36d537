#!/usr/bin/env bash
# make test-ansible-specs (no hosts): ansible-lint's production profile reports nothing, as
# ansible/README.md says to run it; the role's argument spec documents exactly its defaults/main.yml
# (each variable, its default), and ansible-doc shows them; docs/ansible.md's inventories (its YAML
# blocks that start with `all:`, one with the group monitoring) read by ansible-inventory, naming only
# the role's variables, each host's values passing its argument spec (validate_argument_spec, on this
# machine); the collection's tarball builds, with a copy of every file its links name.
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
check "the role's main entry point lists exactly its defaults, with the same values" python - <<'PY'
import sys, yaml
defaults = yaml.safe_load(open("ansible/roles/fox_avatar/defaults/main.yml"))
options = yaml.safe_load(open("ansible/roles/fox_avatar/meta/argument_specs.yml"))["argument_specs"]["main"]["options"]
bad = [f"{n}: defaults/main.yml {defaults.get(n)!r}, spec {options.get(n, {}).get('default')!r}" for n in sorted(set(defaults) | set(options))
       if n not in options or n not in defaults or options[n].get("default") != defaults[n]]
print(*bad, sep="\n")
sys.exit(1 if bad else 0)
PY
ansible-doc -t role -r ansible/roles fox_avatar >"$WORK/doc.txt" 2>&1
missing=$(python -c 'import sys, yaml; print(*yaml.safe_load(open(sys.argv[1])))' ansible/roles/fox_avatar/defaults/main.yml \
  | tr ' ' '\n' | while read -r var; do grep -Eq -- "^(- | +)$var( |\$)" "$WORK/doc.txt" || echo "$var"; done)
check "ansible-doc -t role fox_avatar shows every variable${missing:+ (missing: $missing)}" test -z "$missing"

section "the docs' inventories: docs/ansible.md's YAML blocks that are inventories, as Ansible reads them"
python - "$WORK/inventories" <<'PY' || fail "docs/ansible.md's inventory blocks could not be extracted"
import re, sys
from pathlib import Path
out = Path(sys.argv[1]); out.mkdir()
blocks = re.findall(r"^```yaml\n(all:\n.*?)^```", Path("docs/ansible.md").read_text(), re.S | re.M)
for i, b in enumerate(blocks):
    (out / f"inventory-{i}.yml").write_text(b)
print(f"{len(blocks)} inventories in docs/ansible.md")
# the role's options without their defaults (templates, which the validation would type-check as set)
import yaml
options = yaml.safe_load(Path("ansible/roles/fox_avatar/meta/argument_specs.yml").read_text())["argument_specs"]["main"]["options"]
(out / "fox_avatar.spec.yml").write_text(yaml.safe_dump({k: {a: b for a, b in v.items() if a != "default"} for k, v in options.items()}))
PY
cat >"$WORK/validate.yml" <<'YAML'
# The role's argument spec (its main entry point) against every host's variables, on this machine.
- name: The docs' inventory against the role's argument spec
  hosts: all
  connection: local
  gather_facts: false
  tasks:
    - name: Validate against the role's main entry point
      ansible.builtin.validate_argument_spec:
        argument_spec: "{{ lookup('file', playbook_dir ~ '/inventories/fox_avatar.spec.yml') | from_yaml }}"
YAML
for inv in "$WORK"/inventories/inventory-*.yml; do
  name="docs/ansible.md's $(basename "$inv" .yml)"
  check "$name: ansible-inventory reads it, with no warning" \
    sh -c '! ansible-inventory -i "$1" --list 2>&1 >/dev/null | grep -q .' - "$inv"
  check "$name: every fox_avatar_* variable it sets is the role's option" python - "$inv" <<'PY'
import sys, yaml
from pathlib import Path
known = set(yaml.safe_load(Path("ansible/roles/fox_avatar/meta/argument_specs.yml").read_text())["argument_specs"]["main"]["options"])
def names(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(k, str) and k.startswith("fox_avatar_"):
                yield k
            yield from names(v)
unknown = sorted(set(names(yaml.safe_load(Path(sys.argv[1]).read_text()))) - known)
print("unknown:", unknown) if unknown else None
sys.exit(1 if unknown else 0)
PY
  check "$name: every host's variables pass the role's argument spec" \
    ansible-playbook -i "$inv" "$WORK/validate.yml"
done
if grep -q "^    monitoring:" "$WORK"/inventories/inventory-*.yml; then
  pass "docs/ansible.md shows an inventory with the group monitoring"
else
  fail "docs/ansible.md shows an inventory with the group monitoring"
fi

section "the collection's tarball"
check "ansible-galaxy collection build ansible/" ansible-galaxy collection build ansible/ --output-path "$WORK/dist"
mkdir "$WORK/collection" && tar -xzf "$WORK"/dist/*.tar.gz -C "$WORK/collection"
# ansible-galaxy copies a linked file in and leaves a linked directory out: the shared files are linked
# one by one, and a file added to nginx/fox-avatar/ (the site's includes) needs its link.
check "the tarball has a copy of every file its links name, and of every file of nginx/fox-avatar/" python - "$WORK/collection" <<'PY'
import subprocess, sys
from pathlib import Path
out = Path(sys.argv[1])
links = [line.split("\t")[1] for line in subprocess.run(["git", "ls-files", "-s", "ansible"], capture_output=True, text=True,
                                                         check=True).stdout.splitlines() if line.startswith("120000 ")]
want = {path.removeprefix("ansible/"): Path(path) for path in links if "/molecule/" not in path}
want |= {f"roles/fox_avatar/templates/fox-avatar/{f.name}": f for f in Path("nginx/fox-avatar").iterdir()}
bad = [name for name, src in sorted(want.items()) if not (out / name).is_file() or (out / name).read_bytes() != src.read_bytes()]
print("missing or different:", *bad) if bad else None
sys.exit(1 if bad else 0)
PY

section "summary"
checks_summary tests/ansible/specs.sh
