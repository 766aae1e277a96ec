//! Chapter 5: the phase word, after JDK 25's `WorkQueue.phase`, `tryLockPhase` and
//! `unlockPhase`.
//!
//! One `int` per queue holds the queue's id (bits 0-15), the IDLE bit (16) and a version
//! (17-31). For a submission queue, IDLE clear means locked. Locking adds IDLE (the bit
//! clears and carries into the version), unlocking adds it again: the version counts lock
//! cycles, so a reader can use the word as a seqlock (read it, read the queue, read it again:
//! equal and unlocked means no one wrote in between). External threads lock a submission
//! queue this way to push; a worker pushes to its own queue without it.
//!
//! - [`phase`]: the constants and the bit layout;
//! - [`lock`]: `try_lock_phase`, `unlock_phase`, the seqlock read and the two-path push
//!   (the reference solution of the exercise);
//! - [`Queue`], [`PhaseGuard`], [`Queues`]: a queue with its phase word, the lock as a type,
//!   and the pool's array of queues with `submission_queue`.

pub mod phase;
mod queues;

/// The phase word as a lock and a seqlock: the reference solution of the chapter 5 exercise.
pub mod lock;

pub use ch01_ring::Full;
pub use ch02_poll::sync;
pub use ch04_grow::{Stealer, WorkQueue};
pub use phase::{EXTERNAL_ID_MASK, IDLE, SMASK, decode, describe};
pub use queues::{
    INITIAL_EXTERNAL_QUEUE_CAPACITY, MIN_QUEUES_SIZE, PhaseGuard, Queue, Queues, advance_probe,
    new_probe, queues_len,
};

use crate::sync::AtomicI32;

/// The seam between the queues and the phase mechanism they run (the reference or the
/// reader's exercise). See [`lock`] for each function.
pub trait PhaseOps {
    /// See [`lock::try_lock_phase`].
    fn try_lock_phase(phase: &AtomicI32) -> bool;
    /// See [`lock::unlock_phase`].
    fn unlock_phase(phase: &AtomicI32);
    /// See [`lock::read_stable`].
    fn read_stable<R>(phase: &AtomicI32, read: impl FnMut() -> R) -> (R, i32);
    /// See [`lock::push`].
    fn push<T>(q: &WorkQueue<T>, phase: &AtomicI32, task: T, internal: bool)
    -> Result<(), Full<T>>;
}

macro_rules! impl_phase_ops {
    ($ty:ident) => {
        impl $crate::PhaseOps for $ty {
            fn try_lock_phase(phase: &$crate::sync::AtomicI32) -> bool {
                try_lock_phase(phase)
            }
            fn unlock_phase(phase: &$crate::sync::AtomicI32) {
                unlock_phase(phase)
            }
            fn read_stable<R>(
                phase: &$crate::sync::AtomicI32,
                read: impl FnMut() -> R,
            ) -> (R, i32) {
                read_stable(phase, read)
            }
            fn push<T>(
                q: &$crate::WorkQueue<T>,
                phase: &$crate::sync::AtomicI32,
                task: T,
                internal: bool,
            ) -> Result<(), $crate::Full<T>> {
                push(q, phase, task, internal)
            }
        }
    };
}

/// The reference mechanism, [`lock`].
pub struct Reference;
mod reference {
    use super::Reference;
    use crate::lock::{push, read_stable, try_lock_phase, unlock_phase};
    impl_phase_ops!(Reference);
}

/// The reader's exercise, compiled only with `--features exercise` (the grader's switch).
#[cfg(feature = "exercise")]
pub mod exercise {
    include!(env!("EXERCISE_FILE"));

    /// The exercise's phase functions, plugged into [`Queues`](crate::Queues).
    pub struct Exercise;
    impl_phase_ops!(Exercise);
}

/// A stable view of a queue, read under its phase as a seqlock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// The phase the view was read under (unlocked, equal before and after).
    pub phase: i32,
    /// `top - base` at that moment.
    pub len: i32,
    /// Whether the newest task's slot (`top - 1`) held a task, when `len > 0`.
    pub newest_present: bool,
}

/// Reads `q`'s length and newest slot as one consistent view, with `P`'s seqlock read. Only
/// the lock holders' writes are excluded: thieves may still take tasks meanwhile.
pub fn snapshot<T, P: PhaseOps>(q: &Queue<T>) -> Snapshot {
    let w = q.work();
    let ((len, newest_present), phase) = P::read_stable(&q.phase, || {
        let (b, t) = (w.base.load(sync::Ordering::Relaxed), w.top.load(sync::Ordering::Relaxed));
        let newest = w.array().at(t.wrapping_sub(1)).load(sync::Ordering::Relaxed);
        (t.wrapping_sub(b), !newest.is_null())
    });
    Snapshot { phase, len, newest_present }
}
