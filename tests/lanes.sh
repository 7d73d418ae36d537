#!/usr/bin/env bash
# make test's two lanes: tests/lanes.sh TARGET... -- TARGET...
# The make targets after "--" run one after the other in the background (their output in a log, printed
# whole when they end), while the ones before it run one after the other here: the Molecule runs are
# CPU-bound and the longest, the other layers leave much of the machine idle (they mostly wait for
# containers). Every layer can run beside others: tools/docker.sh, tools/apt.sh and tools/venv.sh
# serialise what they build under machine-wide locks, and each layer names its containers, networks and
# ports its own way. A lane stops at its first failing target, as make does; the other lane runs to its
# end. Exit 0 when every target passed, else 1.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

fg=() bg=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do fg+=("$1"); shift; done
[ $# -gt 0 ] && shift
bg=("$@")
[ ${#fg[@]} -gt 0 ] && [ ${#bg[@]} -gt 0 ] || { echo "usage: $0 TARGET... -- TARGET..." >&2; exit 2; }

lane() { # TARGET...: make each in turn, stop at the first that fails; one line per target
  local t start
  for t in "$@"; do
    start=$SECONDS
    if make --no-print-directory "$t"; then
      echo "lanes: make $t passed in $((SECONDS - start)) s (at $(date +%T))"
    else
      echo "lanes: make $t FAILED after $((SECONDS - start)) s (at $(date +%T))"
      return 1
    fi
  done
}

log=$(mktemp /tmp/fox-lane.XXXXXX.log)
echo "lanes: ${bg[*]} in the background from $(date +%T), its output in $log (printed when it ends)"
# Each lane in a process group of its own (set -m), so that an interrupt or a TERM of this script
# (Ctrl-C, a CI timeout) stops both lanes and everything they started, at once: bash runs a trap
# only between commands, so this script waits for its lanes instead of running one itself.
set -m
lane "${bg[@]}" >"$log" 2>&1 &
bgpid=$!
lane "${fg[@]}" &
fgpid=$!
set +m
trap 'echo "lanes: interrupted: stopping both lanes" >&2; kill -- -$fgpid -$bgpid 2>/dev/null' INT TERM

wait "$fgpid"
fgrc=$?
if kill -0 "$bgpid" 2>/dev/null; then
  echo "lanes: ${fg[*]} done at $(date +%T); waiting for ${bg[*]}"
fi
wait "$bgpid"
bgrc=$?
echo
echo "==================== lanes: the output of ${bg[*]} ($log) ===================="
cat "$log"
echo "==================== lanes: end of the output of ${bg[*]} ===================="
grep '^lanes: ' "$log" || true
[ $fgrc -eq 0 ] && [ $bgrc -eq 0 ]
