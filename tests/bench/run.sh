#!/usr/bin/env bash
# make test-bench: the benchmark's own tests (its report, rendered from committed raw results); runs
# nothing it measures, needs no server and no load tool: the pinned venv only.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source tools/venv.sh
exec python3 -m pytest -p no:cacheprovider -q tests/bench "$@"
