#!/usr/bin/env bash
# Installs the tools this workspace needs, each pinned, each skipped when the
# pinned version is already there. Then, with `serve`, serves the book.
#
#   scripts/setup.sh          install what is missing
#   scripts/setup.sh serve    install what is missing, then `mdbook serve` on 127.0.0.1:3000
#
# A cold install takes about 20 minutes on 2 cores; evcxr_jupyter is most of it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

MDBOOK=0.5.4
LINKCHECK=0.13.0
EVCXR=0.22.0
PY_PKGS=(nbclient==0.11.0 nbformat==5.11.1 jupyter-client==8.10.0)
VENV="$root/.venv"

say() { printf '[setup] %s\n' "$*"; }
have_crate() { cargo install --list 2>/dev/null | grep -q "^$1 v$2:"; }
install_crate() {
  local name=$1 version=$2 minutes=$3
  if have_crate "$name" "$version"; then
    say "$name $version: present, skipped"
  else
    say "$name $version: installing with cargo (about $minutes min on 2 cores)..."
    local t0=$SECONDS
    cargo install --locked --quiet "$name" --version "$version"
    say "$name $version: installed in $((SECONDS - t0)) s"
  fi
}

command -v cargo >/dev/null || { echo "[setup] cargo not found: install Rust with rustup first" >&2; exit 1; }
command -v python3 >/dev/null || { echo "[setup] python3 not found" >&2; exit 1; }

install_crate mdbook "$MDBOOK" 2
install_crate mdbook-linkcheck2 "$LINKCHECK" 6
install_crate evcxr_jupyter "$EVCXR" 15

# The evcxr kernel must be registered with Jupyter for the notebook runner to find it.
kernel_dir="${JUPYTER_DATA_DIR:-$HOME/.local/share/jupyter}/kernels/rust"
if [ -f "$kernel_dir/kernel.json" ]; then
  say "evcxr kernel: registered, skipped"
else
  say "evcxr kernel: registering"
  evcxr_jupyter --install
fi

# Python side: a venv with the notebook runner's libraries.
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -m pip freeze 2>/dev/null | grep -qix "${PY_PKGS[0]}"; then
  say "python venv: present, skipped"
else
  say "python venv: creating $VENV with ${PY_PKGS[*]} (seconds)"
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PY_PKGS[@]}"
fi

say "all tools present"
if [ "${1:-}" = serve ]; then
  say "serving the book on http://127.0.0.1:3000 (Ctrl-C stops it)"
  exec mdbook serve --hostname 127.0.0.1 --port 3000 --open=false 2>/dev/null || exec mdbook serve --hostname 127.0.0.1 --port 3000
fi
