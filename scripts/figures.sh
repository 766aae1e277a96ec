#!/usr/bin/env bash
# Regenerates the measured figures the book includes. Run it on a quiet machine;
# the files it writes name the machine, the date and the command.
#
#   scripts/figures.sh          all figures
#   scripts/figures.sh ch04     one chapter's figures (several may be named; also: contention, lab,
#                               and loom: every chapter's loom runs on its mutants, with timelines)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
# The sections it takes: each chapter's id, and contention, lab, loom.
check_args "$PWD/scripts/figures.sh" "$(chapters_toml id) contention lab loom" "$@"

chapters=("$@")
want() { [ ${#chapters[@]} -eq 0 ] || [[ " ${chapters[*]} " == *" $1 "* ]]; }
home=target/figures/criterion
# Every figure's label: what, the date, the machine (the `machine` probe: the project's one
# label, which the probes and bench-table print too) and the command.
cargo build -q --release -p probes --bin machine --bin bench-table
label() { # what, command
  printf '# %s\n# %s, %s; command:\n# %s\n\n' "$1" "$(date -u +%F)" "$(target/release/machine)" "$2"
}
bench_table() { target/release/bench-table "$@"; }
# The kind of machine (amd or intel: the probes' one test of it), for the figures the book keeps
# one set of per kind (chapter 7's, the lab's): a run replaces its own kind's.
cpu=$(target/release/machine --kind)


# The lines criterion prints for the benchmarks whose ids match $1 (on stdin: its output),
# without the progress and outlier notes.
bench_lines() {
  grep -A2 "$1" | grep -v '^--$\|^Benchmarking\|^Found\|mild$\|severe$'
}

# Runs a criterion bench into a fresh CRITERION_HOME: criterion CRATE BENCH [seconds [filter]]
# (measurement time, default 3; a filter runs only the benchmarks whose ids match). Sets $cmd
# (the command, for labels) and $out (its output).
criterion() {
  rm -rf "$home"
  cmd="cargo bench -p $1 --bench $2 -- --warm-up-time 1 --measurement-time ${3:-3} --noplot${4:+ $4}"
  out=$(CRITERION_HOME="$PWD/$home" $cmd 2>&1)
}

# One test on a known-wrong variant, labelled: test_mutant CHAPTER CRATE MUTANT TEST-FILE TEST WHAT
test_mutant() {
  local ch=$1 crate=$2 m=$3 file=$4 test=$5 what=$6 f
  f=$(cargo grade "$ch" --mutant "$m")
  label "$what on the mutant $m" "f=\$(cargo grade $ch --mutant $m); GRADE_EXERCISE_FILE=\$f cargo test -p $crate --features exercise --test $file -- exercise::$test --exact"
  GRADE_EXERCISE_FILE=$f cargo test -q -p "$crate" --features exercise --test "$file" -- "exercise::$test" --exact 2>&1 |
    grep -v '^\s*[0-9]*: \|^\s*at \|^note: \|^$\|^stack backtrace\|^warning\|^ *[0-9]* *|\|^ *-->\|^ *= \|^error: test failed' || true
}

# Loom on a known-wrong variant, labelled: loom_mutant CHAPTER CRATE MUTANT FILTER [location]
# (with a fifth argument, LOOM_LOCATION=1 so that loom names the racing accesses' lines).
loom_mutant() {
  local ch=$1 crate=$2 m=$3 filter=$4 loc=${5:+LOOM_LOCATION=1} f
  f=$(cargo grade "$ch" --mutant "$m")
  label "loom on the mutant $m" "f=\$(cargo grade $ch --mutant $m); $(loom_words) ${loc:+$loc }GRADE_EXERCISE_FILE=\$f cargo test -p $crate --features exercise --release --test loom -- $filter --test-threads=1"
  ( [ -z "$loc" ] || export LOOM_LOCATION=1
    GRADE_EXERCISE_FILE="$f" loom_cargo test -q -p "$crate" --features exercise --release --test loom -- "$filter" --test-threads=1 ) 2>&1 |
    grep -av '^\s*[0-9]*: \|^\s*at \|^note: \|^$\|^stack backtrace\|^error: test failed\|^Caused by\|^  process didn\|^warning\|^ *[0-9]* *|\|^ *-->\|^ *= ' || true
}

if want ch01; then
echo "[figures] ch01: the report card of the untouched exercise"
{ label "report card of the untouched exercise" "cargo grade ch01"
  cargo grade ch01 2>&1 | sed -n '/^  [✓✗-] build/,$p' || true
} > chapters/ch01-ring/figures/card-stub.txt
echo "[figures] ch01: probe output"
UPDATE_EXPECT=1 cargo test -q -p probes --test figures
fi

if want ch01; then
echo "[figures] ch01: owner push+pop beside VecDeque and crossbeam-deque"
criterion ch01-ring ring
# 256 pushes + 256 takes per iteration (benches/ring.rs, BATCH = 256).
bench_table "$home" chapters/ch01-ring/figures/bench.md 512 "$cmd" \
  "push_pop_lifo:ch01 Ring,VecDeque,crossbeam Worker" \
  "push_pop_fifo:ch01 Ring,VecDeque,crossbeam Worker"


fi

if want ch02 || want loom; then
echo "[figures] ch02: loom on the reference and on two mutants"
loom_run() { # file-to-test, test filter
  GRADE_EXERCISE_FILE="$1" \
    loom_cargo test -q -p ch02-poll --features exercise --release --test loom -- "$2" --test-threads=1 2>&1 |
    grep -v '^\s*[0-9]*: \|^\s*at \|^note: \|^$\|^stack backtrace' || true
}
for m in relaxed_slot_load no_base_recheck; do
  loom_mutant ch02 ch02-poll $m exercise::a_reused > chapters/ch02-poll/figures/loom-$m.txt
done
cmd="$(loom_words) cargo test -p ch02-poll --release --test loom -- reference:: --test-threads=1"
{ label "loom on the reference" "$cmd"; loom_run "$PWD/chapters/ch02-poll/src/poll.rs" reference::; } > chapters/ch02-poll/figures/loom-reference.txt
fi

if want ch02; then
echo "[figures] ch02: owner and single-thief costs beside crossbeam-deque"
criterion ch02-poll poll
bench_table "$home" chapters/ch02-poll/figures/bench.md 512 "$cmd" \
  "owner_push_pop:ch02 Owner,crossbeam Worker" \
  "push_then_poll:ch02 Owner+Stealer,crossbeam Worker+Stealer"
criterion probes contended 3 contended/
{ label "contended: 1 owner, 1..4 thieves, 20,000 tasks per race, beside crossbeam-deque" "$cmd"
  bench_lines '^contended/' <<<"$out"
  echo
  grep '^contended: ' <<<"$out"
} > chapters/ch02-poll/figures/contended-bench.txt
fi

if want ch02; then
echo "[figures] ch02: CAS failures per attempt, 1..4 thieves"
cmd="cargo run --release -p probes --bin poll-contention -- --tasks 200000 --thieves 1,2,3,4 --runs 5"
{ label "poll-contention" "$cmd"; $cmd; } > chapters/ch02-poll/figures/contention.txt
fi

if want ch03; then
echo "[figures] ch03: the no-branch mutant under the paused-thief test and under loom"
test_mutant ch03 ch03-last-slot no_last_slot_branch take the_owner_never_waits_for_a_paused_thief_on_the_last_task \
  "the paused-thief test" > chapters/ch03-last-slot/figures/paused-thief-no-branch.txt
fi

if want ch03 || want loom; then
echo "[figures] ch03: loom on the no-branch mutant"
loom_mutant ch03 ch03-last-slot no_last_slot_branch exercise:: > chapters/ch03-last-slot/figures/loom-no-branch.txt
echo "[figures] ch03: loom on the mutant that ignores a null swap, with its timeline"
loom_mutant ch03 ch03-last-slot ignore_null_swap exercise:: > chapters/ch03-last-slot/figures/loom-ignore_null_swap.txt
fi

if want ch03; then
echo "[figures] ch03: FIFO owner beside crossbeam's FIFO Worker"
criterion ch03-last-slot take
bench_table "$home" chapters/ch03-last-slot/figures/bench.md 512 "$cmd" \
  "owner_fifo_push_take:ch03 Owner,crossbeam Worker"
fi

if want ch04 || want loom; then
echo "[figures] ch04: loom on two mutants"
for m in relaxed_publish copy_from_base_without_nulling; do
  loom_mutant ch04 ch04-grow $m exercise::a_thief location > chapters/ch04-grow/figures/loom-$m.txt
done
fi

if want ch04; then
echo "[figures] ch04: the stall test on a mutant"
test_mutant ch04 ch04-grow publish_before_move grow thieves_are_not_stalled_by_a_move \
  "the stall test" > chapters/ch04-grow/figures/stalls-publish-first.txt
fi

if want ch04; then
echo "[figures] ch04: growth beside crossbeam-deque; ten million tasks with peak heap"
criterion ch04-grow grow
# 4,096 pushes + 4,096 pops per iteration (benches/grow.rs, GROW_BATCH).
bench_table "$home" chapters/ch04-grow/figures/bench.md 8192 "$cmd" \
  "owner_push_pop_growing:ch04 Owner,crossbeam Worker"
criterion probes contended 3 ten_million/
{ label "ten million tasks, 100 fresh queues growing from 64, 2 thieves" "$cmd"
  bench_lines '^ten_million/' <<<"$out"
  grep '^ten_million: ' <<<"$out"
} > chapters/ch04-grow/figures/ten-million.txt
fi

if want ch05; then
echo "[figures] ch05: the phase probe on the real JDK 25"
cmd="probes/jdk/run.sh PhaseProbe"
{ label "the phase probe on the real JDK 25 ForkJoinPool(2), after one empty task" "$cmd"; $cmd; } > chapters/ch05-phase/figures/jdk-phase-probe.txt
fi

if want ch05 || want loom; then
echo "[figures] ch05: loom on two mutants"
for m in no_release_fence read_without_recheck; do
  loom_mutant ch05 ch05-phase $m exercise::a_seqlock > chapters/ch05-phase/figures/loom-$m.txt
done
fi

if want ch05; then
echo "[figures] ch05: external submission, fixed threads against a thread per task"
criterion ch05-phase submit
{ label "2,000 external submissions into a 64-slot queues array, one thief draining" "$cmd"
  bench_lines '^submit/' <<<"$out"
} > chapters/ch05-phase/figures/submit.txt
fi

if want ch06; then
echo "[figures] ch06: how far getStealCount lags the truth while busy"
cmd="cargo run --release -p probes --bin steal-lag -- --workers 2 --tasks 200000"
{ label "steal-lag: get_steal_count() sampled against the ground truth" "$cmd"; $cmd; } > chapters/ch06-nsteals/figures/steal-lag.txt
fi

if want ch07 || want loom; then
echo "[figures] ch07: loom on the mutant that parks without its recheck"
loom_mutant ch07 ch07-pool park_without_recheck exercise:: location > chapters/ch07-pool/figures/loom-park_without_recheck.txt
echo "[figures] ch07: loom on the mutant whose look below the new task is Acquire"
loom_mutant ch07 ch07-pool looks_below_with_acquire exercise::a_steal > chapters/ch07-pool/figures/loom-looks_below_with_acquire.txt
fi

if want ch07; then
# One set per kind of machine, as the lab's (`$cpu`): the page reads both.
echo "[figures] ch07: the 64 x 256 steal experiment, ours and rayon, and on the real JDK 25"
cmd="cargo run --release -p probes --bin forkjoin-steals -- --runs 5 --leaf-us 15"
{ label "forkjoin-steals: ours and rayon, same machine, same run" "$cmd"; $cmd; } > "chapters/ch07-pool/figures/forkjoin-steals-$cpu.txt"
cmd="probes/jdk/run.sh StealExperiment 5 15us"
{ label "StealExperiment on the real JDK 25 ForkJoinPool" "$cmd"; $cmd; } > "chapters/ch07-pool/figures/jdk-steal-experiment-$cpu.txt"
cmd="probes/jdk/run.sh StealExperiment 5 15us 0 1,2,4,8,16 norows lifo"
{ label "StealExperiment on the real JDK 25, each root joining its leaves newest first" "$cmd"; $cmd; } > "chapters/ch07-pool/figures/jdk-steal-experiment-lifo-$cpu.txt"
echo "[figures] ch07: fib(30) without cutoff and 64 x 256, beside rayon"
criterion probes fork_join 5
{ label "fork/join beside rayon (criterion)" "$cmd"
  bench_lines '^fib30_no_cutoff/\|^64_roots_x_256_leaves/' <<<"$out"
} > "chapters/ch07-pool/figures/bench-$cpu.txt"
echo "[figures] ch07: fib(30) round after round on one long-lived pool, and on a new pool per round"
# (figures/pool-drift-before.txt is historical: the same probe at commit da7e901, before
# thieves sent stolen boxes home; it is not regenerated.)
cmd="cargo run --release -p probes --bin pool-drift"
{ label "pool-drift: one pool for all rounds, then a new pool per round" "$cmd; $cmd -- --fresh"
  $cmd; echo; $cmd -- --fresh; } > "chapters/ch07-pool/figures/pool-drift-$cpu.txt"
fi

if want contention; then
echo "[figures] contention: the article's replica and our poll, staggered and released together; the JDK's replica"
for m in index slot; do
  for s in staggered barrier; do
    cmd="cargo run --release -p probes --bin cas-contention -- --model $m --start $s --runs 5"
    { label "cas-contention, model $m, start $s" "$cmd"; $cmd 2>/dev/null; } > chapters/contention/figures-$m-$s.txt
  done
done
for s in staggered barrier; do
  cmd="probes/jdk/run.sh ContentionReplica $s 5"
  { label "the replica on the real JDK 25, start $s" "$cmd"; $cmd; } > chapters/contention/figures-jdk-$s.txt
done
fi

if want lab; then
echo "[figures] lab: the one-command table (scripts/lab.py) and the profiles that explain it"
python3 scripts/lab.py > target/lab/stdout.md
cp target/lab/table.md chapters/contention/lab-table.md
# One set of the figures below per kind of machine (`$cpu`, above): the book shows both.
# The row that swings most, one owner and one thief, round by round (the page's "Round by round").
cmd="cargo run --release -p probes --bin race-rounds -- --rounds 16"
{ label "race-rounds: 1 owner + 1 thief, ours then crossbeam-deque in each round" "$cmd"; $cmd; } > "chapters/contention/race-rounds-$cpu.txt"
# Where the time goes, by function (perf's self time; needs linux-perf, skipped without it).
profile() { # figure, what, command...
  local fig=$1 what=$2
  shift 2
  { label "$what: perf's self time by function, entries above 1.5%" "perf record -g -o target/lab/perf.data $*; perf report --no-children --sort symbol -g none --stdio --percent-limit 1.5"
    perf record -q -g -o target/lab/perf.data "$@" >/dev/null 2>&1
    perf report -i target/lab/perf.data --no-children --sort symbol -g none --stdio --percent-limit 1.5 2>/dev/null | grep '%' | grep -v '^#' | sed 's/ *- *- *$//'
  } > "$fig"
}
if command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1; then
  cargo build -q --release -p probes --bin forkjoin-steals --bin queue-ops
  for par in 1 2 16; do
    profile "chapters/contention/profile-fib-$par-$cpu.txt" "fib(30), our pool, $par worker(s) on $(nproc) cores" \
      target/release/forkjoin-steals --runs 5 --leaf 1 --par "$par" --fib 30 --ours-only
  done
  profile "chapters/contention/profile-queue-$cpu.txt" "our queue alone: push+pop, push+steal, 1 owner + 1 thief" \
    target/release/queue-ops --runs 20 --ours-only --thieves 1 --pace 0
else
  echo "[figures] lab: perf not available here, the profiles are left as they are"
fi
fi
