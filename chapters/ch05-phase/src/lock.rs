// The phase word as a lock and as a seqlock: the reference solution of the chapter 5
// exercise. Compiled twice (as `ch05_phase::lock`, and by the grader in place of
// `src/exercise.rs`), so: no inner `//!` docs, items named through `crate::`.
// [JDK 25: `WorkQueue.tryLockPhase`, `unlockPhase`, and `push(task, pool, internal)`]

use crate::sync::Ordering::{Acquire, Relaxed, Release, SeqCst};
use crate::sync::{AtomicI32, fence, spin};
use crate::{Full, IDLE, WorkQueue};

// ANCHOR: try_lock_phase
/// Locks a submission queue if it is unlocked (IDLE set): adds IDLE, which clears the bit
/// and carries one into the version. Returns whether this call took the lock.
pub fn try_lock_phase(phase: &AtomicI32) -> bool {
    let p = phase.load(Relaxed); // a first look: the CAS below checks it
    if p & IDLE == 0 {
        return false; // someone holds it
    }
    // SeqCst CAS (the JDK's volatile compareAndSetInt). Its Acquire half: the new holder sees
    // everything the last holder wrote before its unlock.
    if phase.compare_exchange(p, p.wrapping_add(IDLE), SeqCst, Relaxed).is_err() {
        return false; // another submitter got there first
    }
    // Release fence, the seqlock writer's half: the holder's writes that follow cannot be
    // seen by a reader without that reader also seeing this new version (see read_stable).
    // A Rust read-modify-write orders only what comes *before* it as a release. The JDK has no
    // line for this: the Java memory model promises a CAS only a volatile read and write, and
    // on x86 HotSpot's locked CAS happens to be a full fence.
    fence(Release);
    true
}
// ANCHOR_END: try_lock_phase

// ANCHOR: unlock_phase
/// Unlocks: adds IDLE back (bit 16 set again; the version keeps the step the lock made).
pub fn unlock_phase(phase: &AtomicI32) {
    // SeqCst add (the JDK's getAndAddInt): its Release half publishes everything the holder
    // wrote to the next holder and to readers whose Acquire load sees this version.
    phase.fetch_add(IDLE, SeqCst);
}
// ANCHOR_END: unlock_phase

// ANCHOR: read_stable
/// A seqlock read: runs `read` until it ran wholly between two equal, unlocked versions,
/// so that no lock holder wrote in between; returns its result and that version.
pub fn read_stable<R>(phase: &AtomicI32, mut read: impl FnMut() -> R) -> (R, i32) {
    loop {
        // Acquire: pairs with unlock_phase's Release, so `read` sees the last holder's writes.
        let v = phase.load(Acquire);
        if v & IDLE == 0 {
            spin(); // a holder is writing: wait for its unlock
            continue;
        }
        let r = read();
        // Acquire fence: if `read` saw any write a later holder made after its lock (and its
        // Release fence), the load below sees that lock's version, not `v`.
        fence(Acquire);
        if phase.load(Relaxed) == v {
            return (r, v); // nothing locked in between: `r` is consistent
        }
    }
}
// ANCHOR_END: read_stable

// ANCHOR: push
/// Pushes `task` into `q` [JDK: `WorkQueue.push(task, pool, internal)`]. `internal`: the
/// caller is the queue's owner (a worker), which needs no lock. Otherwise the caller holds
/// the phase lock: the push (slot write and any growth) happens inside it, then unlocks,
/// whether or not the push succeeded.
#[inline(always)] // a wrapper: the pool's fork goes through it to chapter 4's push
pub fn push<T>(
    q: &WorkQueue<T>,
    phase: &AtomicI32,
    task: T,
    internal: bool,
) -> Result<(), Full<T>> {
    // Owner rights over `q`: the owner itself, or whoever holds the lock.
    let pushed = ch04_grow::push::<T, ch04_grow::Reference>(q, task);
    if !internal {
        unlock_phase(phase); // after the slot is written: the next holder sees it
    }
    pushed
}
// ANCHOR_END: push
