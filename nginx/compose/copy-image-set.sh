#!/bin/bash
# copy-image-set.sh SRC DEST: copy the image set of SRC into DEST, the one step both compose image
# builds (app/Dockerfile, nginx/Dockerfile) take, so both images ship the same files.
# The image set: the regular files directly in SRC whose whole name matches the rule of
# SRC/names.regex (its one non-comment line; that file owns the rule). None is an error.
set -euo pipefail
src=$1 dest=$2
rule=$(grep -v -e '^#' -e '^[[:space:]]*$' "$src/names.regex")
mkdir -p "$dest"
names=$(find "$src" -maxdepth 1 -type f -printf '%f\n' | grep -Ex -- "$rule" | sort) \
  || { echo "copy-image-set: no file of $src matches $src/names.regex" >&2; exit 1; }
while read -r name; do cp -p -- "$src/$name" "$dest/"; done <<<"$names"
echo "copy-image-set: $(wc -l <<<"$names") images"
