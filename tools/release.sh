#!/usr/bin/env bash
# make release VERSION=X.Y.Z REGISTRY=HOST[:PORT]   (docs/releases.md)
#  1. refusals, one line each and exit 1, before anything changes: a malformed VERSION or REGISTRY, a
#     dirty tree, no git identity for the commit, a version already released (its tag, or its images
#     in the registry), a registry it cannot read, an empty [Unreleased] in CHANGELOG.md
#  2. ansible/galaxy.yml's version (its one owner) and CHANGELOG.md's [Unreleased] -> [X.Y.Z] - date
#  3. dist/X.Y.Z/: the jar, the collection
#  4. both images for linux/amd64 and linux/arm64 (the arm64 base's steps under qemu-user-static; the
#     architecture-free stages native), built, nothing pushed yet
#  5. the commit "Release X.Y.Z" and the annotated tag vX.Y.Z (local: nothing has left the machine)
#  6. the pushes: NAME:X.Y.Z-ARCH, then one multi-architecture tag each; dist/X.Y.Z/IMAGES and SHA256SUMS
# A failure before step 5 puts CHANGELOG.md and galaxy.yml back. A failure in step 6 (the registry
# refused a push) leaves the commit and the tag: the same command again, run on that commit, builds
# from the cache, pushes and finishes the release (it resumes when HEAD is the tag vX.Y.Z and the
# registry lacks either image's X.Y.Z).
#
# tools/release.sh warm: step 4's four builds from this tree and app/target/avatar.jar, nothing pushed or
# changed, at a low CPU weight, so that a later release of the same files finds them in Docker's build
# cache (make test starts it in the background for its release layer; tools/prefetch.sh).
#
# Environment (optional): RELEASE_ARM64_BASE, the arm64 Debian 13 image to build on (default
# local/fox-debian-arm64:trixie-slim, tools/docker/arm64.sh); RELEASE_INSECURE_REGISTRY=1: REGISTRY
# speaks plain HTTP (implied when its name resolves to a loopback address, as Docker's engine has it).
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
die() { echo "release: $*" >&2; exit 1; }
step() { printf '== release: %s (%ss)\n' "$*" "$((SECONDS - t0))" >&2; }

arm64_base=${RELEASE_ARM64_BASE:-local/fox-debian-arm64:trixie-slim}
# shellcheck source=tools/docker.sh
. tools/docker.sh

build() { # NAME ARCH BASE TAG JAR [docker build options...]
  local name=$1 arch=$2 base=$3 tag=$4 jar=$5 args=()
  shift 5
  [ "$name" = nginx ] || args=(--build-arg "APP_JAR=$jar" --build-arg "TARGETARCH=$arch")
  step "image $tag (on $base)"
  # The classic builder, on purpose: without --platform it takes each stage's base as it is found here
  # (the build stages native, the AOT and runtime stages of
  # ARCH), and the image is of its base's architecture. The build stages are the same for both
  # architectures: the second build finds them cached.
  DOCKER_BUILDKIT=0 docker build -q -f "$name/Dockerfile" -t "$tag" "$@" \
    --build-arg "BASE_IMAGE=$base" --build-arg BUILD_BASE_IMAGE=debian:trixie-slim "${args[@]}" . \
    >/dev/null 2> >(grep -v -e DEPRECATED -e BuildKit -e '^ *environment-variable' >&2)
  [ "$(docker image inspect -f '{{.Os}}/{{.Architecture}}' "$tag")" = "linux/$arch" ] \
    || die "$tag: built for $(docker image inspect -f '{{.Os}}/{{.Architecture}}' "$tag"), not linux/$arch"
}
bases() {
  base_image_ready debian:trixie-slim trixie >/dev/null
  arm64_base_image_ready "$arm64_base" trixie
}
# One build of a release's images at a time on a machine (a release waits for a warm-up to end, then
# finds its layers cached).
lock_builds() { exec 8>/run/lock/fox-avatar-release-build.lock && flock 8; }

if [ "${1:-}" = warm ]; then
  [ -f app/target/avatar.jar ] || die "warm: no app/target/avatar.jar (make build first)"
  docker_engine_ready && bases
  lock_builds
  mkdir -p dist/warm && cp app/target/avatar.jar dist/warm/avatar.jar
  make --no-print-directory identities
  for name in app nginx; do
    build "$name" amd64 debian:trixie-slim "local/fox-release-warm/$name:amd64" dist/warm/avatar.jar --cpu-shares 256
    build "$name" arm64 "$arm64_base" "local/fox-release-warm/$name:arm64" dist/warm/avatar.jar --cpu-shares 256
  done
  step "warm: the release's four images are in the build cache"
  exit 0
fi

version=${VERSION:-} registry=${REGISTRY:-}
[[ $version =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]] \
  || die "VERSION: not X.Y.Z (three numbers, no leading zero, e.g. VERSION=1.1.0): '$version'"
[[ $registry =~ ^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?$ ]] \
  || die "REGISTRY: not HOST or HOST:PORT of a Docker registry (e.g. REGISTRY=registry.example:5000): '$registry'"
[ -z "$(git status --porcelain)" ] \
  || die "the working tree is not clean (git status --porcelain lists $(git status --porcelain | wc -l) paths): commit or stash first"
git var GIT_AUTHOR_IDENT >/dev/null 2>&1 && git var GIT_COMMITTER_IDENT >/dev/null 2>&1 \
  || die "git has no identity for the commit 'Release $version': git config --global user.name 'NAME'; git config --global user.email ADDRESS"

insecure=()
case $(getent ahostsv4 "${registry%:*}" | awk 'NR == 1 { print $1 }') in 127.*) insecure=(--insecure) ;; esac
[ "${RELEASE_INSECURE_REGISTRY:-}" != 1 ] || insecure=(--insecure)
app="$registry/fox-avatar/app" nginx="$registry/fox-avatar/nginx"
dist=dist/$version
jar=avatar-$version.jar collection=fox_avatar-deploy-$version.tar.gz

# The registry's side of "already released" (a Docker engine for docker's own client configuration).
docker_engine_ready
pushed=0
for image in "$app" "$nginx"; do
  if out=$(docker manifest inspect "${insecure[@]}" "$image:$version" 2>&1); then
    pushed=$((pushed + 1))
  else
    grep -qiE 'no such manifest|not found|manifest unknown' <<<"$out" \
      || die "REGISTRY: cannot read $image:$version there: $(tail -n1 <<<"$out")"
  fi
done
# A run that failed while pushing left its commit and tag: on that commit, with the registry's lists
# incomplete, this run finishes it.
resume=0
if git rev-parse -q --verify "refs/tags/v$version" >/dev/null; then
  [ "$pushed" -lt 2 ] && [ "$(git rev-parse "v$version^{commit}")" = "$(git rev-parse HEAD)" ] \
    || die "VERSION: $version is already released (the tag v$version exists)"
  resume=1
  step "resuming $version: the commit and tag v$version are here, the registry lacks its images"
else
  [ "$pushed" -eq 0 ] || die "VERSION: $version is already released ($app:$version is in the registry)"
  awk '/^## \[Unreleased\]/{on=1; next} on && /^## /{exit} on && /[^[:space:]]/{found=1} END{exit !found}' CHANGELOG.md \
    || die "CHANGELOG.md: the [Unreleased] section is empty: say what $version changes first"
fi

step "prerequisites: the base images (amd64, arm64), qemu-user-static, Maven, ansible-galaxy"
bases
command -v mvn >/dev/null || apt_need maven default-jdk-headless
if ! command -v ansible-galaxy >/dev/null; then
  # shellcheck source=tools/venv.sh
  . tools/venv.sh
fi

# The images' revision: the commit the release is made from (the one before "Release X.Y.Z")
revision=$(git rev-parse HEAD)
[ "$resume" = 0 ] || revision=$(git rev-parse HEAD~1)
phase=files
[ "$resume" = 0 ] || phase=committed
on_exit() {
  local rc=$?
  [ $rc -ne 0 ] || return 0
  case $phase in
    files) git checkout -q -- CHANGELOG.md ansible/galaxy.yml
           echo "release: $version FAILED (exit $rc) before its commit; CHANGELOG.md and galaxy.yml put back" >&2 ;;
    *) echo "release: $version FAILED (exit $rc) after its commit; the commit and tag v$version are made:" \
            "run the same make release again on this commit to finish it" >&2 ;;
  esac
}
trap on_exit EXIT
if [ "$resume" = 0 ]; then
  step "the version: ansible/galaxy.yml, CHANGELOG.md"
  sed -i -E "s/^version: .*/version: $version/" ansible/galaxy.yml
  grep -qx "version: $version" ansible/galaxy.yml || die "ansible/galaxy.yml: no 'version:' line to set"
  today=$(date -u +%F)
  sed -i "0,/^## \[Unreleased\]\$/s//## [Unreleased]\n\n## [$version] - $today/" CHANGELOG.md
  grep -qx "## \[$version\] - $today" CHANGELOG.md || die "CHANGELOG.md: no '## [Unreleased]' line to move"
fi

step "$dist: the jar, the collection"
rm -rf "$dist" && mkdir -p "$dist"
log=$(mktemp)
mvn -B -q -Dstyle.color=never -Dmaven.test.skip=true clean package >"$log" 2>&1 \
  || { cat "$log" >&2; rm -f "$log"; die "mvn package failed (its output above)"; }
rm -f "$log"
cp app/target/avatar.jar "$dist/$jar"
ansible-galaxy collection build ansible/ --output-path "$dist" >/dev/null
[ -f "$dist/$collection" ] || die "ansible-galaxy did not write $dist/$collection"

step "the keyed identities the Nginx image carries (make identities)"
make --no-print-directory identities
lock_builds
for name in app nginx; do
  for arch in amd64 arm64; do
    base=debian:trixie-slim
    [ "$arch" = amd64 ] || base=$arm64_base
    build "$name" "$arch" "$base" "$registry/fox-avatar/$name:$version-$arch" "$dist/$jar" \
      --label "org.opencontainers.image.version=$version" --label "org.opencontainers.image.revision=$revision"
  done
done
flock -u 8

if [ "$resume" = 0 ]; then
  step "the commit 'Release $version' and the tag v$version"
  git add CHANGELOG.md ansible/galaxy.yml
  git commit -q -m "Release $version"
  git tag -a -m "fox-avatar $version" "v$version"
fi
phase=committed

step "the pushes, then the multi-architecture tags"
for name in app nginx; do
  for arch in amd64 arm64; do
    docker push -q "$registry/fox-avatar/$name:$version-$arch" >/dev/null
  done
done
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
trap - EXIT
step "released $version"
cat "$dist/IMAGES"
ls -l "$dist"
