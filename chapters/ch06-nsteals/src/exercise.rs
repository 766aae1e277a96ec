// Chapter 6 exercise: counting steals.
//
// Write the three functions so that `cargo grade ch06` passes. The page
// (chapters/ch06-nsteals/README.md, "Exercise") explains what the JDK counts and when;
// `cargo grade ch06 --hint` gives hints. Compiled only by `cargo grade ch06`.

#[allow(unused_imports)] // you will want these
use crate::sync::Ordering::{Acquire, Relaxed, Release, SeqCst};
use crate::sync::{AtomicU32, AtomicU64};

use crossbeam_utils::CachePadded;

/// A worker took a task from the queue at index `from`; its own queue is at `own`. Count it
/// in `nsteals` (written only by this worker) if it is a steal.
pub fn count_take(nsteals: &AtomicU32, from: usize, own: usize) {
    // TODO: count tasks from another queue only. (The JDK's `w.nsteals = ++nsteals` has no
    // such check: its scan runs when the worker's own queue is empty.)
    let _ = (nsteals, from, own);
    todo!("count_take")
}

/// A worker is leaving: move its count into the pool's `steal_count`.
pub fn retire(nsteals: &AtomicU32, steal_count: &AtomicU64) {
    // TODO: the JDK's `stealCount += ns` in `deregisterWorker`.
    let _ = (nsteals, steal_count);
    todo!("retire")
}

/// The pool's count plus every live worker's (workers sit at the odd indices of `nsteals`).
pub fn get_steal_count(steal_count: &AtomicU64, nsteals: &[CachePadded<AtomicU32>]) -> u64 {
    // TODO: the JDK's `getStealCount`.
    let _ = (steal_count, nsteals);
    todo!("get_steal_count")
}
