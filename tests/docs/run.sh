#!/usr/bin/env bash
# make test-docs: the Markdown docs against the repository (tests/docs/test_docs.py): README.md's length,
# every relative link and #anchor, every repository path, make target and AVATAR_* setting a doc names;
# and the registers of the shared facts' copies (tests/docs/test_fact_copies.py: the ports;
# test_selfsigned_owner.py, test_gravatar_owner.py, test_cross_role_fallbacks.py).
# Seconds; needs git and the pinned venv (pytest) only.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source tools/venv.sh
exec python3 -m pytest -p no:cacheprovider -q tests/docs "$@"
