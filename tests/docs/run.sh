#!/usr/bin/env bash
# make test-docs: the Markdown docs against the repository (tests/docs/test_docs.py: links, anchors, named
# paths, make targets and settings, word budgets, no history) and tests/lib/docblocks.py's own tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source tools/venv.sh
exec python3 -m pytest -p no:cacheprovider -q tests/docs "$@"
