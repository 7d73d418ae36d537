#!/usr/bin/env bash
# make test-ansible, part 0 (no hosts): the roles' variables are described once, in each role's
# meta/argument_specs.yml, and everything else agrees with that:
#  - every variable of defaults/main.yml has a spec entry (type and description), every spec entry
#    a default, and the defaults are the same in both;
#  - the variable tables in ansible/README.md are the ones tools/ansible_vars.py makes from them;
#  - `ansible-doc -t role` shows every variable of every role;
#  - `ansible-doc -t filter` documents every filter of plugins/filter/*.py (plugins/filter/NAME.yml);
#  - fox_avatar_common's tasks/ship.yml (its plan: the filter fox_avatar.deploy.ship_plan) ships a
#    directory to this machine as it should (tests/ansible/ship/*.yml, connection local);
#  - no link in ansible/ loops back into it (collections/, beside it, finds the collection);
#  - every role's vars/main.yml holds constants (no Jinja), and no handler is a set_fact;
#  - each role writes only its own files (tests/ansible/writers.py): only fox_avatar_tls's tasks and
#    templates write the certificate and key Nginx reads, only fox_avatar_images ships the image
#    directory; a copy of the roles with a second writer of each is refused, naming it;
#  - no role's meta/main.yml or defaults describe the image-name rule that images/names.regex
#    held before it was removed;
#  - the collection's tarball (ansible-galaxy collection build ansible/) carries a copy of each file
#    the roles link to outside ansible/ (nginx/, monitoring/, app/jvm.options), equal to its source;
#  - galaxy.yml declares the collections the roles use besides ansible.builtin, and they suffice: the
#    tarball, installed beside only those (copied from the `ansible` package's bundle), runs
#    fox_avatar_tls here; left out one by one, the install and the run fail naming it;
#  - the collection's inventory filters give the pool and the scrape targets a real inventory asks
#    for, nginx_host reads nginx -T as Nginx does (tests/ansible/nginx_host_filter.yml), and a role
#    in a playbook of your own runs its pre-flight checks itself;
#  - ansible-lint's production profile reports nothing on the collection (galaxy.yml, the playbook,
#    the roles and the Molecule scenarios), run as ansible/README.md says: `cd ansible && ansible-lint`.
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

section "ansible-doc -t filter documents every filter the collection exports"
# The filters each plugins/filter/*.py exports (its FilterModule, imported as Ansible would, through
# collections/); each needs plugins/filter/NAME.yml, without which ansible-doc has nothing to show.
mkdir -p "$WORK/home"
filter_doc() { HOME="$WORK/home" ANSIBLE_COLLECTIONS_PATH="$ROOT/collections" ansible-doc -t filter "$@"; }
filters=$(python - <<'PY'
import importlib, sys
from pathlib import Path
sys.path.insert(0, "collections")
for py in sorted(Path("ansible/plugins/filter").glob("*.py")):
    mod = importlib.import_module(f"ansible_collections.fox_avatar.deploy.plugins.filter.{py.stem}")
    print(*sorted(mod.FilterModule().filters()))
PY
)
check "plugins/filter/*.py import, and export filters ($(echo $filters | wc -w): $(echo $filters))" test $? -eq 0 -a -n "$filters"
filter_doc -l fox_avatar.deploy >"$WORK/filters.txt" 2>&1
for name in $filters; do
  check "ansible-doc -t filter -l fox_avatar.deploy lists $name, not UNDOCUMENTED" \
    eval "grep -Eq '^fox_avatar\.deploy\.$name +' '$WORK/filters.txt' && no_match -Eq '^fox_avatar\.deploy\.$name +UNDOCUMENTED' '$WORK/filters.txt'"
  filter_doc "fox_avatar.deploy.$name" >"$WORK/$name.filter.txt" 2>&1
  check "ansible-doc -t filter fox_avatar.deploy.$name shows its description, examples and return value" \
    eval "grep -q '^> FILTER fox_avatar.deploy.$name ' '$WORK/$name.filter.txt' && grep -q '^EXAMPLES:' '$WORK/$name.filter.txt' && grep -q '^RETURN VALUES:' '$WORK/$name.filter.txt'"
done

section "fox_avatar_common's ship.yml ships a directory to this machine (tests/ansible/ship/)"
# Its real tasks through the collection (collections/), connection local, a directory of $WORK as
# src and dest (the files are root's 0644 there: this runs as root, as the Molecule layer does).
for book in ship_check_mode.yml ship_cases.yml; do
  opts=(); [ "$book" = ship_check_mode.yml ] && opts=(--check)
  mkdir -p "$WORK/${book%.yml}"
  if HOME="$WORK/home" ANSIBLE_COLLECTIONS_PATH="$ROOT/collections" ansible-playbook "${opts[@]}" \
       -i localhost, -e work="$WORK/${book%.yml}" "tests/ansible/ship/$book" >"$WORK/$book.log" 2>&1; then
    pass "ansible-playbook ${opts[*]}${opts:+ }tests/ansible/ship/$book: every case, checks: $(grep -c '^TASK \[Check' "$WORK/$book.log")"
  else
    grep -E '^(TASK \[|fatal|failed)|"msg"|evaluated_to|assertion' "$WORK/$book.log" | tail -n 12
    fail "ansible-playbook ${opts[*]}${opts:+ }tests/ansible/ship/$book (the end of its log above)"
  fi
done

section "no role describes the removed image-name rule"
check "no meta/main.yml or defaults/main.yml mentions names.regex or an image-name rule" \
  no_match -rEil 'names\.regex|image-name rule' ansible/roles/*/meta ansible/roles/*/defaults

section "vars/main.yml holds constants, handlers act"
# ansible/README.md ("Roles"): what follows a setting or a task's result is a task's fact or vars,
# never a role var computed behind the tasks' back; a handler restarts, reloads or checks, it does
# not leave a note for the tasks to act on.
check "no role's vars/main.yml computes (no Jinja in roles/*/vars/main.yml)" \
  no_match -nE '\{\{|\{%' ansible/roles/*/vars/main.yml
check "no role's handler only sets a fact (ansible.builtin.set_fact in roles/*/handlers/main.yml)" \
  no_match -n 'set_fact' ansible/roles/*/handlers/main.yml

section "each role writes only its own files (tests/ansible/writers.py)"
# ansible/README.md ("Roles"): fox_avatar_acme asks, fox_avatar_tls writes the certificate and key
# (its entry point install.yml, its install script); fox_avatar_images alone ships the image set,
# which fox_avatar_app and fox_avatar_nginx only read.
check "only fox_avatar_tls writes the TLS paths, only fox_avatar_images ships the image directory" \
  python tests/ansible/writers.py ansible/roles
# ... and the check can fail: a copy of the roles where fox_avatar_acme writes the certificate again
# and fox_avatar_nginx ships the set again.
cp -rL ansible/roles "$WORK/roles-two-writers"   # -L: the links into nginx/, monitoring/, app/ as files
cat >>"$WORK/roles-two-writers/fox_avatar_acme/tasks/certificate.yml" <<'YAML'

- name: Copy the certificate where Nginx reads it (a second writer)
  ansible.builtin.copy:
    src: /etc/letsencrypt/live/fox-avatar/fullchain.pem
    dest: "{{ fox_avatar_tls_cert_path }}"
    remote_src: true
    mode: "0644"
YAML
cat >>"$WORK/roles-two-writers/fox_avatar_nginx/tasks/acme_root.yml" <<'YAML'

- name: Ship the image set (a second shipper)
  ansible.builtin.include_role:
    name: fox_avatar.deploy.fox_avatar_common
    tasks_from: ship.yml
  vars:
    fox_avatar_common_ship_src: "{{ fox_avatar_images_src }}"
    fox_avatar_common_ship_files: manifest
    fox_avatar_common_ship_dest: /srv/images
YAML
# Two more, each through what a top-level, direct-name scan misses: fox_avatar_monitoring writing
# through its own variable whose default is the certificate's path, in a task file one directory
# down, and fox_avatar_app with a script template one directory down that writes the key.
mkdir -p "$WORK/roles-two-writers/fox_avatar_monitoring/tasks/extra" "$WORK/roles-two-writers/fox_avatar_app/templates/extra"
cat >"$WORK/roles-two-writers/fox_avatar_monitoring/tasks/extra/ca.yml" <<'YAML'
- name: Refresh the probe's CA (a writer through a variable)
  ansible.builtin.copy:
    src: ca.pem
    dest: "{{ fox_avatar_monitoring_probe_ca_file }}"
    mode: "0644"
YAML
printf 'cp /tmp/key.pem {{ fox_avatar_tls_key_path }}\n' >"$WORK/roles-two-writers/fox_avatar_app/templates/extra/key.sh.j2"
python tests/ansible/writers.py "$WORK/roles-two-writers" >"$WORK/writers.log" 2>&1
check "... a second writer of each is refused, naming fox_avatar_acme's task and fox_avatar_nginx's" \
  eval "grep -q '^fox_avatar_acme: .*a second writer): writes under the TLS directory' '$WORK/writers.log' \
    && grep -q '^fox_avatar_nginx: .*a second shipper): ships an image set' '$WORK/writers.log'"
check "... and one through a variable whose default is the TLS path, in tasks/extra/, and a templates/extra/ script" \
  eval "grep -q '^fox_avatar_monitoring: fox_avatar_monitoring/tasks/extra/ca.yml: .*(a writer through a variable): writes under the TLS directory' '$WORK/writers.log' \
    && grep -q '^fox_avatar_app: fox_avatar_app/templates/extra/key.sh.j2: a template that names the TLS paths' '$WORK/writers.log'"

section "the collection never contains itself"
# From this checkout the playbook, ansible-lint and these tests find fox_avatar.deploy through the
# repository's collections/ (ansible/ansible.cfg), a link beside ansible/: a link inside ansible/ to
# ansible/ or above would be a loop for every tool that walks the tree.
check "no link in ansible/ points at ansible/ or a directory above it; collections/ finds fox_avatar.deploy" \
  python - <<'PY'
import os, sys
from pathlib import Path
root = Path("ansible").resolve()
loops = [os.path.join(d, n) for d, dirs, files in os.walk("ansible") for n in dirs + files
         if os.path.islink(os.path.join(d, n)) and root.is_relative_to(Path(d, n).resolve())]
print(*loops, sep="\n")
linked = Path("collections/ansible_collections/fox_avatar/deploy").resolve() == root
sys.exit(1 if loops or not linked else 0)
PY

section "the collection's tarball carries the repository's files (ansible-galaxy collection build)"
# The roles carry the files every deployment shares (nginx/, monitoring/, app/jvm.options) as links
# into the repository (one copy); the build puts each link's target into the tarball.
if ansible-galaxy collection build ansible/ --output-path "$WORK/dist" >"$WORK/build.log" 2>&1; then
  pass "ansible-galaxy collection build ansible/"
  check "every link of ansible/ to a file outside it is a file in the tarball, equal to its source" \
    python - "$WORK"/dist/fox_avatar-deploy-*.tar.gz <<'PY'
import sys, tarfile
from pathlib import Path
root = Path("ansible").resolve()
tar = tarfile.open(sys.argv[1])
bad, n = [], 0
for link in sorted(Path("ansible").rglob("*")):
    if not link.is_symlink() or "molecule" in link.parts:
        continue
    target = link.resolve()
    if target.is_relative_to(root):
        continue
    n += 1
    name = str(link.relative_to("ansible"))
    try:
        member = tar.getmember(name)
    except KeyError:
        bad.append(f"{name}: not in the tarball"); continue
    if not member.isfile() or tar.extractfile(member).read() != target.read_bytes():
        bad.append(f"{name}: not a copy of {target}")
print(f"{n} links checked", *bad, sep="\n")
sys.exit(1 if bad or n == 0 else 0)
PY
  # a file added to nginx/fox-avatar/ (or removed) without its link would be missing from releases
  check "roles/fox_avatar_nginx/files/fox-avatar/ links every file of nginx/fox-avatar/, and nothing else" \
    diff <(cd nginx/fox-avatar && ls) <(cd ansible/roles/fox_avatar_nginx/files/fox-avatar && ls)
else
  cat "$WORK/build.log"
  fail "ansible-galaxy collection build ansible/"
fi

section "the installed collection: the tarball beside only what galaxy.yml declares (no Galaxy)"
# galaxy.yml's dependencies are exactly the collections the roles, the playbook and the plugins call
# (a task's module, a filter, a lookup: every ns.coll.NAME besides ansible.builtin)...
declared=$(python tests/ansible/collection/dependencies.py --declared ansible)
check "galaxy.yml's dependencies ($(echo $declared)) are the collections the roles, the playbook and the plugins use besides ansible.builtin" \
  python tests/ansible/collection/dependencies.py ansible
# ... and they are enough: an empty collections path (nothing else found: not this Python's
# ansible_collections, nor ~/.ansible), the declared collections copied from the `ansible`
# package's bundle, then the tarball installed --offline (ansible-galaxy checks the declared ranges
# against those copies; it never asks Galaxy). fox_avatar_tls, run from there on this machine
# (tests/ansible/collection/tls_selfsigned.yml), makes its certificate with community.crypto. Each
# declared collection left out, the same install fails, and with --no-deps the same run fails naming
# it: the declaration is needed, and this test can fail.
apt_need python3-cryptography python3-apt   # Debian's Python runs the modules, as on a server
bundle=$(python -c 'import ansible_collections as c; print(*[p for p in c.__path__ if "site-packages" in p][:1])')
tarball=$(ls "$WORK"/dist/fox_avatar-deploy-*.tar.gz 2>/dev/null)
isolated() { # PATH CMD...: CMD with PATH as the only collections path
  ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false ANSIBLE_COLLECTIONS_PATH="$1" HOME="$WORK/home" "${@:2}"
}
installed() { # NAME LEFT_OUT INSTALL_OPTS...: $WORK/NAME/collections, the declared but LEFT_OUT, then the tarball
  local name=$1 left_out=$2 dep; shift 2
  mkdir -p "$WORK/$name/collections/ansible_collections"
  for dep in $declared; do
    [ "$dep" = "$left_out" ] && continue
    mkdir -p "$WORK/$name/collections/ansible_collections/${dep%%.*}"
    cp -r "$bundle/${dep%%.*}/${dep#*.}" "$WORK/$name/collections/ansible_collections/${dep%%.*}/"
  done
  isolated "$WORK/$name/collections" ansible-galaxy collection install "$@" "$tarball" \
    -p "$WORK/$name/collections" >"$WORK/$name.install.log" 2>&1
}
play() { # NAME: run the TLS role from $WORK/NAME/collections (under the machine's apt lock: its
  # dependency fox_avatar_common refreshes the package index), log $WORK/NAME.log
  apt_locked isolated "$WORK/$1/collections" ansible-playbook -i localhost, -e work="$WORK/$1" \
    tests/ansible/collection/tls_selfsigned.yml >"$WORK/$1.log" 2>&1
}
if [ -n "$tarball" ] && [ -d "$bundle" ]; then
  installed all "" --offline
  check "ansible-galaxy collection install --offline: the tarball's declared ranges met by the copies beside it" \
    grep -q 'fox_avatar.deploy:.* was installed successfully' "$WORK/all.install.log"
  check "... the collections path holds fox_avatar.deploy and the declared ones, nothing else" \
    test "$(cd "$WORK/all/collections/ansible_collections" && ls -d */* | tr / . | sort)" = "$(printf '%s\n' fox_avatar.deploy $declared | sort)"
  play all
  check "fox_avatar_tls from the installed collection makes its certificate and key (ansible-playbook tests/ansible/collection/tls_selfsigned.yml)" \
    eval "grep -Eq '^localhost +: ok=[0-9]+ +changed=[1-9][0-9]* +unreachable=0 +failed=0' '$WORK/all.log' || { tail -n 25 '$WORK/all.log'; false; }"
  check "... a certificate for the names asked, signed by the key beside it, and the topic fox_avatar_certificate_changed heard" \
    eval "openssl x509 -in '$WORK/all/tls/fullchain.pem' -noout -ext subjectAltName | grep -q 'DNS:avatar.test, DNS:www.avatar.test' \
      && test \"\$(openssl x509 -in '$WORK/all/tls/fullchain.pem' -noout -pubkey)\" = \"\$(openssl pkey -in '$WORK/all/tls/privkey.pem' -pubout)\" \
      && test -f '$WORK/all/certificate_changed'"
  for dep in $declared; do
    name=without-$dep
    installed "$name" "$dep" --offline
    check "without $dep: ansible-galaxy collection install --offline refuses the tarball, naming it" \
      grep -q "\* $dep:.* (dependency of fox_avatar.deploy" "$WORK/$name.install.log"
    rm -rf "$WORK/$name" && installed "$name" "$dep" --offline --no-deps
    play "$name"
    check "without $dep (installed --no-deps): the same run fails, naming it" \
      grep -q "couldn't resolve module/action '$dep\." "$WORK/$name.log"
  done
else
  fail "the installed collection: no tarball (the build above) or no bundled collections ($bundle)"
fi

section "the collection's inventory filters, and a role's own pre-flight (ansible-playbook, no host)"
# The repository's collection, through collections/ (its link to ansible/).
export ANSIBLE_COLLECTIONS_PATH="$ROOT/collections"
# Its log (which shows the refusal the playbook provokes and ignores) only when it fails.
if ansible-playbook -i tests/ansible/inventory/split.yml tests/ansible/inventory_filters.yml >"$WORK/filters.log" 2>&1; then
  pass "pool_members and scrape_targets on a real inventory (tests/ansible/inventory_filters.yml)"
else
  cat "$WORK/filters.log"
  fail "pool_members and scrape_targets on a real inventory (tests/ansible/inventory_filters.yml)"
fi
# The pre-flight's and the release check's reading of a host's nginx -T (issue 44); the refusal it
# provokes and ignores shows in its log, printed only when it fails.
if ansible-playbook -i localhost, -c local tests/ansible/nginx_host_filter.yml >"$WORK/nginx_host.log" 2>&1; then
  pass "nginx_host and not_networks on nginx -T texts: our site read last or first, default_server, quic reuseport, maps (tests/ansible/nginx_host_filter.yml)"
else
  cat "$WORK/nginx_host.log"
  fail "nginx_host and not_networks (tests/ansible/nginx_host_filter.yml)"
fi
ansible-playbook -i localhost, tests/ansible/standalone_role.yml -e fox_avatar_pool_dir="$WORK/pool" >"$WORK/standalone.log" 2>&1
check "fox_avatar_pool in a playbook of its own, no app host: its pre-flight stops the run with one line naming avatar_apps" \
  grep -Eq '^\[ERROR\]: Task failed: (Action failed: )?avatar_apps \(localhost\): the inventory group' "$WORK/standalone.log"
check "... before its first change (no pool directory)" test ! -e "$WORK/pool"
unset ANSIBLE_COLLECTIONS_PATH

section "ansible-lint (production profile), as ansible/README.md tells a contributor to run it"
# The whole collection (ansible/: galaxy.yml's and meta/runtime.yml's rules too, the playbook, the
# roles, the Molecule scenarios), run exactly as ansible/README.md writes it: `cd ansible &&
# ansible-lint`, in the contributor's environment (none of this script's ANSIBLE_* settings). The
# scenarios' converge playbooks import fox_avatar.deploy.site: ansible/ansible.cfg's collections_path
# finds it through the repository's collections/ (its link to ansible/, outside the collection).
if (unset $(compgen -e | grep '^ANSIBLE_'); cd ansible && ansible-lint 2>&1) | tee "$WORK/lint.log" | tail -n 5 \
   && grep -q 'Profile .production. was required, and it passed' "$WORK/lint.log"; then
  pass "cd ansible && ansible-lint: the production profile reports nothing"
else
  fail "cd ansible && ansible-lint: the production profile reports nothing"
fi

section "summary"
checks_summary tests/ansible/specs.sh
