#!/usr/bin/env bash
# make test-release: `make release` (tools/release.sh, docs/releasing.md) on a throwaway clone of this
# repository, against a real registry on this machine, then the arm64 images running under qemu.
#
#  1. prerequisites: a Docker engine, qemu-user-static for arm64 (tools/docker.sh), curl, the venv's
#     ansible-galaxy; the registry image of the Swarm layer (tests/swarm/swarm.sh: Debian 13's
#     docker-registry), started on a loopback port
#  2. a clone of this repository in a temporary directory, with this working tree's files committed in
#     it (what is tested is what is here, committed or not)
#  3. the refusals, each one line and a non-zero exit: a malformed version, a dirty tree
#  4. `make release VERSION=V REGISTRY=127.0.0.1:PORT` (V: a major version above every tag); then dist/V/
#     (the jar, the collection with version V, IMAGES, SHA256SUMS verifying), CHANGELOG.md's new section,
#     galaxy.yml's version, the commit and tag; the registry's multi-architecture lists (read over the
#     registry's HTTP API, not through docker) naming linux/amd64 and linux/arm64 for both images
#  5. the refusals of a version again: its tag exists; with the tag deleted (and a change in
#     [Unreleased]), the registry has it
#  6. the arm64 images pulled from the registry and run (a network, the app, Nginx with AVATAR_TLS=off):
#     both containers' `uname -m` aarch64, the app healthy and answering its 302 directly, Nginx's 302 to
#     an image that Nginx then serves (200, an image type)
#  7. everything the run made removed (containers, network, registry, tags, the clone), also on failure.
#     The build cache stays, under the tags local/fox-release-cache/NAME:ARCH: a second run builds
#     nothing again (the jar is reproducible: pom.xml's project.build.outputTimestamp).
#
# Environment: CI=true (nothing here is ever skipped: a missing prerequisite fails either way).
# RELEASE_TEST_KEEP=1 keeps the clone and prints where it is.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
t0=$SECONDS
step() { printf '\n== release: %s (%ss)\n' "$*" "$((SECONDS - t0))"; }
passed=0
ok() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { echo "FAIL $*" >&2; exit 1; }
# poll CMD... until it succeeds, for at most $deadline seconds
poll() { local deadline=$1 end; shift; end=$((SECONDS + deadline)); until "$@"; do ((SECONDS < end)) || return 1; sleep 1; done; }

step "prerequisites"
. tools/docker.sh
docker_engine_ready
qemu_arm64_ready
apt_need curl git ca-certificates
. tools/venv.sh          # ansible-galaxy (the release script looks for it on PATH)
. tests/swarm/swarm.sh
registry_image=$(swarm_registry_ready)

id=fox-release-$$
tmp=$(mktemp -d /tmp/fox-release.XXXXXX)
repo=$tmp/repo
cleanup() {
  local rc=$?
  if [ $rc -ne 0 ]; then
    for c in "$id-app" "$id-nginx"; do
      docker logs --tail 30 "$c" 2>&1 | sed "s/^/$c: /" >&2 || true
    done
  fi
  docker rm -f -v "$id-app" "$id-nginx" "$id-registry" >/dev/null 2>&1 || true
  docker network rm "$id" >/dev/null 2>&1 || true
  if [ -n "${reg:-}" ]; then
    local tags
    tags=$(docker image ls --format '{{.Repository}}:{{.Tag}}' | grep -F "$reg/" || true)
    # shellcheck disable=SC2086 # one name per word
    [ -z "$tags" ] || docker rmi $tags >/dev/null 2>&1 || true
    for n in app nginx; do docker manifest rm "$reg/fox-avatar/$n:${version:-x}" >/dev/null 2>&1 || true; done
  fi
  if [ "${RELEASE_TEST_KEEP:-}" = 1 ]; then echo "release: the clone kept in $repo"; else rm -rf "$tmp"; fi
  echo "== release: layer took $((SECONDS - t0)) s, $passed checks passed (exit $rc)"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

docker run -d --name "$id-registry" -p 127.0.0.1::5000 "$registry_image" >/dev/null
reg=127.0.0.1:$(docker port "$id-registry" 5000/tcp | head -n1 | sed 's/.*://')
poll 30 curl -fsS -o /dev/null "http://$reg/v2/" || fail "the registry at $reg does not answer /v2/"
ok "registry (Debian's docker-registry) at $reg"

step "a throwaway clone with this working tree"
git clone -q "$root" "$repo"
git -C "$root" ls-files -z --cached --others --exclude-standard \
  | (cd "$root" && tar --null --no-recursion -T - -c) | tar -C "$repo" -x
git -C "$repo" config user.name "fox-avatar test-release"
git -C "$repo" config user.email "test-release@localhost"
git -C "$repo" add -A
git -C "$repo" diff --cached --quiet || git -C "$repo" commit -q -m "test-release: the working tree"
# Cache the release's build: tag the images of the last run as the base of this one's cache.
major=$(git -C "$repo" tag -l 'v*' | sed -nE 's/^v([0-9]+)\..*/\1/p' | sort -n | tail -n1)
version=$((${major:-0} + 1)).0.0
echo "clone: $repo at $(git -C "$repo" log -1 --format=%h), test version $version"

release() { make -s -C "$repo" release "$@" >"$tmp/out" 2>"$tmp/err"; }
refused() { # WHAT PATTERN make-arguments...: a non-zero exit, one line on stderr matching PATTERN
  local what=$1 pattern=$2; shift 2
  if release "$@"; then fail "$what: make release passed"; fi
  local lines; lines=$(grep -v '^make\(\[[0-9]*\]\)\?: \*\*\*' "$tmp/err" | grep -c . || true)
  [ "$lines" = 1 ] && grep -q "$pattern" "$tmp/err" \
    || { cat "$tmp/err" >&2; fail "$what: not one line matching '$pattern'"; }
  ok "$what refused: $(grep -v '^make' "$tmp/err")"
}

step "refusals before anything is built"
refused "a malformed version" "^release: VERSION: not X.Y.Z" VERSION=1.2 REGISTRY="$reg"
refused "a version with a leading zero" "^release: VERSION: not X.Y.Z" VERSION=1.02.0 REGISTRY="$reg"
refused "no registry" "^release: REGISTRY: not HOST" VERSION="$version"
echo dirt >"$repo/dirt.txt"
refused "a dirty tree" "^release: the working tree is not clean" VERSION="$version" REGISTRY="$reg"
rm "$repo/dirt.txt"

step "make release VERSION=$version REGISTRY=$reg"
t_release=$SECONDS
release VERSION="$version" REGISTRY="$reg" || { cat "$tmp/out" "$tmp/err" >&2; fail "make release failed"; }
grep '^== release' "$tmp/err" || true
ok "make release in $((SECONDS - t_release)) s"

step "the artifacts"
dist=$repo/dist/$version
jar=avatar-$version.jar coll=fox_avatar-deploy-$version.tar.gz
[ "$(cd "$dist" && ls | sort | tr '\n' ' ')" = "IMAGES SHA256SUMS $jar $coll " ] \
  || fail "dist/$version holds: $(ls "$dist" | tr '\n' ' ')"
ok "dist/$version: $(ls "$dist" | tr '\n' ' ')"
(cd "$dist" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not verify"
[ "$(cut -d' ' -f3 "$dist/SHA256SUMS" | sort | tr '\n' ' ')" = "IMAGES $jar $coll " ] \
  || fail "SHA256SUMS lists: $(cut -d' ' -f3 "$dist/SHA256SUMS" | tr '\n' ' ')"
ok "SHA256SUMS lists the three files and verifies"
python3 - "$dist/$jar" "$dist/$coll" "$version" <<'PY' || fail "the jar or the collection is not what it should be"
import json, sys, tarfile, zipfile
jar, coll, version = sys.argv[1:]
manifest = zipfile.ZipFile(jar).read("META-INF/MANIFEST.MF").decode()
assert "Main-Class:" in manifest, manifest
info = json.load(tarfile.open(coll).extractfile("MANIFEST.json"))["collection_info"]
assert (info["namespace"], info["name"], info["version"]) == ("fox_avatar", "deploy", version), info
PY
ok "the jar has its Main-Class; the collection is fox_avatar.deploy $version"
for n in app nginx; do
  grep -qxE "$reg/fox-avatar/$n:$version@sha256:[0-9a-f]{64}" "$dist/IMAGES" || fail "IMAGES lacks $n: $(cat "$dist/IMAGES")"
done
ok "IMAGES names $reg/fox-avatar/app:$version and .../nginx:$version with their digests"

step "the repository: CHANGELOG.md, galaxy.yml, the commit and the tag"
today=$(date -u +%F)
python3 - "$root/CHANGELOG.md" "$repo/CHANGELOG.md" "$version" "$today" <<'PY' || fail "CHANGELOG.md was not moved right"
import sys
before, after, version, today = (open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3], sys.argv[4])
head, _, unreleased = before.partition("## [Unreleased]\n")
expected = head + "## [Unreleased]\n\n## [" + version + "] - " + today + "\n" + unreleased
assert after == expected, "CHANGELOG.md differs from the expected move"
assert "No version has been tagged yet" not in after
PY
ok "CHANGELOG.md: [Unreleased] empty, its text under '## [$version] - $today'"
grep -qx "version: $version" "$repo/ansible/galaxy.yml" || fail "galaxy.yml: $(grep '^version' "$repo/ansible/galaxy.yml")"
ok "ansible/galaxy.yml: version: $version"
[ "$(git -C "$repo" log -1 --format=%s)" = "Release $version" ] || fail "HEAD is '$(git -C "$repo" log -1 --format=%s)'"
[ "$(git -C "$repo" rev-parse "v$version^{commit}")" = "$(git -C "$repo" rev-parse HEAD)" ] || fail "v$version is not HEAD"
[ "$(git -C "$repo" diff --name-only HEAD~1 | tr '\n' ' ')" = "CHANGELOG.md ansible/galaxy.yml " ] \
  || fail "the release commit changes: $(git -C "$repo" diff --name-only HEAD~1 | tr '\n' ' ')"
[ -z "$(git -C "$repo" status --porcelain)" ] || fail "the tree is not clean after the release"
ok "commit 'Release $version' (CHANGELOG.md, galaxy.yml) tagged v$version, tree clean"

step "the registry's multi-architecture lists"
for n in app nginx; do
  platforms=$(curl -fsS -H 'Accept: application/vnd.docker.distribution.manifest.list.v2+json' \
      -H 'Accept: application/vnd.oci.image.index.v1+json' "http://$reg/v2/fox-avatar/$n/manifests/$version" \
    | python3 -c 'import json,sys; print(" ".join(sorted(m["platform"]["os"]+"/"+m["platform"]["architecture"] for m in json.load(sys.stdin)["manifests"])))') \
    || fail "$n:$version: no manifest list in the registry"
  [ "$platforms" = "linux/amd64 linux/arm64" ] || fail "$n:$version lists '$platforms'"
  ok "$reg/fox-avatar/$n:$version lists $platforms"
done

step "a version again"
refused "the same version (its tag)" "^release: VERSION: $version is already released (the tag" VERSION="$version" REGISTRY="$reg"
# Without the tag, and with something to release (the empty [Unreleased] would be refused first).
git -C "$repo" tag -d "v$version" >/dev/null
sed -i '0,/^## \[Unreleased\]$/s//&\n\n### Fixed\n- test-release: the same version again./' "$repo/CHANGELOG.md"
git -C "$repo" commit -q -am "test-release: a change after $version"
refused "the same version (in the registry)" "^release: VERSION: $version is already released ($reg/fox-avatar/app:$version is in the registry)" \
  VERSION="$version" REGISTRY="$reg"

# The build cache for the next run (release builds' layers stay alive under these tags).
for n in app nginx; do for a in amd64 arm64; do
  docker tag "$reg/fox-avatar/$n:$version-$a" "local/fox-release-cache/$n:$a"
done; done

step "the arm64 images from the registry, running under qemu"
for n in app nginx; do
  docker rmi "$reg/fox-avatar/$n:$version-arm64" "$reg/fox-avatar/$n:$version-amd64" >/dev/null
  docker pull -q --platform linux/arm64 "$reg/fox-avatar/$n:$version" >/dev/null
  arch=$(docker image inspect -f '{{.Os}}/{{.Architecture}}' "$reg/fox-avatar/$n:$version")
  [ "$arch" = linux/arm64 ] || fail "$n:$version pulled for linux/arm64 is $arch"
done
ok "both pulled for linux/arm64"
docker network create "$id" >/dev/null
# The containers' ports: ports.env, their one owner.
# shellcheck source=../../ports.env
. "$root/ports.env"
docker run -d --platform linux/arm64 --name "$id-app" --network "$id" --network-alias app \
  -p "127.0.0.1::$APP_PORT" -p "127.0.0.1::$APP_METRICS_PORT" \
  "$reg/fox-avatar/app:$version" >/dev/null
# The settings compose gives Nginx (.env.example's defaults), TLS off: the HTTP port serves the avatars.
env_args=()
while IFS= read -r line; do env_args+=(-e "$line"); done < <(
  grep -E '^AVATAR_(HTTPS_PORT|APP_PORT|IMAGES_MAX_AGE|TLS_NAMES|ACCESS_LOG|REAL_IP_FROM|NGINX_CONNECTIONS|KEEPALIVE_TIMEOUT)=' \
    "$root/.env.example" | tr -d '"')
# Compose's memory limit for Nginx, as .env.example gives it (the connections above must fit in it).
nginx_memory=$(sed -n 's/^AVATAR_NGINX_MEMORY=//p' "$root/.env.example")
[ -n "$nginx_memory" ] || fail ".env.example gives no AVATAR_NGINX_MEMORY"
docker run -d --platform linux/arm64 --name "$id-nginx" --network "$id" -p "127.0.0.1::$NGINX_CONTAINER_HTTP_PORT" \
  --memory "$nginx_memory" \
  "${env_args[@]}" -e AVATAR_TLS=off "$reg/fox-avatar/nginx:$version" >/dev/null
for c in app nginx; do
  m=$(docker exec "$id-$c" uname -m)
  [ "$m" = aarch64 ] || fail "$c: uname -m is $m"
done
ok "both containers: uname -m aarch64"
# The programs themselves (an amd64 binary would run natively here, whatever the image says): the ELF
# header's machine, 0xb7 for aarch64 (0x3e: x86-64).
elf_machine() { docker exec "$id-$1" od -An -j18 -N2 -tx2 "$2" | tr -d ' '; }
for f in app:/opt/java/bin/java app:/opt/java/lib/server/libjvm.so nginx:/usr/sbin/nginx; do
  m=$(elf_machine "${f%%:*}" "${f#*:}")
  [ "$m" = 00b7 ] || fail "${f#*:} in the ${f%%:*} container: ELF machine 0x$m, not aarch64 (0xb7)"
done
ok "the JVM, libjvm.so and nginx are aarch64 programs"
healthy() { [ "$(docker inspect -f '{{.State.Health.Status}}' "$id-app")" = healthy ]; }
t_start=$SECONDS
poll 300 healthy || fail "the arm64 app is not healthy within 300 s"
ok "the arm64 app healthy after $((SECONDS - t_start)) s"
app_url=http://$(docker port "$id-app" "$APP_PORT/tcp" | head -n1)
metrics_url=http://$(docker port "$id-app" "$APP_METRICS_PORT/tcp" | head -n1)
nginx_url=http://$(docker port "$id-nginx" "$NGINX_CONTAINER_HTTP_PORT/tcp" | head -n1)
status_of() { curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "$1"; }
[[ $(status_of "$app_url/") == "302 "* ]] || fail "the app answers $(status_of "$app_url/")"
ok "the arm64 app answers / directly: $(status_of "$app_url/")"
nginx_302() { [[ $(status_of "$nginx_url/") == "302 "* ]]; }
# Through the arm64 app, not Nginx's fallback (which answers alike while Nginx has no app address yet):
# the app's count of / answers grows with Nginx's 302.
randoms() { curl -fsS "$metrics_url/metrics" | awk '/^fox_avatar_requests_total\{route="random"/ { n += $NF } END { print n + 0 }'; }
through_app() { local before; before=$(randoms) && nginx_302 && (($(randoms) > before)); }
poll 120 through_app || fail "Nginx answers $(status_of "$nginx_url/"), the app's / count stays at $(randoms)"
ok "Nginx's 302 came from the arm64 app (its fox_avatar_requests_total for / at $(randoms))"
location=$(status_of "$nginx_url/"); location=${location#302 }
[[ $location == http://*/* ]] || fail "the 302's Location: $location"
image="$nginx_url/${location#http://*/}"
read -r code type < <(curl -s -o "$tmp/image" -w '%{http_code} %{content_type}\n' "$image")
[ "$code" = 200 ] && [[ $type == image/* ]] || fail "$image: $code $type"
[ -s "$tmp/image" ] || fail "$image: an empty body"
ok "the arm64 Nginx: 302 to $location, then 200 $type ($(stat -c %s "$tmp/image") bytes)"
