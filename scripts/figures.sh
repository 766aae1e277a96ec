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
