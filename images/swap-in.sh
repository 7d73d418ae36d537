#!/usr/bin/env bash
# Swap a finished image set from a scratch directory into OUT (images/draw.sh and
# images/pictures.sh run it once everything succeeded; nothing touches OUT before).
#
#   images/swap-in.sh SCRATCH OUT
#
# New files first, then the manifest naming them, then away with the files the old manifest
# listed that the new one does not (a/*, and flat legacy names such as Renard-N.png): a live
# Nginx never serves a half-written set, and files no longer made do not linger. Unchanged files
# are left alone (their mtimes too). Nothing else in OUT is touched (images/ keeps its scripts).
set -euo pipefail
tmp=$1 out=$2
mkdir -p "$out"
[ -d "$out/a" ] || mkdir -m 0755 "$out/a"     # served: readable whatever the umask
old=()
if [ -f "$out/manifest.tsv" ]; then
  mapfile -t old < <(awk -F'\t' '$1 == "legacy" { print $2 }' "$out/manifest.tsv")
fi
stale=()
for f in "$out"/a/*; do
  if [ -e "$f" ] && [ ! -e "$tmp/${f#"$out"/}" ]; then stale+=("$f"); fi
done
for p in "${old[@]}"; do
  case $p in */*|.*|'') continue ;; esac         # legacy names are flat files in OUT
  if [ -e "$out/$p" ] && [ ! -e "$tmp/$p" ]; then stale+=("$out/$p"); fi
done
for f in "$tmp"/a/* "$tmp"/*; do
  [ -f "$f" ] || continue
  [ "$f" = "$tmp/manifest.tsv" ] && continue
  dest=$out/${f#"$tmp"/}
  cmp -s "$f" "$dest" || mv -f "$f" "$dest"
done
cmp -s "$tmp/manifest.tsv" "$out/manifest.tsv" || mv -f "$tmp/manifest.tsv" "$out/manifest.tsv"
rm -f "${stale[@]}"
