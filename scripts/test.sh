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
source scripts/lib.sh
check_args "$root/scripts/test.sh" "" "$@"
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
# As in setup.sh: the venv last, for mdbook where it came as a wheel.
export PATH="$HOME/.cargo/bin:$PATH:$PWD/.venv/bin"

# Loom models: every chapter with tests/loom.rs, under loom_cargo (scripts/loom.env). A loom suite that runs no model fails: the count must be above zero.
# A filter, if given, selects the models to run; by default every model but the exercise's
# (`exercise::`, which needs the grader's feature), in the chapters and in the `reclaim` crate.
loom_models() {
  local any=0 dir crate out n select
  if [ $# -gt 0 ]; then select=("$1"); else select=(--skip exercise::); fi
  for dir in chapters/*/; do
    [ -f "$dir/tests/loom.rs" ] || continue
    any=1
    crate=$(basename "$dir")
    out=$(loom_cargo test -p "$crate" --release --test loom -- "${select[@]}" --test-threads=1 2>&1) ||
      { echo "$out" | tail -40; return 1; }
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

# README's "How a chapter is wired" names every file of the exercise seam: each path it names
# (from the workspace root) must exist. Run on a copy that names one more, missing, it must fail.
wiring_missing() { # readme: prints the paths its wiring section names that do not exist
  sed -n '/^## How a chapter is wired/,/^## /p' "$1" | grep -o '`[^` ]*[/.][^` ]*`' | tr -d '`' |
    grep -v '^\.\./\|^src/' | grep '/' | sort -u | while read -r path; do
      [ -e "$path" ] || echo "$path"
    done
}
wiring_files_exist() {
  local missing fake
  [ "$(sed -n '/^## How a chapter is wired/,/^## /p' README.md | grep -c '`chapters/')" -gt 3 ] ||
    { echo "README has no wiring section naming the seam's files"; return 1; }
  missing=$(wiring_missing README.md)
  [ -z "$missing" ] || { echo "README's wiring section names files that do not exist:"; echo "$missing"; return 1; }
  fake=$(mktemp)
  sed 's|^1\. `chapters/ch02-poll/Cargo.toml`|1. `chapters/ch02-poll/no-such-file.rs` `chapters/ch02-poll/Cargo.toml`|' README.md > "$fake"
  missing=$(wiring_missing "$fake"); rm -f "$fake"
  [ "$missing" = chapters/ch02-poll/no-such-file.rs ] || { echo "the wiring check missed a missing file"; return 1; }
  echo "every file README's wiring section names exists (and a missing one is caught)"
}

# A shipped loom mutant, graded as a reader's file: the report card must show the failing
# execution as a timeline whose steps name exercise.rs lines, and quote those lines (here the
# Relaxed slot load the mutant made). The same card with the timeline cut out must fail the
# check, so that it can fail.
has_timeline() {
  grep -qE "^ +[0-9]+ +exercise\.rs:[0-9]+ (load|store|cas|swap)" <<<"$1" &&
    grep -qE "^ +exercise\.rs:[0-9]+: let t = q\.slot\(b\)\.load\(Relaxed\);" <<<"$1"
}
loom_timeline_shown() {
  local m out
  m=$(cargo grade ch02 --mutant relaxed_slot_load) || return 1
  out=$(cargo grade ch02 --file "$m" 2>&1) && { echo "$out"; echo "the mutant passed every check"; return 1; }
  has_timeline "$out" ||
    { echo "$out" | tail -40; echo "no timeline naming the exercise's lines in the report card"; return 1; }
  ! has_timeline "$(sed "/loom's failing execution/,\$d" <<<"$out")" ||
    { echo "the timeline check passed a card without a timeline"; return 1; }
  echo "the report card shows the failing execution step by step, in exercise.rs's lines"
}

# `cargo grade --quick` leaves the benchmark gate out: on the reference, every other check runs
# and the gate does not. The time to a first verdict on the shipped stub is printed, not asserted.
grade_quick_skips_the_gate() {
  local out t0
  out=$(cargo grade ch03 --quick --file solutions/ch03-last-slot/take.rs 2>&1) || { echo "$out"; return 1; }
  grep -q 'running bench' <<<"$out" && { echo "$out"; echo "--quick ran the benchmark gate"; return 1; }
  grep -q '^  - bench   not run (--quick)' <<<"$out" || { echo "$out"; echo "the card does not say the gate was left out"; return 1; }
  grep -q '^  ✓ loom' <<<"$out" || { echo "$out"; echo "--quick did not run the loom models"; return 1; }
  t0=$SECONDS
  cargo grade ch03 --quick --file chapters/ch03-last-slot/src/exercise.rs >/dev/null 2>&1 &&
    { echo "the stub passed"; return 1; }
  echo "--quick: every check but the gate; the stub's first verdict came in $((SECONDS - t0)) s"
}

# `cargo grade --watch` grades again when the file is saved: a copy of the stub, graded in the
# background, is changed once; two report cards must follow. Stopped with its process group.
grade_watch_regrades() {
  local tmp pid cards n
  tmp=$(mktemp -d)
  cp chapters/ch03-last-slot/src/exercise.rs "$tmp/exercise.rs"
  cargo build -q -p grader
  setsid cargo grade ch03 --watch --quick --file "$tmp/exercise.rs" >"$tmp/out" 2>&1 &
  pid=$!
  cards() { grep -c '^  watching ' "$tmp/out"; }
  for _ in $(seq 300); do [ "$(cards)" -ge 1 ] && break; sleep 0.5; done
  echo "// saved once more" >>"$tmp/exercise.rs"
  for _ in $(seq 300); do [ "$(cards)" -ge 2 ] && break; sleep 0.5; done
  n=$(cards)
  kill -- "-$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  [ "$n" -ge 2 ] && grep -q 'changed: grading again' "$tmp/out" ||
    { cat "$tmp/out"; rm -rf "$tmp"; echo "--watch did not grade again after a save"; return 1; }
  rm -rf "$tmp"
  echo "--watch graded again after the file was saved"
}

# `mdbook test` links the chapter crates from a fresh target dir of their own:
# two builds of one crate in the same deps folder make rustc refuse to pick one.
book_snippets() {
  local deps=target/mdbook-deps
  rm -rf "$deps"
  local crates
  crates=$(chapters_toml name | sed 's/[^ ]*/-p &/g')
  # shellcheck disable=SC2086 # one word per -p and crate
  cargo build -q $crates --target-dir "$deps" && mdbook test -L "$deps/debug/deps"
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

# The diagrams' check must be able to fail: in a scratch tree, never this one, a changed SVG
# and a missing one must each fail `diagrams.py --check`, which must name both.
diagram_check_fails() {
  local tmp out ok=0
  tmp=$(mktemp -d)
  python3 scripts/diagrams.py --dir "$tmp" >/dev/null &&
    python3 scripts/diagrams.py --check --dir "$tmp" >/dev/null || { echo "fresh diagrams failed the check"; ok=1; }
  printf ' ' >>"$tmp/chapters/ch05-phase/figures/phase-bits.svg"
  rm -f "$tmp/chapters/ch07-pool/figures/queues-array.svg"
  out=$(python3 scripts/diagrams.py --check --dir "$tmp" 2>&1) && { echo "a changed and a missing diagram passed"; ok=1; }
  grep -q "phase-bits.svg is stale" <<<"$out" || { echo "the changed diagram was not named:"; echo "$out"; ok=1; }
  grep -q "queues-array.svg is missing" <<<"$out" || { echo "the missing diagram was not named:"; echo "$out"; ok=1; }
  rm -rf "$tmp"
  [ $ok = 0 ] && echo "diagrams.py --check names a changed and a missing diagram, and fails"
}

# The name check must be able to fail: a page that quotes a test by a name no source has.
book_names_check_fails() {
  local tmp out ok=0 name="a_test_renamed_$RANDOM$RANDOM" # not written whole in any source
  tmp=$(mktemp -d)
  printf 'Run `%s` to see it.\n' "$name" >"$tmp/draft.md"
  out=$(python3 scripts/book_names.py --page "$tmp/draft.md" 2>&1) && { echo "a page naming a missing test passed"; ok=1; }
  grep -q "draft.md:1: \`$name\` is named by the book but found in no source file" <<<"$out" ||
    { echo "the missing name was not shown with its page and line:"; echo "$out"; ok=1; }
  # The JDK half: a misspelt JDK method must fail too, where book_names.py found a JDK 25 with
  # its sources (it says when it did not, and passes: then that half was not tried).
  local jdk_name="tryRemoveAndExec$RANDOM" # no JDK method ends in digits
  printf 'The JDK calls `WorkQueue.%s` first.\n' "$jdk_name" >"$tmp/jdk.md"
  if out=$(python3 scripts/book_names.py --page "$tmp/jdk.md" 2>&1); then
    grep -q "camelCase names were not checked" <<<"$out" &&
      echo "book_names.py found no JDK 25 sources here: the JDK half was not tried" ||
      { echo "a page naming a JDK method JDK 25 lacks passed:"; echo "$out"; ok=1; }
  elif ! grep -q "jdk.md:1: \`$jdk_name\` is quoted as the JDK's but JDK 25 has no such name" <<<"$out"; then
    echo "the misspelt JDK name was not shown with its page and line:"; echo "$out"; ok=1
  fi
  rm -rf "$tmp"
  [ $ok = 0 ] && echo "book_names.py names the page line that quotes a name no source has (or, from the JDK, one JDK 25 lacks), and fails"
}

# The figure-lines check must be able to fail: in a copy of chapters/, one line more at the top
# of chapter 7's sleep.rs moves every line a loom figure quotes from it.
figure_lines_check_fails() {
  local tmp out ok=0
  tmp=$(mktemp -d)
  cp -r chapters "$tmp/"
  python3 scripts/figure_lines.py --dir "$tmp" >/dev/null || { echo "a fresh copy failed the check"; ok=1; }
  sed -i '1i // one line more' "$tmp/chapters/ch07-pool/src/sleep.rs"
  out=$(python3 scripts/figure_lines.py --dir "$tmp" 2>&1) && { echo "moved lines passed the check"; ok=1; }
  grep -q "loom-park_without_recheck.txt:[0-9]*: sleep.rs:" <<<"$out" || { echo "the stale figure was not named:"; echo "$out"; ok=1; }
  rm -rf "$tmp"
  [ $ok = 0 ] && echo "figure_lines.py names the figure line whose source line moved, and fails"
}

# The chapter-diff check must be able to fail: in a copy of chapters/, never this tree, the
# figures are regenerated and must pass; then one more line of code in chapter 3's lib.rs must
# fail `chapter_diff.py --check`, which must name chapter 3's changes.diff as stale, and a
# changed line in chapter 4's poll must name the piece its page shows alone, poll.diff.
chapter_diff_check_fails() {
  local tmp out ok=0
  tmp=$(mktemp -d)
  cp -r chapters "$tmp/"
  python3 scripts/chapter_diff.py --dir "$tmp" >/dev/null &&
    python3 scripts/chapter_diff.py --check --dir "$tmp" >/dev/null || { echo "fresh chapter diffs failed the check"; ok=1; }
  echo 'pub fn added_after_the_figure() {}' >>"$tmp/chapters/ch03-last-slot/src/lib.rs"
  out=$(python3 scripts/chapter_diff.py --check --dir "$tmp" 2>&1) && { echo "a changed crate passed the check"; ok=1; }
  grep -q "stale: chapters/ch03-last-slot/figures/changes.diff" <<<"$out" || { echo "the stale figure was not named:"; echo "$out"; ok=1; }
  # A piece a page shows alone (chapter 4's poll.diff) goes stale with the code it diffs.
  sed -i 's/let mut pb = None;/let mut pb = None; let _added = 0;/' "$tmp/chapters/ch04-grow/src/take.rs"
  out=$(python3 scripts/chapter_diff.py --check --dir "$tmp" 2>&1)
  grep -q "stale: chapters/ch04-grow/figures/poll.diff" <<<"$out" || { echo "the stale piece was not named:"; echo "$out"; ok=1; }
  rm -rf "$tmp"
  [ $ok = 0 ] && echo "chapter_diff.py --check names the figure a changed crate made stale (a piece shown alone too), and fails"
}

# Serves <html-dir> on 127.0.0.1 on a free port (python3's http.server) and runs the browser
# check (scripts/browser/check_book.mjs) on it with the options given. The server is stopped when
# the check ends, pass or fail, and by the EXIT trap if test.sh is interrupted meanwhile.
check_in_browser() {
  local dir=$1 port pid status
  shift
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  python3 -m http.server "$port" --bind 127.0.0.1 --directory "$dir" >/dev/null 2>&1 &
  pid=$!
  # shellcheck disable=SC2064 # the pid is meant to be expanded now
  trap "kill $pid 2>/dev/null" EXIT
  for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
  node scripts/browser/check_book.mjs "http://127.0.0.1:$port/" "$dir" "$@"
  status=$?
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  trap - EXIT
  return $status
}

# Every page of the built book in headless Chromium: title, heading and code shown, no console
# error, no failed request, no broken image; the search finds tryLockPhase on chapter 5's page.
# Screenshots of the introduction and chapter 5 go to target/browser/ for review.
book_browser() {
  [ -f target/book/html/index.html ] || { echo "target/book/html/index.html missing: the book did not build"; return 1; }
  check_in_browser target/book/html
}

# The browser check must be able to fail. On the fixture site (scripts/fixtures/browser-bad/, one
# problem of each kind, and one good page with an SVG figure that must pass) it must exit non-zero
# and name every problem; and on the real book a search whose results miss the expected page must
# fail (tryLockPhase is not on chapter 1's page).
book_browser_fails() {
  local fixture=scripts/fixtures/browser-bad out ok=0 expect shots
  shots=$(mktemp -d)
  out=$(check_in_browser "$fixture/html" --src "$fixture/src" --no-search --exercise-fns fixture_answer \
    --screenshots good.html,no-such-page.html --out "$shots" 2>&1) && { echo "the broken fixture site passed"; ok=1; }
  rm -rf "$shots"
  for expect in \
    'ok    good.html' \
    'HTTP 404: /figures/missing.svg' \
    'broken image: figures/missing.svg' \
    'broken image: data:image/png' \
    'console error: fixture: a console error' \
    'uncaught exception: fixture: an uncaught exception' \
    'request failed: /good.html (net::ERR_ABORTED)' \
    'the <h1> heading shows no text' \
    'FAIL  no-heading.html' \
    'the document has no title' \
    'no <h1> heading' \
    'shows 1 code blocks, its markdown source has 2' \
    "shows the body of the exercise's fixture_answer" \
    '1 code block(s) are empty' \
    'screenshot of no-such-page.html: no such page' \
    'check_book: FAILED'; do
    grep -q -F -- "$expect" <<<"$out" || { echo "not reported: $expect"; ok=1; }
  done
  [ $ok = 0 ] || { echo "$out"; return 1; }
  [ -f target/book/html/index.html ] || { echo "target/book/html/index.html missing: the book did not build"; return 1; }
  out=$(check_in_browser target/book/html --search-only --search tryLockPhase=ch01-ring/index.html 2>&1) \
    && { echo "a search that misses the expected page passed:"; echo "$out"; return 1; }
  grep -q 'no result for "tryLockPhase" links to ch01-ring/index.html' <<<"$out" || { echo "$out"; return 1; }
  echo "the browser check rejects each broken page of the fixture, passes its good page, and rejects a search that misses its page"
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
  out=$(probes/jdk/run.sh StealExperiment 1 100 0 2 norows lifo 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  grep -q "joins its leaves newest first" <<<"$out" && grep -q "^par= 2 forked=16384 steals=" <<<"$out" || return 1
  out=$(probes/jdk/run.sh ContentionReplica barrier 1 2000 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  grep -q "check: every task taken exactly once" <<<"$out"
}

notebooks() {
  .venv/bin/python scripts/run_notebooks.py
}

# The pins' other path. Where `membarrier` works (Linux), the tests above ran with the seals
# fencing for the pins (chapters/reclaim/src/barrier.rs); these run with each pin fencing for
# itself, the path of every other system, after checking that the switch took.
symmetric_pins() {
  local head
  head=$(RECLAIM_FENCE=symmetric cargo run -q --release -p probes --bin queue-ops -- \
    --runs 1 --tasks 4096 --thieves 1 2>&1 | head -1)
  [[ $head == *"pin fence: fence"* ]] || { echo "RECLAIM_FENCE=symmetric was not followed: $head"; return 1; }
  RECLAIM_FENCE=symmetric cargo test -q -p reclaim -p ch02-poll -p ch04-grow -p ch07-pool
}

# The runner must be able to fail: a fixture with a panicking cell and one with a
# compile error must each fail the run, with the panic or the compiler's message shown.
notebook_runner_fails() {
  local out ok=0
  out=$(.venv/bin/python scripts/run_notebooks.py scripts/fixtures/panics.ipynb 2>&1) && { echo "a panicking cell passed"; ok=1; }
  grep -q "index out of bounds" <<<"$out" || { echo "the panic's message was not shown:"; echo "$out"; ok=1; }
  out=$(.venv/bin/python scripts/run_notebooks.py scripts/fixtures/compile_error.ipynb 2>&1) && { echo "a compile error passed"; ok=1; }
  grep -q "expected \`u32\`, found \`&str\`" <<<"$out" || { echo "the compiler's message was not shown:"; echo "$out"; ok=1; }
  # A mistyped option or notebook is refused before any notebook runs (exit 2, said why).
  out=$(.venv/bin/python scripts/run_notebooks.py --wrtie 2>&1); [ $? = 2 ] || { echo "an unknown option was not refused"; ok=1; }
  grep -q "unknown option --wrtie" <<<"$out" || { echo "the unknown option was not named: $out"; ok=1; }
  out=$(.venv/bin/python scripts/run_notebooks.py notebooks/ch99.ipynb 2>&1); [ $? = 2 ] || { echo "a missing notebook was not refused"; ok=1; }
  grep -q "no such notebook: notebooks/ch99.ipynb" <<<"$out" || { echo "the missing notebook was not named: $out"; ok=1; }
  [ $ok = 0 ] && echo "the runner rejects a panicking cell, a compile error, an unknown option and a missing notebook, and shows why"
}

# Every script refuses a mistyped argument before doing anything (exit 2, naming it), where
# it used to ignore it: `setup.sh servee` installed and served nothing, `notebook.sh --port 9`
# opened Jupyter on 8888, `figures.sh ch8` regenerated nothing and said ok. `--help` answers.
scripts_refuse_bad_arguments() {
  local ok=0 cmd out rc
  for cmd in "scripts/setup.sh servee" "scripts/notebook.sh --port" "scripts/figures.sh ch8" \
    "scripts/test.sh --quick" "probes/jdk/run.sh NoSuchProbe"; do
    out=$($cmd 2>&1)
    rc=$?
    [ $rc = 2 ] || { echo "$cmd: exit $rc, not 2"; ok=1; }
    grep -q "'${cmd##* }'" <<<"$out" || { echo "$cmd did not name the argument: $out"; ok=1; }
  done
  for cmd in scripts/setup.sh scripts/notebook.sh scripts/figures.sh scripts/test.sh; do
    out=$($cmd --help 2>&1) || { echo "$cmd --help failed: $out"; ok=1; }
    grep -qF "$cmd" <<<"$out" || { echo "$cmd --help printed no usage: $out"; ok=1; }
  done
  [ $ok = 0 ] && echo "setup.sh, notebook.sh, figures.sh, test.sh and jdk/run.sh refuse an unknown argument, naming it, and answer --help"
}

# The quick lab's table (written by the step before) has the floor columns and verdicts that
# issue 16's targets are read from. Timings are not checked, only that they are reported.
lab_floors_printed() {
  local t=target/lab/quick.md need
  for need in "Floor of one fork:" "| ours/floor |" "Floors: push+pop = 2 x swap SeqCst" \
    "## Verdicts" "queue push+pop, ns (<= 1.3 x max(floor, crossbeam))" "fib20 par 1, ours/floor (<= 1.3)" \
    "| ours ns per leaf | ours inside ns per leaf | rayon ns per leaf |" "## Instructions per operation, counted by valgrind" \
    "| floor + pins ns |" "(floor + pins) and the task boxes and their hand-back" \
    "rayon's join plus the one swap more that the JDK's protocol pays:" \
    "Where 64x256's CPU went, ours, ours inside and rayon:" \
    "Floor of 64x256: the leaves' own work with no pool, all 16,384 split evenly" \
    "64x256 at parallelism 1, where one worker runs every task, per leaf" \
    "| 1 owner + 1 thief at its heels |" "- at the heels (the owner paced" \
    "| ours inside/rayon | ours/JDK |"; do
    grep -qF -- "$need" "$t" || { echo "lab table $t lacks: $need"; return 1; }
  done
  echo "floors (with and without pins; 64x256's timed on the cores together), rayon's join plus one swap, ours/floor, the pools' own work per leaf, where 64x256's CPU went, instruction counts, each pool's time per leaf with one worker, the protocol at a thief's heels, ours in rayon's shape and verdicts are printed"
}

# Build outputs never belong in git: a target/ folder anywhere in the tree.
no_target_tracked() {
  local tracked
  tracked=$(git ls-files | grep -E '(^|/)target/' || true)
  [ -z "$tracked" ] || { echo "git tracks build outputs:"; echo "$tracked" | head; return 1; }
  echo "no path under a target/ folder is tracked"
}

# ... and the check fails on a repository that does track one.
no_target_check_fails() {
  local tmp
  tmp=$(mktemp -d)
  git -C "$tmp" init -q && mkdir -p "$tmp/crate/target" && touch "$tmp/crate/target/out"
  git -C "$tmp" add -f crate/target/out
  if (cd "$tmp" && no_target_tracked >/dev/null); then echo "a tracked target/ passed"; rm -rf "$tmp"; return 1; fi
  rm -rf "$tmp"
  echo "a tracked crate/target/out fails the check"
}

step "no build output tracked by git" no_target_tracked
step "the target/ check fails when git tracks one" no_target_check_fails
step "cargo fmt --check" cargo fmt --all -- --check
step "cargo clippy -D warnings" cargo clippy -q --workspace --all-targets -- -D warnings
step "cargo test (unit, property, probe, doc tests)" cargo test -q --workspace
step "cargo doc: every intra-doc link resolves" env RUSTDOCFLAGS="-D warnings" cargo doc -q --workspace --no-deps
step "benchmarks smoke (criterion --test)" cargo bench -q --workspace -- --test
step "stress tests with each pin fencing for itself (RECLAIM_FENCE=symmetric)" symmetric_pins
step "README's wiring section names files that exist" wiring_files_exist
step "loom models" loom_models
step "a loom failure shows its execution in the exercise's own lines" loom_timeline_shown
step "cargo grade --quick leaves only the benchmark gate out" grade_quick_skips_the_gate
step "cargo grade --watch grades again after a save" grade_watch_regrades
step "the loom step fails when no model runs" loom_guard_fails
step "library mutants: each caught by the test it names" cargo grade --library-mutants
step "library mutants: a harmless edit is not counted as caught" cargo grade --library-mutants --self-test
step "cargo grade --check (solutions pass, stubs and mutants fail)" cargo grade --check
step "JDK 25 probes (skipped without a JDK 25)" jdk_probes
step "contention lab, smoke run (scripts/lab.py --quick)" python3 scripts/lab.py --quick --out target/lab/quick.md
step "the lab prints its floors, ours/floor and a verdict per target" lab_floors_printed
step "book: diagrams match scripts/diagrams.py" python3 scripts/diagrams.py --check
step "the diagram check fails on a changed or missing SVG" diagram_check_fails
step "book: every name it quotes exists (snake_case in the sources, JDK camelCase in JDK 25)" python3 scripts/book_names.py
step "the name check fails on a name no source has" book_names_check_fails
step "book: chapter diffs match the crates" python3 scripts/chapter_diff.py --check
step "the chapter-diff check fails when a crate changes" chapter_diff_check_fails
step "book: the source lines the figures quote are current" python3 scripts/figure_lines.py
step "the figure-lines check fails when a quoted line moves" figure_lines_check_fails
step "book: mdbook build + link check" book_build
step "book: every page in headless Chromium" book_browser
step "browser check fails on a broken page" book_browser_fails
step "book: mdbook test (snippets)" book_snippets
step "scripts refuse an argument they do not take" scripts_refuse_bad_arguments
step "notebook runner fails on a panic, a compile error and bad arguments" notebook_runner_fails
step "notebooks (headless, evcxr)" notebooks

echo
if [ $failed -gt 0 ]; then
  printf 'failed steps:\n'
  printf '  - %s\n' "${failures[@]}"
fi
echo "test.sh: $passed passed, $failed failed"
[ $failed -eq 0 ]
