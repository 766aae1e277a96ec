#!/usr/bin/env bash
# The article's steal experiment (64 roots x 256 leaves, parallelism 1-16) on our pool, on
# rayon and on the real JDK 25 ForkJoinPool, one after another in one run on this machine.
# Without a JDK 25 the JDK part says so and is skipped.
#
#   scripts/forkjoin-compare.sh [runs [leaf]]     (defaults: 5 runs per row, leaf 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
leaf=${2:-20000}
echo "# forkjoin-compare: $(date -u '+%F %T') UTC, $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
cargo run -q --release -p probes --bin forkjoin-steals -- --runs "$runs" --leaf "$leaf"
probes/jdk/run.sh StealExperiment "$runs" "$leaf"
