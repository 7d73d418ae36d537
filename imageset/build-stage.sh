#!/bin/sh
# The image-set stage of both compose image builds, written once: app/Dockerfile and
# nginx/Dockerfile each run it in their stage `images` (FROM debian:trixie-slim, this package
# copied to /opt/imageset/imageset/, images/ to SRC):
#
#   build-stage.sh SRC DEST
#
# copies SRC's set (manifest.tsv and the files it lists, nothing else) into DEST with the image
# set's owner (`python3 -m imageset copy`: standard library only, so Debian's
# python3-minimal runs it). A bad set stops the build with the owner's one line. The stage only
# hands DEST on: neither Python nor the owner reaches a runtime image, so its apt lists stay.
# (Not pinned, as in the images' other apt steps: the release is pinned by the base tag.)
set -eu
[ $# -eq 2 ] || { echo "usage: $0 SRC DEST" >&2; exit 2; }
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-minimal >/dev/null
PYTHONPATH=$(cd "$(dirname "$0")/.." && pwd) python3 -m imageset copy "$1" "$2"
