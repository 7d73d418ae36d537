#!/bin/bash
# copy-image-set.sh SRC DEST: copy the image set of SRC into DEST, the one step both compose image
# builds (app/Dockerfile, nginx/Dockerfile) take, so both images ship the same files.
# The image set: SRC/manifest.tsv (made by `make images`; it owns the set) and every file its
# "image" and "legacy" lines list (column 2, a path relative to SRC). A missing manifest, one that is
# not manifest v2 (no "default" or "buckets" line: made before the ladder reached 512 px and keys got
# buckets), a path that is not plain and relative, or a listed file that is missing is an error.
set -euo pipefail
src=$1 dest=$2
manifest=$src/manifest.tsv
[[ -f $manifest ]] || { echo "copy-image-set: $manifest missing (run: make images)" >&2; exit 1; }
for record in default buckets; do
  grep -q "^$record"$'\t' "$manifest" \
    || { echo "copy-image-set: $manifest has no $record line: not manifest v2 (run: make images)" >&2; exit 1; }
done
paths=$(awk -F'\t' '$1 == "image" || $1 == "legacy" { print $2 }' "$manifest")
[[ -n $paths ]] || { echo "copy-image-set: $manifest lists no file" >&2; exit 1; }
mkdir -p "$dest"
cp -p -- "$manifest" "$dest/"
while read -r path; do
  [[ $path =~ ^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*$ && $path != *..* ]] \
    || { echo "copy-image-set: $manifest: not a plain relative path: '$path'" >&2; exit 1; }
  [[ -f $src/$path ]] || { echo "copy-image-set: $src/$path listed in the manifest but missing" >&2; exit 1; }
  mkdir -p "$dest/$(dirname "$path")"
  cp -p -- "$src/$path" "$dest/$path"
done <<<"$paths"
echo "copy-image-set: $(wc -l <<<"$paths") files"
