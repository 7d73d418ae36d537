# Sourced by the test layers, the bench and images/draw.sh: a project-local virtualenv (.venv) with the pinned
# test and tooling requirements, (re)built only when tools/requirements.txt changes.
# Idempotent; installs nothing globally.
_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
_venv="$_root/.venv"
_req="$_root/tools/requirements.txt"
. "$_root/tools/apt.sh"   # apt_need: under the machine's apt lock
command -v python3 >/dev/null || apt_need python3 python3-venv
mkdir -p "$_root/.cache"
# Serialise (re)builds: two layers starting at once must not install over each other.
exec 9>"$_root/.cache/venv.lock"
flock 9
if [ ! -x "$_venv/bin/python" ] || ! cmp -s "$_req" "$_venv/.requirements.txt"; then
  echo "venv: installing pinned requirements into $_venv" >&2
  python3 -m venv "$_venv" || { apt_need python3-venv && python3 -m venv "$_venv"; }
  "$_venv/bin/pip" install -q --disable-pip-version-check -r "$_req"
  cp "$_req" "$_venv/.requirements.txt"
fi
export PATH="$_venv/bin:$PATH"
flock -u 9
exec 9>&-
unset _root _venv _req
