#!/usr/bin/env bash
# make test-release: docs/releases.md run as written (tests/lib/docblocks.py), against a real registry
# on this machine under the page's name, registry.example:5000:
#  1. the first block: a clone of this working tree, `make release VERSION=1.0.0` there, and 1.0.0
#     installed from the registry with compose in that checkout; the release's artifacts, CHANGELOG.md,
#     galaxy.yml, the commit and tag, the registry's amd64+arm64 lists; its refusals (no git identity too)
#  2. "Install on a server": the tag cloned from the maintainer's repository, 1.0.0 from the registry
#  3. "Upgrade": 1.1.0 released, its pushes refused once (the registry read-only: the commit and tag
#     stay, the same command again finishes it), then the page's upgrade block: the new images running
#  4. the same release for arm64: both images pulled for linux/arm64 and run by compose under qemu (with
#     room for the emulator: tests/release/run.sh's override)
# The registry's name resolves for this machine's Docker engine (an /etc/hosts line, removed at the end:
# the engine resolves it, not a namespace of ours); it is plain HTTP on 127.0.0.1:5000, which Docker
# and tools/release.sh take as a loopback registry. Everything the run made is removed, also on failure.
# The release's image builds find their layers cached when make test's head start (tools/release.sh
# warm) has built this tree. RELEASE_TEST_KEEP=1 keeps the temporary directory.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
t0=$SECONDS
first_day=$(date -u +%F)
step() { printf '\n== release: %s (%ss)\n' "$*" "$((SECONDS - t0))"; }
passed=0
ok() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { echo "FAIL $*" >&2; exit 1; }
poll() { local deadline=$1 end; shift; end=$((SECONDS + deadline)); until "$@"; do ((SECONDS < end)) || return 1; sleep 1; done; }

step "prerequisites"
. tools/docker.sh
docker_engine_ready
compose_v2_ready
qemu_arm64_ready
apt_need curl git ca-certificates
. tools/venv.sh          # ansible-galaxy (the release script looks for it on PATH)
. tests/swarm/swarm.sh
registry_image=$(swarm_registry_ready)
# Pebble and its DNS, Let's Encrypt's stand-ins for the owner's certificate (test_owner_server.py)
PEBBLE_BIN=$(pebble_ready)
PEBBLE_CHALLTESTSRV_BIN=$(pebble_challtestsrv_ready)
export PEBBLE_BIN PEBBLE_CHALLTESTSRV_BIN

page=docs/releases.md
reg=registry.example:5000
id=fox-release-$$
tmp=$(mktemp -d /tmp/fox-release.XXXXXX)
repo=$tmp/maintainer/fox-avatar server=$tmp/server
mkdir -p "$tmp/maintainer" "$server"
hosts_mark="# $id"
# The project and its ports are the test's (the page's block stays as written; the environment wins
# over .env in compose).
read -r https_port http_port < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
export COMPOSE_PROJECT_NAME=$id AVATAR_HTTPS_PORT=$https_port AVATAR_HTTP_PORT=$http_port
export GIT_AUTHOR_NAME="fox-avatar test-release" GIT_AUTHOR_EMAIL=test-release@localhost
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL

cleanup() {
  local rc=$?
  [ ! -f "$repo/docker-compose.yml" ] || (cd "$repo" && docker compose down -v --remove-orphans >/dev/null 2>&1) || true
  if [ -f "$server/fox-avatar/docker-compose.yml" ]; then
    [ $rc -eq 0 ] || (cd "$server/fox-avatar" && docker compose logs --tail 30 >&2) || true
    (cd "$server/fox-avatar" && docker compose down -v --remove-orphans >/dev/null 2>&1) || true
  fi
  docker rm -f -v "$id-registry" >/dev/null 2>&1 || true
  docker image rm fox-avatar/{prometheus,nginx-exporter,mtail,blackbox}:{1.0.0,1.1.0} >/dev/null 2>&1 || true
  local tags
  tags=$(docker image ls --format '{{.Repository}}:{{.Tag}}' | grep -F "$reg/" || true)
  # shellcheck disable=SC2086 # one name per word
  [ -z "$tags" ] || docker rmi $tags >/dev/null 2>&1 || true
  for v in 1.0.0 1.1.0; do for n in app nginx; do docker manifest rm "$reg/fox-avatar/$n:$v" >/dev/null 2>&1 || true; done; done
  # /etc/hosts may be a bind mount: rewritten in place, not renamed over
  grep -vF "$hosts_mark" /etc/hosts >"$tmp/hosts" && cat "$tmp/hosts" >/etc/hosts
  if [ "${RELEASE_TEST_KEEP:-}" = 1 ]; then echo "release: kept $tmp"; else rm -rf "$tmp"; fi
  echo "== release: layer took $((SECONDS - t0)) s, $passed checks passed (exit $rc)"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

! ss -Hltn 'sport = :5000' | grep -q . || fail "port 5000 is taken here: the page's registry needs it"
echo "127.0.0.1 registry.example $hosts_mark" >>/etc/hosts
docker run -d --name "$id-registry" -p 127.0.0.1:5000:5000 "$registry_image" >/dev/null
poll 30 curl -fsS -o /dev/null "http://$reg/v2/" || fail "the registry at $reg does not answer /v2/"
ok "registry (Debian's docker-registry) at $reg"

docblock() { tests/lib/docblocks.py run "$page" "$@"; }
snapshot=$(tests/lib/docblocks.py snapshot "$tmp/snapshot.git")

step "$page, the first block: make release VERSION=1.0.0, then 1.0.0 installed with compose from $reg"
docblock 0 --cwd "$tmp/maintainer" --clone-from "$snapshot"
dist=$repo/dist/1.0.0 jar=avatar-1.0.0.jar coll=fox_avatar-deploy-1.0.0.tar.gz
[ "$(cd "$dist" && ls | sort | tr '\n' ' ')" = "IMAGES SHA256SUMS $jar $coll " ] || fail "dist/1.0.0 holds: $(ls "$dist")"
(cd "$dist" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not verify"
[ "$(cut -d' ' -f3 "$dist/SHA256SUMS" | sort | tr '\n' ' ')" = "IMAGES $jar $coll " ] || fail "SHA256SUMS: $(cat "$dist/SHA256SUMS")"
python3 - "$dist/$jar" "$dist/$coll" <<'PY' || fail "the jar or the collection is not what it should be"
import json, sys, tarfile, zipfile
jar, coll = sys.argv[1:]
assert "Main-Class:" in zipfile.ZipFile(jar).read("META-INF/MANIFEST.MF").decode()
info = json.load(tarfile.open(coll).extractfile("MANIFEST.json"))["collection_info"]
assert (info["namespace"], info["name"], info["version"]) == ("fox_avatar", "deploy", "1.0.0"), info
PY
for n in app nginx; do
  grep -qxE "$reg/fox-avatar/$n:1.0.0@sha256:[0-9a-f]{64}" "$dist/IMAGES" || fail "IMAGES: $(cat "$dist/IMAGES")"
done
ok "dist/1.0.0: the jar, the collection fox_avatar.deploy 1.0.0, IMAGES with digests, SHA256SUMS verifying"
# today: the day the release ran, the test's first day or a later one (a run may pass midnight UTC)
grep -qxE "## \[1.0.0\] - ($first_day|$(date -u +%F))" "$repo/CHANGELOG.md" && grep -qx '## \[Unreleased\]' "$repo/CHANGELOG.md" \
  || fail "CHANGELOG.md has no '## [1.0.0] - today' under a new [Unreleased]"
grep -qx "version: 1.0.0" "$repo/ansible/galaxy.yml" || fail "galaxy.yml: $(grep '^version' "$repo/ansible/galaxy.yml")"
[ "$(git -C "$repo" log -1 --format=%s)" = "Release 1.0.0" ] && [ "$(git -C "$repo" rev-parse 'v1.0.0^{commit}')" = "$(git -C "$repo" rev-parse HEAD)" ] \
  || fail "HEAD is not 'Release 1.0.0' tagged v1.0.0"
[ "$(git -C "$repo" diff --name-only HEAD~1 | tr '\n' ' ')" = "CHANGELOG.md ansible/galaxy.yml " ] && [ -z "$(git -C "$repo" status --porcelain)" ] \
  || fail "the release commit changes $(git -C "$repo" diff --name-only HEAD~1 | tr '\n' ' '), or the tree is dirty"
ok "CHANGELOG.md's section, galaxy.yml's version, the commit 'Release 1.0.0' tagged v1.0.0, the tree clean"
for n in app nginx; do
  platforms=$(curl -fsS -H 'Accept: application/vnd.docker.distribution.manifest.list.v2+json' \
      -H 'Accept: application/vnd.oci.image.index.v1+json' "http://$reg/v2/fox-avatar/$n/manifests/1.0.0" \
    | python3 -c 'import json,sys; print(" ".join(sorted(m["platform"]["os"]+"/"+m["platform"]["architecture"] for m in json.load(sys.stdin)["manifests"])))') \
    || fail "$n:1.0.0: no manifest list in the registry"
  [ "$platforms" = "linux/amd64 linux/arm64" ] || fail "$n:1.0.0 lists '$platforms'"
done
ok "the registry lists linux/amd64 and linux/arm64 for app:1.0.0 and nginx:1.0.0"

step "the refusals, one line each"
refused() { # WHAT PATTERN make-arguments...
  local what=$1 pattern=$2 lines; shift 2
  if make -s -C "$repo" release "$@" >"$tmp/out" 2>"$tmp/err"; then fail "$what: make release passed"; fi
  lines=$(grep -v '^make\(\[[0-9]*\]\)\?: \*\*\*' "$tmp/err" | grep -c . || true)
  [ "$lines" = 1 ] && grep -q "$pattern" "$tmp/err" || { cat "$tmp/err" >&2; fail "$what: not one line matching '$pattern'"; }
  ok "$what refused: $(grep -v '^make' "$tmp/err")"
}
refused "a malformed version" "^release: VERSION: not X.Y.Z" VERSION=1.2 REGISTRY="$reg"
refused "a version with a leading zero" "^release: VERSION: not X.Y.Z" VERSION=1.02.0 REGISTRY="$reg"
refused "no registry" "^release: REGISTRY: not HOST" VERSION=1.1.0
refused "an empty [Unreleased]" "^release: CHANGELOG.md: the \[Unreleased\] section is empty" VERSION=1.1.0 REGISTRY="$reg"
refused "the same version (its tag)" "^release: VERSION: 1.0.0 is already released (the tag" VERSION=1.0.0 REGISTRY="$reg"
(unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL XDG_CONFIG_HOME
 export HOME=$tmp/no-home GIT_CONFIG_NOSYSTEM=1 EMAIL=
 refused "no git identity" "^release: git has no identity for the commit" VERSION=1.1.0 REGISTRY="$reg") || exit 1
passed=$((passed + 1))
echo dirt >"$repo/dirt.txt"
refused "a dirty tree" "^release: the working tree is not clean" VERSION=1.1.0 REGISTRY="$reg"
rm "$repo/dirt.txt"

step "$page, 'Install on a server': the tag v1.0.0 cloned from the maintainer's repository"
answers() { # VERSION [DIR]: both containers of that version, and Nginx's 302 to an image it serves
  local url=https://127.0.0.1:$https_port location code type dir=${2:-$server/fox-avatar}
  for n in app nginx; do
    [ "$(cd "$dir" && docker inspect -f '{{.Config.Image}}' "$(docker compose ps -q "$n")")" = "$reg/fox-avatar/$n:$1" ] \
      || fail "$n does not run $reg/fox-avatar/$n:$1"
  done
  location=$(curl -ksS -o /dev/null -w '%{http_code} %{redirect_url}' "$url/")
  [[ $location == "302 https://"* ]] || fail "Nginx answers '$location'"
  read -r code type < <(curl -ksS -o /dev/null -w '%{http_code} %{content_type}\n' "$url/${location#302 https://*/}")
  [ "$code" = 200 ] && [[ $type == image/* ]] || fail "${location#302 }: $code $type"
}
answers 1.0.0 "$repo"
ok "the first block: 1.0.0 runs from the registry in the maintainer's checkout: 302 to an image, 200"
docblock 1 --cwd "$server" --clone-from "$repo"
[ "$(git -C "$server/fox-avatar" describe --tags)" = v1.0.0 ] || fail "the server's checkout is not v1.0.0"
answers 1.0.0
ok "a server: the tag v1.0.0 cloned, 1.0.0 runs from the registry: 302 to an image, 200"

step "$page, 'Upgrade': 1.1.0 released, then the page's upgrade block"
sed -i '0,/^## \[Unreleased\]$/s//&\n\n### Fixed\n\n- test-release: a change for 1.1.0./' "$repo/CHANGELOG.md"
git -C "$repo" commit -q -am "test-release: a change for 1.1.0"
registry_config() { # read-only|read-write: the registry's storage refuses pushes, or takes them
  local conf=/etc/docker/registry/config.yml
  [ -f "$tmp/registry.yml" ] || docker cp "$id-registry:$conf" "$tmp/registry.yml"
  if [ "$1" = read-only ]; then
    sed 's/^storage:$/&\n  maintenance:\n    readonly:\n      enabled: true/' "$tmp/registry.yml" >"$tmp/registry-now.yml"
  else
    cp "$tmp/registry.yml" "$tmp/registry-now.yml"
  fi
  docker cp "$tmp/registry-now.yml" "$id-registry:$conf" && docker restart "$id-registry" >/dev/null
  poll 30 curl -fsS -o /dev/null "http://$reg/v2/" || fail "the registry at $reg does not answer /v2/ ($1)"
}
registry_config read-only
if make -s -C "$repo" release VERSION=1.1.0 REGISTRY="$reg" >"$tmp/out" 2>&1; then fail "make release 1.1.0 passed with a read-only registry"; fi
grep -q "^release: 1.1.0 FAILED (exit [0-9]*) after its commit; .*run the same make release again" "$tmp/out" \
  || { cat "$tmp/out" >&2; fail "a refused push: no line saying how to finish"; }
[ "$(git -C "$repo" log -1 --format=%s)" = "Release 1.1.0" ] && [ "$(git -C "$repo" rev-parse 'v1.1.0^{commit}')" = "$(git -C "$repo" rev-parse HEAD)" ] \
  || fail "after a refused push, HEAD is not 'Release 1.1.0' tagged v1.1.0"
ok "a refused push: the commit and tag stay, and it says how to finish: $(grep '^release: 1.1.0 FAILED' "$tmp/out")"
registry_config read-write
make -s -C "$repo" release VERSION=1.1.0 REGISTRY="$reg" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "make release 1.1.0 (again, to finish)"; }
grep -q "resuming 1.1.0" "$tmp/out" || { cat "$tmp/out" >&2; fail "the second make release 1.1.0 did not resume"; }
[ "$(git -C "$repo" log -1 --format=%s)" = "Release 1.1.0" ] && [ "$(git -C "$repo" log -2 --format=%s | tail -n1)" != "Release 1.1.0" ] \
  || fail "the resumed release made another commit"
(cd "$repo/dist/1.1.0" && sha256sum --quiet -c SHA256SUMS) || fail "dist/1.1.0's SHA256SUMS does not verify"
ok "the same make release again finished 1.1.0: pushed, one commit, dist/1.1.0 verifying"
step "an owner's server lived in: a public name, monitoring, own pictures, people, the upgrade block, a renewal"
OWNER_CHECKOUT=$server/fox-avatar OWNER_SERVER=$server OWNER_REPO=$repo \
  python -m pytest -q -s -p no:cacheprovider tests/release/test_owner_server.py \
  || fail "the owner's server (tests/release/test_owner_server.py)"
answers 1.1.0
ok "upgraded: 1.1.0 runs, 302 to an image, 200"
git -C "$repo" tag -d v1.1.0 >/dev/null
sed -i '0,/^## \[Unreleased\]$/s//&\n\n### Fixed\n\n- test-release: another change./' "$repo/CHANGELOG.md"
git -C "$repo" commit -q -am "test-release: another change"
refused "the same version (in the registry)" "^release: VERSION: 1.1.0 is already released ($reg/fox-avatar/app:1.1.0 is in the registry)" \
  VERSION=1.1.0 REGISTRY="$reg"

step "1.1.0 for linux/arm64, run by compose under qemu"
# The release alone: the owner's settings (their set, the list, ACME, the monitoring profile) go.
(cd "$server/fox-avatar" && docker compose down -v --timeout 5 >/dev/null 2>&1 \
  && printf 'AVATAR_REGISTRY=%s\nAVATAR_VERSION=1.1.0\n' "$reg" >.env) || fail "the owner's stack did not go down"
# Emulation's own cost, not the images': qemu-user's memory beside the JVM passes compose's 64 MiB, and
# a loaded machine starts the emulated JVM slowly. This override gives both room (nothing else changes).
cat >"$tmp/qemu.yml" <<'YAML'
services:
  app:
    deploy: {resources: {limits: {memory: 512m}}}
    healthcheck: {start_period: 300s}
  nginx:
    healthcheck: {start_period: 300s}
YAML
(cd "$server/fox-avatar" && export DOCKER_DEFAULT_PLATFORM=linux/arm64 && docker compose pull -q \
   && docker compose -f docker-compose.yml -f "$tmp/qemu.yml" up -d --wait) || fail "compose did not start the arm64 images"
for n in app nginx; do
  cid=$(cd "$server/fox-avatar" && docker compose ps -q "$n")
  [ "$(docker exec "$cid" uname -m)" = aarch64 ] || fail "$n: uname -m is $(docker exec "$cid" uname -m)"
done
# The programs themselves (an amd64 binary would run natively here whatever the image says): the ELF
# header's machine, 0xb7 for aarch64.
for f in app:/opt/java/bin/java app:/opt/java/lib/server/libjvm.so nginx:/usr/sbin/nginx; do
  cid=$(cd "$server/fox-avatar" && docker compose ps -q "${f%%:*}")
  m=$(docker exec "$cid" od -An -j18 -N2 -tx2 "${f#*:}" | tr -d ' ')
  [ "$m" = 00b7 ] || fail "${f#*:}: ELF machine 0x$m, not aarch64 (0xb7)"
done
answers 1.1.0
ok "arm64: both containers aarch64 (the JVM, libjvm.so and nginx aarch64 programs), the app healthy, 302 to an image, 200"
