#!/usr/bin/env bash
# make release VERSION=X.Y.Z REGISTRY=HOST[:PORT]   (docs/releasing.md)
#
# A release of this commit, in one command:
#  1. refusals, each one line and exit 1: a malformed VERSION or REGISTRY, a working tree that is not
#     clean, a version already released (the tag vX.Y.Z exists, or the registry already has
#     REGISTRY/fox-avatar/app:X.Y.Z or .../nginx:X.Y.Z), an empty [Unreleased] section in CHANGELOG.md
#  2. the version written where it is kept: ansible/galaxy.yml's `version` (its one owner; the tag vX.Y.Z
#     marks the commit), CHANGELOG.md's [Unreleased] becomes "## [X.Y.Z] - YYYY-MM-DD" under a fresh
#     empty [Unreleased]
#  3. dist/X.Y.Z/: the jar (Maven, once, natively) avatar-X.Y.Z.jar, the collection
#     fox_avatar-deploy-X.Y.Z.tar.gz (ansible-galaxy collection build), IMAGES (the two image names with
#     their digests) and SHA256SUMS of the three, verified
#  4. both images (app/Dockerfile with APP_JAR: that same jar; nginx/Dockerfile) for linux/amd64 and
#     linux/arm64 (an arm64 Debian 13 base; on an amd64 machine its steps run under qemu-user-static),
#     the build stages natively for both (the image set, the JDK, jlink from arm64's jmods); pushed as REGISTRY/fox-avatar/NAME:X.Y.Z-ARCH,
#     then ONE multi-architecture tag per image, REGISTRY/fox-avatar/NAME:X.Y.Z (docker manifest),
#     checked to list both platforms
#  5. the commit "Release X.Y.Z" (CHANGELOG.md, ansible/galaxy.yml) and the annotated tag vX.Y.Z
# A failure before step 5 puts CHANGELOG.md and galaxy.yml back; the per-architecture tags a failed run
# pushed are overwritten by the next run.
#
# Environment (optional): RELEASE_ARM64_BASE, the arm64 Debian 13 image to build on (default
# local/fox-debian-arm64:trixie-slim: pulled from arm64v8/debian:trixie-slim, else made with debootstrap;
# tools/docker/arm64.sh); RELEASE_INSECURE_REGISTRY=1: REGISTRY speaks plain HTTP (implied for
# 127.0.0.1 and localhost; the Docker engine must list it in insecure-registries).
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
die() { echo "release: $*" >&2; exit 1; }
step() { printf '== release: %s (%ss)\n' "$*" "$((SECONDS - t0))" >&2; }

version=${VERSION:-} registry=${REGISTRY:-}
[[ $version =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]] \
  || die "VERSION: not X.Y.Z (three numbers, no leading zero, e.g. VERSION=1.1.0): '$version'"
[[ $registry =~ ^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?$ ]] \
  || die "REGISTRY: not HOST or HOST:PORT of a Docker registry (e.g. REGISTRY=registry.example.org:5000): '$registry'"
[ -z "$(git status --porcelain)" ] \
  || die "the working tree is not clean (git status --porcelain lists $(git status --porcelain | wc -l) paths): commit or stash first"
! git rev-parse -q --verify "refs/tags/v$version" >/dev/null \
  || die "VERSION: $version is already released (the tag v$version exists)"
awk '/^## \[Unreleased\]/{on=1; next} on && /^## /{exit} on && /[^[:space:]]/{found=1} END{exit !found}' CHANGELOG.md \
  || die "CHANGELOG.md: the [Unreleased] section is empty: say what $version changes first"

insecure=()
case ${registry%:*} in 127.*|localhost) insecure=(--insecure) ;; esac
[ "${RELEASE_INSECURE_REGISTRY:-}" != 1 ] || insecure=(--insecure)
app="$registry/fox-avatar/app" nginx="$registry/fox-avatar/nginx"
arm64_base=${RELEASE_ARM64_BASE:-local/fox-debian-arm64:trixie-slim}
dist=dist/$version
jar=avatar-$version.jar collection=fox_avatar-deploy-$version.tar.gz

# The registry's side of "already released" (a Docker engine for docker's own client configuration).
# shellcheck source=tools/docker.sh
. tools/docker.sh
docker_engine_ready
for image in "$app" "$nginx"; do
  if out=$(docker manifest inspect "${insecure[@]}" "$image:$version" 2>&1); then
    die "VERSION: $version is already released ($image:$version is in the registry)"
  fi
  grep -qiE 'no such manifest|not found|manifest unknown' <<<"$out" \
    || die "REGISTRY: cannot read $image:$version there: $(tail -n1 <<<"$out")"
done

step "prerequisites: the base images (amd64, arm64), qemu-user-static, Maven, ansible-galaxy"
base_image_ready debian:trixie-slim trixie
arm64_base_image_ready "$arm64_base" trixie
command -v mvn >/dev/null || apt_need maven default-jdk-headless
if ! command -v ansible-galaxy >/dev/null; then
  # shellcheck source=tools/venv.sh
  . tools/venv.sh
fi

step "the version: ansible/galaxy.yml, CHANGELOG.md"
restore() { git checkout -q -- CHANGELOG.md ansible/galaxy.yml; }
on_exit() {
  local rc=$?
  [ $rc -eq 0 ] || { restore; echo "release: $version FAILED (exit $rc); CHANGELOG.md and galaxy.yml put back" >&2; }
}
trap on_exit EXIT
sed -i -E "s/^version: .*/version: $version/" ansible/galaxy.yml
grep -qx "version: $version" ansible/galaxy.yml || die "ansible/galaxy.yml: no 'version:' line to set"
today=$(date -u +%F)
sed -i "0,/^## \[Unreleased\]\$/s//## [Unreleased]\n\n## [$version] - $today/" CHANGELOG.md
grep -qx "## \[$version\] - $today" CHANGELOG.md || die "CHANGELOG.md: no '## [Unreleased]' line to move"

step "$dist: the jar, the collection, checksums"
rm -rf "$dist" && mkdir -p "$dist"
log=$(mktemp)
mvn -B -q -Dstyle.color=never -Dmaven.test.skip=true clean package >"$log" 2>&1 \
  || { cat "$log" >&2; rm -f "$log"; die "mvn package failed (its output above)"; }
rm -f "$log"
cp app/target/avatar.jar "$dist/$jar"
ansible-galaxy collection build ansible/ --output-path "$dist" >/dev/null
[ -f "$dist/$collection" ] || die "ansible-galaxy did not write $dist/$collection"

build() { # NAME ARCH BASE: REGISTRY/fox-avatar/NAME:VERSION-ARCH
  local name=$1 arch=$2 base=$3 tag="$registry/fox-avatar/$1:$version-$2" args=()
  [ "$name" = nginx ] || args=(--build-arg "APP_JAR=$dist/$jar" --build-arg "TARGETARCH=$arch")
  step "image $tag (on $base)"
  # The classic builder, on purpose: without --platform it takes each stage's base as it is found here
  # (the build stages native, the AOT and runtime stages of ARCH), and the image is of its base's
  # architecture. The build stages are the same for both architectures: the second build finds them cached.
  DOCKER_BUILDKIT=0 nice docker build -q -f "$name/Dockerfile" -t "$tag" \
    --build-arg "BASE_IMAGE=$base" --build-arg BUILD_BASE_IMAGE=debian:trixie-slim "${args[@]}" \
    --label "org.opencontainers.image.version=$version" \
    --label "org.opencontainers.image.revision=$(git rev-parse HEAD)" . >/dev/null 2> >(grep -v -e DEPRECATED -e BuildKit -e '^ *environment-variable' >&2)
  [ "$(docker image inspect -f '{{.Os}}/{{.Architecture}}' "$tag")" = "linux/$arch" ] \
    || die "$tag: built for $(docker image inspect -f '{{.Os}}/{{.Architecture}}' "$tag"), not linux/$arch"
  docker push -q "$tag" >/dev/null
}
for name in app nginx; do
  build "$name" amd64 debian:trixie-slim
  build "$name" arm64 "$arm64_base"
done

step "the multi-architecture tags"
: >"$dist/IMAGES"
for image in "$app" "$nginx"; do
  docker manifest rm "$image:$version" >/dev/null 2>&1 || true
  docker manifest create "${insecure[@]}" "$image:$version" "$image:$version-amd64" "$image:$version-arm64" >/dev/null
  digest=$(docker manifest push "${insecure[@]}" --purge "$image:$version" | grep -Eo 'sha256:[0-9a-f]+' | tail -n1)
  platforms=$(docker manifest inspect "${insecure[@]}" "$image:$version" \
    | python3 -c 'import json,sys; print(" ".join(sorted(m["platform"]["os"]+"/"+m["platform"]["architecture"] for m in json.load(sys.stdin)["manifests"])))')
  [ "$platforms" = "linux/amd64 linux/arm64" ] || die "$image:$version lists '$platforms', not linux/amd64 linux/arm64"
  echo "$image:$version@$digest" >>"$dist/IMAGES"
done
(cd "$dist" && sha256sum "$jar" "$collection" IMAGES >SHA256SUMS && sha256sum --quiet -c SHA256SUMS)

step "the commit 'Release $version' and the tag v$version"
git add CHANGELOG.md ansible/galaxy.yml
git commit -q -m "Release $version"
git tag -a -m "fox-avatar $version" "v$version"
trap - EXIT
step "released $version"
cat "$dist/IMAGES"
ls -l "$dist"
