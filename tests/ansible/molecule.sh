#!/usr/bin/env bash
# make test-ansible: the playbook's Molecule scenarios (ansible/molecule/*), each `molecule test`
# from ansible/ on the local systemd images (tools/docker.sh; nothing is pulled), side by side: each
# run has its own hosts, network and ephemeral directory.
#
#   preflight          the pre-flight cases against a fresh Debian 13 host (nothing converged)
#   default:bookworm   one host, proxy + app + Prometheus (monitoring on), Debian 12, a server in use
#                      (Debian's Nginx and default site, the owner's blog.test): converge, the
#                      owner's sites as before, idempotence, verify (host, the shared HTTP suite,
#                      no HTTP/3, the exporters and Prometheus), then the changes (the owner's sites
#                      again, self-signed renewal, files mode, a rejected release, own pictures, an
#                      owner's map refused by the pre-flight, proxy mode behind Debian's Caddy)
#   default:trixie     the same on Debian 13 (HTTP/3, X25519MLKEM768), then HTTP/3 off and on,
#                      the access log full, off and back, a taken /metrics port; every run from
#                      the repository, as the README writes it (FOX_FROM=repo, below)
#   split              a proxy and two app hosts; the rolling upgrade under load
#   acme               acme mode against Pebble, real http-01 validation
#
# A queue, not waves: at most MOLECULE_PARALLEL runs (default 2) at once, started in the order
# below as slots free up: split first (its rolling upgrade under load is over before make test's
# other lane reaches the benchmark's check, tests/lanes.sh), then the longest, so that the short ones
# fill the end. Side by side every run is CPU-bound: more at once only stretches each (at 3 the
# defaults took 21-23 min each). split's rolling upgrade, starved of CPU beside four other runs when
# its wrk loads were unpaced, paces them (10 ms between a connection's requests).
#
# Both ways the docs give to run the playbook are tested. The runs of MOLECULE_FROM_REPO (default
# default:trixie) get FOX_FROM=repo: the README's commands as written (`make build`, then `cd ansible &&
# ansible-playbook -i inventory.yml site.yml`) in a copy of this working tree, with the user's own
# ansible-playbook and environment (ansible/molecule/shared/fromrepo.py). Every other run uses the
# collection's tarball, built and installed here once (ANSIBLE_COLLECTIONS_PATH, FOX_FROM=tarball).
# Settings: MOLECULE_SCENARIOS (runs to do, in order, e.g. "split acme" or "default:trixie"; default
# the queue below); MOLECULE_PARALLEL (runs at once, default 2); MOLECULE_FROM_REPO (the runs from
# the repository; only the default scenario has that path); FOX_MOLECULE_PREFIX names the containers and networks (default foxmol);
# MOLECULE_KEEP=1 keeps the hosts of a failed run (--destroy never) and its ephemeral directory, for
# debugging.
. "$(dirname "$0")/lib.sh"
RUNS=(${MOLECULE_SCENARIOS:-split default:trixie default:bookworm acme preflight})
PARALLEL=${MOLECULE_PARALLEL:-2}
[[ $PARALLEL =~ ^[1-9][0-9]*$ ]] || die "MOLECULE_PARALLEL: '$PARALLEL' is not a positive number"
FROM_REPO=" ${MOLECULE_FROM_REPO-default:trixie} "

section "prerequisites"
ansible_prerequisites
apt_need wrk     # split's rolling upgrade
apt_need caddy   # default:bookworm, behind its own proxy (tests/changes/bookworm/test_5_behind_caddy.py)
unset APT_PROXY
for suite in bookworm trixie; do systemd_image_ready "$suite" || die "no $suite systemd image"; done
trixie_client_ready >/dev/null || die "no Debian 13 client image (tools/docker.sh trixie_client_ready)"
FOX_PEBBLE_BIN=$(pebble_ready) || die "Pebble could not be installed (tools/docker.sh pebble_ready)"
FOX_PEBBLE_CERTS=$(pebble_certs_dir) || die "Pebble's test certificates not found"
export FOX_PEBBLE_BIN FOX_PEBBLE_CERTS
export NO_COLOR=1 PY_COLORS=0   # no colour in the logs
molecule --version 2>/dev/null | head -n 1
WORK=$(mktemp -d /tmp/fox-molecule.XXXXXX)
[ -n "${MOLECULE_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT

# What users install is what is tested: the collection's tarball (ansible-galaxy collection build
# ansible/), installed once for every run; the tarball's runs play its playbook fox_avatar.deploy.site
# and its roles through ANSIBLE_COLLECTIONS_PATH, and check that they did (foxmol.collection_in_use,
# the preflight cases); the runs from the repository check that they did not.
section "the collection: build the tarball, install it"
ansible-galaxy collection build ansible/ --output-path "$WORK/dist" >"$WORK/build.log" 2>&1 \
  || { cat "$WORK/build.log"; die "ansible-galaxy collection build ansible/ failed"; }
# --force and this path alone: a fox_avatar.deploy installed elsewhere (~/.ansible/collections, by
# hand or by a Molecule prerun) neither stops the install nor is found by the runs.
export ANSIBLE_COLLECTIONS_PATH="$WORK/collections"
ansible-galaxy collection install --force "$WORK"/dist/fox_avatar-deploy-*.tar.gz -p "$WORK/collections" \
  >"$WORK/install.log" 2>&1 || { cat "$WORK/install.log"; die "ansible-galaxy collection install failed"; }
test -f "$WORK/collections/ansible_collections/fox_avatar/deploy/MANIFEST.json" \
  || { cat "$WORK/install.log"; die "the collection is not installed in $WORK/collections"; }
echo "installed $(basename "$WORK"/dist/fox_avatar-deploy-*.tar.gz) in $ANSIBLE_COLLECTIONS_PATH"

# A run's files are named NAME: the run with "-" for ":" (a path with a colon cannot be mounted:
# the verifiers mount certificates from the ephemeral directory into client containers).
run_one() { # RUN (scenario[:suite]) -> $WORK/NAME.log, its exit code in $WORK/NAME.rc
  local run=$1 name=${1//:/-} scenario=${1%%:*} suite= from=tarball t=$SECONDS rc
  [[ $run == *:* ]] && suite=${run#*:}
  [[ $FROM_REPO == *" $run "* ]] && from=repo
  mkdir -p "$WORK/$name.eph"
  (cd ansible && env MOLECULE_EPHEMERAL_DIRECTORY="$WORK/$name.eph" ${suite:+FOX_SUITE=$suite} FOX_FROM=$from \
     molecule test -s "$scenario" ${MOLECULE_KEEP:+--destroy never}) >"$WORK/$name.log" 2>&1
  rc=$?
  echo "$rc" >"$WORK/$name.rc"
  echo "molecule test -s $scenario${suite:+ (FOX_SUITE=$suite)} (FOX_FROM=$from): exit $rc, $((SECONDS - t)) s" | tee -a "$WORK/$name.log"
}

section "molecule test: ${RUNS[*]}, at most $PARALLEL at once"
for run in "${RUNS[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$PARALLEL" ]; do wait -n; done
  echo "$(date +%T) start: $run"
  run_one "$run" &
done
wait

for run in "${RUNS[@]}"; do
  name=${run//:/-}
  section "molecule: $run"
  # the verifier's test lines and summaries, each playbook run's time, the recaps, the verdict
  grep -E '^(PASSED|FAILED|ERROR) |^(tests/)?[a-z_/]+\.py::|passed|failed|^ansible-playbook |^shared HTTP suite |"msg": |^PLAY RECAP|^[a-z0-9-]+ +: ok=|^molecule test|^(INFO|WARNING|ERROR) +[a-z:]+ ➜|Action:' \
    "$WORK/$name.log" | tail -n 80
  # what a scenario reports having measured (split: the rolling upgrade's loads and timings)
  sed -n '/ what was measured /,/^=/p' "$WORK/$name.log" | sed '$d'
  if [ "$(cat "$WORK/$name.rc" 2>/dev/null)" = 0 ]; then
    pass "molecule test: $run"
  else
    fail "molecule test: $run (the end of its log below; whole log $WORK/$name.log)"
    tail -n 120 "$WORK/$name.log"
  fi
done

section "summary"
checks_summary tests/ansible/molecule.sh
