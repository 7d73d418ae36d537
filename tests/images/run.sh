#!/usr/bin/env bash
# Image-set layer: installs what it needs (pinned venv, optipng), runs the checks.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source tools/venv.sh
source tools/apt.sh
apt_need optipng
exec python3 -m pytest -q tests/images "$@"
