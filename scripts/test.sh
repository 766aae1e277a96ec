#!/usr/bin/env bash
# Runs every test of the workspace, the way CI does. Installs missing tools first
# (scripts/setup.sh; a no-op when everything is present).
#
#   scripts/test.sh
#
# Each step runs even if an earlier one failed; the last line counts them:
# `test.sh: N passed, N failed`. The exit status is non-zero if any step failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export CARGO_TERM_COLOR=never

passed=0
failed=0
failures=()
step() {
  local name=$1
  shift
  local t0=$SECONDS
  printf '\n=== %s\n' "$name"
  if "$@"; then
    passed=$((passed + 1))
    printf '=== %s: ok (%d s)\n' "$name" $((SECONDS - t0))
  else
    failed=$((failed + 1))
    failures+=("$name")
    printf '=== %s: FAILED (%d s)\n' "$name" $((SECONDS - t0))
  fi
}

scripts/setup.sh || { echo "test.sh: the tools could not be installed"; echo "test.sh: 0 passed, 1 failed"; exit 1; }
export PATH="$HOME/.cargo/bin:$PATH"

# Loom models: every chapter with tests/loom.rs, under --cfg loom in a target dir of
# their own. A loom suite that runs no model fails: the count must be above zero.
# The filter (default `reference::`) selects the models to run.
loom_models() {
  local filter=${1:-reference::} any=0 dir crate out n
  for dir in chapters/ch*/; do
    [ -f "$dir/tests/loom.rs" ] || continue
    any=1
    crate=$(basename "$dir")
    out=$(RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=3 CARGO_TARGET_DIR=target/loom \
      cargo test -p "$crate" --release --test loom -- "$filter" --test-threads=1 2>&1) || { echo "$out" | tail -40; return 1; }
    n=$(echo "$out" | sed -n 's/^test result: ok\. \([0-9]*\) passed.*/\1/p' | head -1)
    echo "$crate: ${n:-0} loom models ran"
    [ "${n:-0}" -gt 0 ] || { echo "$crate: the loom suite ran no model"; return 1; }
  done
  [ $any = 1 ] || echo "no chapter has loom models yet (chapter 1 has one owner and nothing to interleave)"
}

# The guard above must be able to fail: a filter that selects no model must fail the step.
loom_guard_fails() {
  local out
  out=$(loom_models no_such_model:: 2>&1) && { echo "a loom run of zero models passed:"; echo "$out"; return 1; }
  grep -q "the loom suite ran no model" <<<"$out" || { echo "$out"; return 1; }
  echo "a loom suite that runs no model is refused"
}

# `mdbook test` links the chapter crates from a fresh target dir of their own:
# two builds of one crate in the same deps folder make rustc refuse to pick one.
book_snippets() {
  local deps=target/mdbook-deps
  rm -rf "$deps"
  cargo build -q -p ch01-ring -p ch02-poll -p ch03-last-slot -p ch04-grow -p ch05-phase -p ch06-nsteals -p ch07-pool --target-dir "$deps" && mdbook test -L "$deps/debug/deps"
}

book_build() {
  command -v mdbook-linkcheck2 >/dev/null || { echo "mdbook-linkcheck2 missing: run scripts/setup.sh"; return 1; }
  # mdbook exits 0 when an {{#include}} is missing and only logs an ERROR: count those too.
  local out status
  out=$(mdbook build 2>&1)
  status=$?
  grep -v ' INFO ' <<<"$out"
  [ $status -eq 0 ] && ! grep -q 'ERROR' <<<"$out"
}

# The same probes on the real JDK 25, where one is installed; without one the runner says so
# and the step passes (a missing JDK is not a failure of this project).
jdk_probes() {
  local out
  out=$(probes/jdk/run.sh PhaseProbe 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  grep -q "no JDK 25 found" <<<"$out" && return 0
  grep -q "check: during = before + 0x10000, after = before + 0x20000: yes" <<<"$out" || return 1
  out=$(probes/jdk/run.sh StealExperiment 1 100 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  grep -q "^par= 16 forked=16384 steals=" <<<"$out" || return 1
  out=$(probes/jdk/run.sh ContentionReplica barrier 1 2000 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  grep -q "check: every task taken exactly once" <<<"$out"
}

notebooks() {
  .venv/bin/python scripts/run_notebooks.py
}

# The runner must be able to fail: a fixture with a panicking cell and one with a
# compile error must each fail the run, with the panic or the compiler's message shown.
notebook_runner_fails() {
  local out ok=0
  out=$(.venv/bin/python scripts/run_notebooks.py scripts/fixtures/panics.ipynb 2>&1) && { echo "a panicking cell passed"; ok=1; }
  grep -q "index out of bounds" <<<"$out" || { echo "the panic's message was not shown:"; echo "$out"; ok=1; }
  out=$(.venv/bin/python scripts/run_notebooks.py scripts/fixtures/compile_error.ipynb 2>&1) && { echo "a compile error passed"; ok=1; }
  grep -q "expected \`u32\`, found \`&str\`" <<<"$out" || { echo "the compiler's message was not shown:"; echo "$out"; ok=1; }
  [ $ok = 0 ] && echo "the runner rejects a panicking cell and a compile error, and shows why"
}

step "cargo fmt --check" cargo fmt --all -- --check
step "cargo clippy -D warnings" cargo clippy -q --workspace --all-targets -- -D warnings
step "cargo test (unit, property, probe, doc tests)" cargo test -q --workspace
step "benchmarks smoke (criterion --test)" cargo bench -q --workspace -- --test
step "loom models" loom_models
step "the loom step fails when no model runs" loom_guard_fails
step "cargo grade --check (solutions pass, stubs and mutants fail)" cargo grade --check
step "JDK 25 probes (skipped without a JDK 25)" jdk_probes
step "book: mdbook build + link check" book_build
step "book: mdbook test (snippets)" book_snippets
step "notebook runner fails on a panic and on a compile error" notebook_runner_fails
step "notebooks (headless, evcxr)" notebooks

echo
if [ $failed -gt 0 ]; then
  printf 'failed steps:\n'
  printf '  - %s\n' "${failures[@]}"
fi
echo "test.sh: $passed passed, $failed failed"
[ $failed -eq 0 ]
