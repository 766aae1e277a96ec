// Steal accounting: the reference solution of the chapter 6 exercise. Compiled twice (as
// `ch06_nsteals::steals`, and by the grader in place of `src/exercise.rs`), so: no inner `//!`
// docs, items named through `crate::`.
// [JDK 25: `WorkQueue.nsteals`, `ForkJoinPool.stealCount`, `runWorker`, `deregisterWorker`,
// `getStealCount`]

use crossbeam_utils::CachePadded;

use crate::sync::Ordering::{Acquire, Relaxed, Release};
use crate::sync::{AtomicU32, AtomicU64};

// ANCHOR: count_take
/// A worker took a task from the queue at index `from`; its own queue is at `own`. Only a
/// task taken from another queue (a worker's, or a submission queue) is a steal.
/// [JDK: `w.nsteals = ++nsteals` in `runWorker`'s scan]
pub fn count_take(nsteals: &AtomicU32, from: usize, own: usize) {
    if from != own {
        // Only this worker writes its counter, so a load and a store suffice (no atomic
        // read-modify-write). Relaxed: readers want *a* recent value, and coherence already
        // gives each reader a non-decreasing sequence; nothing else is published with it.
        nsteals.store(nsteals.load(Relaxed).wrapping_add(1), Relaxed);
    }
}
// ANCHOR_END: count_take

// ANCHOR: retire
/// A worker is leaving: its count moves to the pool's `steal_count`, so that it outlives the
/// worker. Zero first, then add: a reader in between misses the count for a moment
/// (an undercount, as the JDK's order gives) but never counts it twice. [JDK:
/// `deregisterWorker` never zeroes `nsteals`: it unlinks the worker's queue (`qs[i] = null`),
/// then does `stealCount += ns`, under the `runState` lock, and neither once STOP is set]
pub fn retire(nsteals: &AtomicU32, steal_count: &AtomicU64) {
    let ns = nsteals.swap(0, Relaxed); // Relaxed: a statistic; the swap makes it "once"
    // Release: a reader whose Acquire load sees this add also sees the zero above, so it
    // cannot add `ns` twice (once here, once from a stale per-worker count).
    steal_count.fetch_add(u64::from(ns), Release);
}
// ANCHOR_END: retire

// ANCHOR: get_steal_count
/// The pool's count plus the live workers' counts, read one after another without a lock:
/// an underestimate while workers are stealing, exact once the pool is quiescent. Workers sit
/// at odd indices; even ones are submission queues, which take no tasks and count nothing.
/// [JDK: `ForkJoinPool.getStealCount`]
pub fn get_steal_count(steal_count: &AtomicU64, nsteals: &[CachePadded<AtomicU32>]) -> u64 {
    // Acquire: pairs with `retire`'s Release; the per-worker loads below then see each retired
    // worker's zero (see retire).
    let mut count = steal_count.load(Acquire);
    for worker in nsteals.iter().skip(1).step_by(2) {
        count += u64::from(worker.load(Relaxed)); // unsigned, as the JDK's `& 0xffffffffL`
    }
    count
}
// ANCHOR_END: get_steal_count
