//! Chapter 6: counting steals, after JDK 25's `WorkQueue.nsteals`, `ForkJoinPool.stealCount`
//! and `getStealCount()`.
//!
//! Each worker counts the tasks it took from any queue but its own (`nsteals`, one writer,
//! so a plain store of a relaxed atomic). A worker that exits adds its count to the pool's
//! `steal_count`. `get_steal_count` adds the pool's count to the live workers' counts, read
//! one after another while they change: an underestimate while the pool is busy, exact once
//! it is quiescent.
//!
//! - [`steals`]: `count_take`, `retire`, `get_steal_count` (the reference solution of the
//!   exercise);
//! - [`Pool`]: a minimal pool of workers that scan and steal (chapter 7 adds parking,
//!   fork/join and the rest), with an optional ground-truth count for comparison.

#[cfg(not(loom))]
mod pool;

/// Steal accounting: the reference solution of the chapter 6 exercise.
pub mod steals;

// Under `--cfg loom` only the accounting is compiled, with loom's atomics (`tests/loom.rs`);
// the pool is chapter 7's to model.
pub use ch02_poll::sync;
#[cfg(not(loom))]
pub use pool::{Job, Pool, fork, join_workers, pop_own, push_job, push_own, scan, steal};

use crate::sync::{AtomicU32, AtomicU64};

use crossbeam_utils::CachePadded;

/// The seam between the pool and the accounting it runs (the reference or the reader's).
/// See [`steals`] for each function.
pub trait StealOps {
    /// See [`steals::count_take`].
    fn count_take(nsteals: &AtomicU32, from: usize, own: usize);
    /// See [`steals::retire`].
    fn retire(nsteals: &AtomicU32, steal_count: &AtomicU64);
    /// See [`steals::get_steal_count`].
    fn get_steal_count(steal_count: &AtomicU64, nsteals: &[CachePadded<AtomicU32>]) -> u64;
}

macro_rules! impl_steal_ops {
    ($ty:ident) => {
        impl $crate::StealOps for $ty {
            fn count_take(nsteals: &$crate::sync::AtomicU32, from: usize, own: usize) {
                count_take(nsteals, from, own)
            }
            fn retire(nsteals: &$crate::sync::AtomicU32, steal_count: &$crate::sync::AtomicU64) {
                retire(nsteals, steal_count)
            }
            fn get_steal_count(
                steal_count: &$crate::sync::AtomicU64,
                nsteals: &[crossbeam_utils::CachePadded<$crate::sync::AtomicU32>],
            ) -> u64 {
                get_steal_count(steal_count, nsteals)
            }
        }
    };
}

/// The reference accounting, [`steals`].
pub struct Reference;
mod reference {
    use super::Reference;
    use crate::steals::{count_take, get_steal_count, retire};
    impl_steal_ops!(Reference);
}

/// The reader's exercise, compiled only with `--features exercise` (the grader's switch).
#[cfg(feature = "exercise")]
pub mod exercise {
    include!(env!("EXERCISE_FILE"));

    /// The exercise's accounting, plugged into [`Pool`](crate::Pool).
    pub struct Exercise;
    impl_steal_ops!(Exercise);
}
