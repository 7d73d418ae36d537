# Sourced by the test layers and the bench: a project-local virtualenv (.venv) with the pinned
# test and tooling requirements, (re)built only when tools/requirements.txt (or a file it includes
# with -r) changes. Idempotent; installs nothing globally.
# FOX_VENV_DIR and FOX_VENV_REQUIREMENTS (relative to the repository) name another venv and its
# requirements: `make images` (images/draw.sh, images/pictures.sh) has its own, .venv-images with
# images/requirements.txt (Pillow alone), so that drawing a set needs none of the test tools.
_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
_venv="$_root/${FOX_VENV_DIR:-.venv}"
_req="$_root/${FOX_VENV_REQUIREMENTS:-tools/requirements.txt}"
# The requirements as pip reads them: the file and those it includes (-r FILE, relative to it).
_venv_reqs() {
  cat "$1"
  sed -n 's/^-r[[:space:]]*//p' "$1" | while read -r _inc; do _venv_reqs "$(dirname "$1")/$_inc"; done
}
. "$_root/tools/apt.sh"   # apt_need: under the machine's apt lock
command -v python3 >/dev/null || apt_need python3 python3-venv || return 1
mkdir -p "$_root/.cache"
# Serialise (re)builds: two layers starting at once must not install over each other.
exec 9>"$_root/.cache/venv.lock"
flock 9
if [ ! -x "$_venv/bin/python" ] || ! _venv_reqs "$_req" | cmp -s - "$_venv/.requirements.txt"; then
  # Debian ships venv's ensurepip in python3-venv: without it `python3 -m venv` fails half-way, in
  # many lines, and leaves a venv without pip behind. Only root installs it (apt_need).
  python3 -c 'import ensurepip' 2>/dev/null || apt_need python3-venv || { flock -u 9; return 1; }
  echo "venv: installing pinned requirements into $_venv" >&2
  python3 -m venv "$_venv"
  "$_venv/bin/pip" install -q --disable-pip-version-check -r "$_req"
  _venv_reqs "$_req" >"$_venv/.requirements.txt"
fi
export PATH="$_venv/bin:$PATH"
flock -u 9
exec 9>&-
unset _root _venv _req
unset -f _venv_reqs
