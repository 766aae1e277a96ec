// Chapter 5 exercise: the phase word as a lock and as a seqlock.
//
// Write the four functions so that `cargo grade ch05` passes: the tests (bit layout, version
// steps, submission queues), the loom models (two submitters and a poller on one submission
// queue; a seqlock reader beside a submitter), clippy and the benchmark gate. The page
// (chapters/ch05-phase/README.md, "Exercise") walks through the JDK's code;
// `cargo grade ch05 --hint` gives hints. Compiled only by `cargo grade ch05`.

#[allow(unused_imports)] // you will want these
use crate::sync::Ordering::{Acquire, Relaxed, Release, SeqCst};
#[allow(unused_imports)]
use crate::sync::{AtomicI32, fence, spin};
use crate::{Full, IDLE, WorkQueue};

/// Locks a submission queue if it is unlocked (IDLE set), moving the version on. Returns
/// whether this call took the lock.
pub fn try_lock_phase(phase: &AtomicI32) -> bool {
    // TODO: the JDK's `tryLockPhase`: IDLE set? then CAS phase to phase + IDLE.
    let _ = (phase, IDLE);
    todo!("try_lock_phase")
}

/// Unlocks (the caller holds the lock), keeping the version step the lock made.
pub fn unlock_phase(phase: &AtomicI32) {
    // TODO: the JDK's `unlockPhase`.
    let _ = phase;
    todo!("unlock_phase")
}

/// A seqlock read: runs `read` until it ran wholly between two equal, unlocked versions;
/// returns its result and that version.
pub fn read_stable<R>(phase: &AtomicI32, read: impl FnMut() -> R) -> (R, i32) {
    // TODO: read the version, run `read`, read the version again; retry unless equal and unlocked.
    let _ = (phase, read);
    todo!("read_stable")
}

/// Pushes `task` into `q`. `internal`: the caller owns the queue and needs no lock; otherwise
/// the caller holds the phase lock, and this push must unlock it (also when the queue is full).
pub fn push<T>(q: &WorkQueue<T>, phase: &AtomicI32, task: T, internal: bool) -> Result<(), Full<T>> {
    // TODO: `ch04_grow::push::<T, ch04_grow::Reference>(q, task)` does the owner's push; when
    // must the lock be released?
    let _ = (q, phase, task, internal);
    todo!("push")
}
