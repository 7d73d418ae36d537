#!/bin/bash
# The Nginx image's start, in the official image's form: when the command is Nginx serving (or
# testing its configuration), each executable file of /docker-entrypoint.d/ runs in order (an
# *.envsh is sourced: it exports what the later ones read), then the command. Any other command
# (nginx -V, bash) runs with no setting. A failing file has said why in one line and stops the start.
set -euo pipefail
serving() {
  [[ ${1:-} == nginx ]] || return 1
  local arg
  for arg in "${@:2}"; do [[ $arg != -[vVh?] ]] || return 1; done
}
if serving "$@"; then
  for file in /docker-entrypoint.d/*; do
    [[ -f $file && -x $file ]] || continue
    # shellcheck source=/dev/null
    case $file in
      *.envsh) . "$file" ;;
      *.sh) "$file" ;;
    esac
  done
fi
exec "$@"
