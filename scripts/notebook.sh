#!/usr/bin/env bash
# Opens the chapter notebooks in Jupyter (Rust kernel: evcxr) on 127.0.0.1:8888.
# Needs scripts/setup.sh to have run once.
#
#   scripts/notebook.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"
check_args "$root/scripts/notebook.sh" "" "$@"
[ -x "$root/.venv/bin/jupyter-notebook" ] || { echo "Jupyter is not installed yet: run scripts/setup.sh first" >&2; exit 1; }
export EVCXR_TMPDIR="${EVCXR_TMPDIR:-$root/target/evcxr}"
mkdir -p "$EVCXR_TMPDIR"
# Jupyter refuses to start as root unless told; a container or a fresh VM often is root.
as_root=()
[ "$(id -u)" = 0 ] && as_root=(--allow-root)
exec "$root/.venv/bin/jupyter-notebook" --ip 127.0.0.1 --port 8888 --no-browser "${as_root[@]}" \
  --notebook-dir "$root/notebooks"
