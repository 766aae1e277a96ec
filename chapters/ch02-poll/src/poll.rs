// The thief's poll: the reference solution of the chapter 2 exercise.
//
// Compiled twice, like chapter 1's ops.rs: as `ch02_poll::poll`, and by the grader in place
// of `src/exercise.rs`. So: no inner `//!` docs, items named through `crate::`.
// [JDK 25: `java.util.concurrent.ForkJoinPool.WorkQueue.poll`]

use std::ptr::null_mut;

use crate::sync::Ordering::{Acquire, Relaxed, SeqCst};
use crate::sync::spin;
use crate::{PollStats, WorkQueue};

// ANCHOR: poll
/// Takes the task at `base`, or returns null when the queue is empty.
/// Any number of threads may call it at once, alongside the owner's push and pop.
pub fn poll<T>(q: &WorkQueue<T>, stats: &mut PollStats) -> *mut T {
    let mut pb = None; // the base seen by the previous round: detects "no progress"
    loop {
        // Relaxed: a stale base is harmless, because the recheck below rejects it.
        let b = q.base.load(Relaxed);
        // Acquire: if this reads the owner's pointer, it also sees everything the owner did
        // before storing it, including its read of base (see push). Without it, the recheck
        // below could read a base older than the task it validates.
        let t = q.slot(b).load(Acquire);
        // Relaxed: only a hint, read to tell "empty" from "taken, base not moved yet".
        let u = q.slot(b.wrapping_add(1)).load(Relaxed);
        if q.base.load(Relaxed) != b {
            stats.rechecks += 1; // base moved under us: t may belong to another index
        } else if t.is_null() {
            // Relaxed: the owner's own counter; a stale top only delays "empty" by a round.
            if u.is_null() && q.top.load(Relaxed).wrapping_sub(b) <= 0 {
                stats.empty += 1;
                return null_mut(); // two empty slots in a row and no tasks: empty
            }
            if pb == Some(b) {
                stats.stalls += 1;
                spin(); // a taker has not moved base yet, or a push has not filled the slot
            }
        } else {
            stats.attempts += 1;
            // The CAS decides who owns t. SeqCst: the JDK's volatile CAS; it orders against the
            // owner's swap on the same slot, and its Acquire covers the task's contents.
            if q.slot(b).compare_exchange(t, null_mut(), SeqCst, Relaxed).is_ok() {
                // SeqCst store: the JDK's putIntVolatile, which its comments make strong for
                // timeliness, not for correctness; no ordering is needed (the page: "What each
                // ordering buys"), and chapter 4 makes it Relaxed.
                q.base.store(b.wrapping_add(1), SeqCst);
                return t;
            }
            stats.failures += 1;
        }
        pb = Some(b);
    }
}
// ANCHOR_END: poll
