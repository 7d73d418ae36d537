# Sourced by the Ansible layer's runners (tests/ansible/*.sh): named assertions, section headers, and
# the closing "N passed, N failed" line (CI goes by the exit status: checks_summary's).
#   check NAME CMD...   runs CMD; PASS or FAIL under NAME (the scenario goes on either way)
#   no_match GREP_ARGS...  true when grep finds nothing (its exit 1); false when it finds a line (printed)
#                       and when it fails (exit 2: a file or glob missing, a bad pattern): `! grep` would
#                       pass then
#   checks_summary WHAT prints the failures, WHAT's wall time (since $START) and the closing line;
#                       returns non-zero when anything failed
PASSED=0
FAILED=0
FAILURES=()
section() { printf '\n==================== %s (at %d s) ====================\n' "$*" "$SECONDS"; }
pass() { PASSED=$((PASSED + 1)); echo "PASS  $*"; }
fail() { FAILED=$((FAILED + 1)); FAILURES+=("$*"); echo "FAIL  $*"; }
check() {
  local name=$1; shift
  if "$@"; then pass "$name"; else fail "$name"; fi
}
no_match() {
  local rc=0
  grep "$@" || rc=$?
  [ "$rc" -eq 2 ] && echo "grep $*: failed (exit 2), so it proves nothing" >&2
  [ "$rc" -eq 1 ]
}
checks_summary() {
  local f
  for f in "${FAILURES[@]}"; do echo "failed: $f"; done
  echo "$1 wall time: $((SECONDS - ${START:-0})) s"
  echo "$PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
}
