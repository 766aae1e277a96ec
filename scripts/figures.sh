#!/usr/bin/env bash
# Regenerates the measured figures the book includes. Run it on a quiet machine;
# the files it writes name the machine, the date and the command.
#
#   scripts/figures.sh          all figures
set -euo pipefail
cd "$(dirname "$0")/.."

echo "[figures] ch01: probe output"
UPDATE_FIGURES=1 cargo test -q -p probes --test figures

echo "[figures] ch01: owner push+pop beside VecDeque and crossbeam-deque"
home=target/figures/criterion
rm -rf "$home"
cmd="cargo bench -p ch01-ring --bench ring -- --warm-up-time 1 --measurement-time 3 --noplot"
CRITERION_HOME="$PWD/$home" $cmd >/dev/null
# 256 pushes + 256 takes per iteration (benches/ring.rs, BATCH = 256).
python3 scripts/bench_table.py "$home" chapters/ch01-ring/figures/bench.md 512 "$cmd" \
  "push_pop_lifo:ch01 Ring,VecDeque,crossbeam Worker" \
  "push_pop_fifo:ch01 Ring,VecDeque,crossbeam Worker"

label() { # what, command
  printf '# %s\n# %s, %s cores, %s; command:\n# %s\n\n' "$1" "$(date -u +%F)" "$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$2"
}

echo "[figures] ch02: loom on the reference and on two mutants"
loom_run() { # file-to-test, test filter
  RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=3 CARGO_TARGET_DIR=target/loom GRADE_EXERCISE_FILE="$1" \
    cargo test -q -p ch02-poll --features exercise --release --test loom -- "$2" --test-threads=1 2>&1 |
    grep -v '^\s*[0-9]*: \|^\s*at \|^note: \|^$\|^stack backtrace' || true
}
for m in relaxed_slot_load no_base_recheck; do
  f=$(cargo grade ch02 --mutant $m)
  cmd="f=\$(cargo grade ch02 --mutant $m); RUSTFLAGS=\"--cfg loom\" LOOM_MAX_PREEMPTIONS=3 GRADE_EXERCISE_FILE=\$f cargo test -p ch02-poll --features exercise --release --test loom -- exercise::a_reused --test-threads=1"
  { label "loom on the mutant $m" "$cmd"; loom_run "$f" exercise::a_reused; } > chapters/ch02-poll/figures/loom-$m.txt
done
cmd='RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=3 cargo test -p ch02-poll --release --test loom -- reference:: --test-threads=1'
{ label "loom on the reference" "$cmd"; loom_run "$PWD/chapters/ch02-poll/src/poll.rs" reference::; } > chapters/ch02-poll/figures/loom-reference.txt

echo "[figures] ch02: owner and single-thief costs beside crossbeam-deque"
rm -rf "$home"
cmd="cargo bench -p ch02-poll --bench poll -- --warm-up-time 1 --measurement-time 3 --noplot"
CRITERION_HOME="$PWD/$home" $cmd >/dev/null 2>&1
python3 scripts/bench_table.py "$home" chapters/ch02-poll/figures/bench.md 512 "$cmd" \
  "owner_push_pop:ch02 Owner,crossbeam Worker" \
  "push_then_poll:ch02 Owner+Stealer,crossbeam Worker+Stealer"

echo "[figures] ch02: CAS failures per attempt, 1..4 thieves"
cmd="cargo run --release -p probes --bin poll-contention -- --tasks 200000 --thieves 1,2,3,4 --runs 5"
{ label "poll-contention" "$cmd"; $cmd; } > chapters/ch02-poll/figures/contention.txt

echo "[figures] ch03: the no-branch mutant under the paused-thief test and under loom"
f=$(cargo grade ch03 --mutant no_last_slot_branch)
cmd="f=\$(cargo grade ch03 --mutant no_last_slot_branch); GRADE_EXERCISE_FILE=\$f cargo test -p ch03-last-slot --features exercise --test take -- exercise::the_owner_never --exact"
{ label "the paused-thief test on the mutant no_last_slot_branch" "$cmd"
  GRADE_EXERCISE_FILE=$f cargo test -q -p ch03-last-slot --features exercise --test take -- exercise::the_owner_never_waits_for_a_paused_thief_on_the_last_task --exact 2>&1 |
    grep -v '^\s*[0-9]*: \|^\s*at \|^note: \|^$\|^stack backtrace\|^warning\|^ *|\|^ *-->\|^ *= ' || true
} > chapters/ch03-last-slot/figures/paused-thief-no-branch.txt
cmd="f=\$(cargo grade ch03 --mutant no_last_slot_branch); RUSTFLAGS=\"--cfg loom\" LOOM_MAX_PREEMPTIONS=3 GRADE_EXERCISE_FILE=\$f cargo test -p ch03-last-slot --features exercise --release --test loom -- exercise:: --test-threads=1"
{ label "loom on the mutant no_last_slot_branch" "$cmd"
  RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=3 CARGO_TARGET_DIR=target/loom GRADE_EXERCISE_FILE=$f \
    cargo test -q -p ch03-last-slot --features exercise --release --test loom -- exercise:: --test-threads=1 2>&1 | grep -E '^test |test result|^running' || true
} > chapters/ch03-last-slot/figures/loom-no-branch.txt

echo "[figures] ch03: FIFO owner beside crossbeam's FIFO Worker"
rm -rf "$home"
cmd="cargo bench -p ch03-last-slot --bench take -- --warm-up-time 1 --measurement-time 3 --noplot"
CRITERION_HOME="$PWD/$home" $cmd >/dev/null 2>&1
python3 scripts/bench_table.py "$home" chapters/ch03-last-slot/figures/bench.md 512 "$cmd" \
  "owner_fifo_push_take:ch03 Owner,crossbeam Worker"
