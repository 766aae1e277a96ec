//! Chapter 2: the thief's `poll()`, after JDK 25's `ForkJoinPool.WorkQueue.poll`.
//!
//! Chapter 1's ring becomes shared. Slots are `AtomicPtr`s (null = empty, like the JDK's
//! `null`), `base` and `top` are atomic `i32`s, and two kinds of handle split the work:
//! one [`Owner`] pushes and pops at `top`; any number of [`Stealer`]s poll at `base`.
//! Who gets a task is decided by one atomic operation *on its slot* — the owner's swap
//! or a thief's CAS to null — never by an index.
//!
//! - [`WorkQueue`]: the fields and who may write them;
//! - [`push`], [`pop`]: the owner's side;
//! - [`poll`]: the thief's side (the reference solution of the exercise), counting what it
//!   does in [`PollStats`];
//! - the `reclaim` crate: when a taken task's memory may be freed (Java's GC decides; Rust
//!   must), a crate of its own since chapters 2 to 7 all use it;
//! - [`sync`]: std atomics, or loom's under `--cfg loom` (the `reclaim` crate's, re-exported);

mod queue;
pub use reclaim::sync;

/// The thief's `poll()`: the reference solution of the chapter 2 exercise.
pub mod poll;

pub use ch01_ring::Full;
pub use queue::{Owner, Stealer, WorkQueue, new, new_with, pop, push};

/// What one or more polls did, for the contention measurements (the article's table counts
/// CAS attempts and failures). Plain counters: each thief keeps its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PollStats {
    /// Compare-and-set attempts on a slot.
    pub attempts: u64,
    /// Attempts that lost (another thread took the task first).
    pub failures: u64,
    /// Rounds that found `base` moved between the two reads and started over.
    pub rechecks: u64,
    /// Spin-waits: a null slot inside `base..top` with no progress since the last round.
    pub stalls: u64,
    /// Polls that returned empty.
    pub empty: u64,
}

impl PollStats {
    /// Failed CAS attempts per attempt, the article's `fail/attempt` column (0 without attempts).
    pub fn fail_rate(&self) -> f64 {
        if self.attempts == 0 { 0.0 } else { self.failures as f64 / self.attempts as f64 }
    }

    /// Adds another thief's counts to these.
    pub fn add(&mut self, other: &PollStats) {
        self.attempts += other.attempts;
        self.failures += other.failures;
        self.rechecks += other.rechecks;
        self.stalls += other.stalls;
        self.empty += other.empty;
    }
}

/// The seam between the thieves' handle and the `poll` that runs it.
///
/// # Safety
/// `poll` must return null or a pointer that it took out of a slot of `q` with a successful
/// compare-and-set to null: the caller turns it back into the `Box` it came from.
pub unsafe trait PollOps {
    /// See [`poll::poll`].
    fn poll<T>(q: &WorkQueue<T>, stats: &mut PollStats) -> *mut T;
}

macro_rules! impl_poll_ops {
    ($ty:ident) => {
        // SAFETY: `poll` in this module returns null or the pointer its CAS took.
        unsafe impl $crate::PollOps for $ty {
            fn poll<T>(q: &$crate::WorkQueue<T>, stats: &mut $crate::PollStats) -> *mut T {
                poll(q, stats)
            }
        }
    };
}

/// The reference mechanism, [`poll::poll`].
pub struct Reference;
mod reference {
    use super::Reference;
    use crate::poll::poll;
    impl_poll_ops!(Reference);
}

/// The reader's exercise, compiled only with `--features exercise` (the grader's switch).
#[cfg(feature = "exercise")]
pub mod exercise {
    include!(env!("EXERCISE_FILE"));

    /// The exercise's `poll`, plugged into [`Stealer`](crate::Stealer).
    pub struct Exercise;
    impl_poll_ops!(Exercise);
}
