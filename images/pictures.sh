#!/usr/bin/env bash
# Make an image set from a folder of your own pictures (what `make images SRC=DIR` runs).
#
#   images/pictures.sh SRC [OUT] [--pad]     OUT default: images/ (replaces the fox set)
#
# images/pictures.py (in the pinned venv) checks SRC and OUT, renders into a scratch directory next
# to OUT, then swaps it in (imageset/files.py). Any bad input: one line each naming it (escaped onto
# one line), exit 1, OUT exactly as it was (not even created). Deterministic: the same pictures give
# byte-identical files (pinned Pillow). See docs/own-pictures.md.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
args=() pad=()
for a in "$@"; do
  case $a in --pad) pad=(--pad) ;; *) args+=("$a") ;; esac
done
if [ ${#args[@]} -lt 1 ] || [ ${#args[@]} -gt 2 ] || [ -z "${args[0]}" ]; then
  echo "usage: images/pictures.sh SRC [OUT] [--pad]   (make images SRC=DIR [OUT=DIR] [PAD=1])" >&2
  exit 2
fi
PICTURES_STARTED=$(date +%s.%N)
export PICTURES_STARTED
# pinned Pillow alone, in a venv of its own (.venv-images; docs/own-pictures.md): no test tool
FOX_VENV_DIR=.venv-images FOX_VENV_REQUIREMENTS=images/requirements.txt source "$root/tools/venv.sh"
PYTHONPATH="$here" exec python3 "$here/pictures.py" "${args[0]}" "${args[1]:-$here}" "${pad[@]}"
