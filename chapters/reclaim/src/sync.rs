//! One place that decides where the atomics and the blocking primitives come from: loom's
//! model-checked versions under `--cfg loom`, std's otherwise. Every chapter imports from here
//! (chapter 2 re-exports it as `ch02_poll::sync`).

// Under loom, the atomics write down every access (`timeline.rs`): a failing model prints the
// execution that broke it, with the reader's lines. Models run through `model`, or, where
// SeqCst loads must be SeqCst (chapter 7), `model_fencing_seqcst_loads`.
#[cfg(loom)]
pub use crate::timeline::{
    AtomicI32, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, fence, model,
    model_fencing_seqcst_loads,
};
#[cfg(loom)]
pub use loom::sync::atomic::Ordering;
#[cfg(loom)]
pub use loom::sync::{Arc, Condvar, Mutex, MutexGuard};

#[cfg(not(loom))]
pub use std::sync::atomic::{
    AtomicI32, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering, fence,
};
#[cfg(not(loom))]
pub use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Parking a thread until another wakes it (chapter 7: a thread outside the pool waiting for a
/// task's result). Loom has no timed park: there `park_timeout` parks until an `unpark`.
pub mod thread {
    #[cfg(loom)]
    pub use loom::thread::{Thread, current};
    #[cfg(not(loom))]
    pub use std::thread::{Thread, current, park_timeout};

    /// Under loom: `park`, which a model wakes only with an `unpark` (the timeout is ignored).
    #[cfg(loom)]
    pub fn park_timeout(_: std::time::Duration) {
        loom::thread::park();
    }
}

/// One round of a spin-wait (the JDK's `Thread.onSpinWait()`).
#[inline]
pub fn spin() {
    outside_loom(std::hint::spin_loop);
}

/// A stalled thief's wait, round after round (chapter 4's `poll`): a few spins that double,
/// then yields, as crossbeam-utils' `Backoff` does, so that on a machine with more threads than
/// cores the thread it waits for (an owner or a thief between two stores, descheduled) gets the
/// processor. The JDK's `poll` only spins. Under loom every round yields to the model checker.
#[derive(Default)]
pub struct Backoff {
    #[cfg(not(loom))]
    inner: crossbeam_utils::Backoff,
}

impl Backoff {
    pub fn new() -> Backoff {
        Backoff::default()
    }

    /// One round of the wait: spin `2^round` times, then (from round 7 on) yield.
    #[inline]
    pub fn snooze(&self) {
        #[cfg(not(loom))]
        self.inner.snooze();
        #[cfg(loom)]
        loom::thread::yield_now();
    }
}

/// Gives the processor to another thread (chapter 7: a waiting joiner with nothing to help
/// with).
#[inline]
pub fn yield_now() {
    outside_loom(std::thread::yield_now);
}

/// Runs `wait`; under loom, yields instead, so that the model checker can run the thread being
/// waited for.
#[inline(always)]
fn outside_loom(wait: fn()) {
    #[cfg(loom)]
    {
        let _ = wait;
        loom::thread::yield_now();
    }
    #[cfg(not(loom))]
    wait();
}
