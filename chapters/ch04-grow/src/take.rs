//! The two takers of chapters 2 and 3, for a queue whose array can be replaced.
//!
//! Each is its chapter's function with one change: the array is read from `q.array()` instead
//! of being a fixed field, as the JDK's `poll` and `nextLocalTask` read `array` into a local:
//! `poll` at the top of every round, `next_local_task` once per call (the owner is the one who
//! grows). The page shows the diff. (These repeat chapters
//! 2 and 3 on purpose: the book prints them side by side.)
//!
//! Why a round that read the *old* array is still right: `grow` empties every old slot it
//! moves, so an old slot is either still the task's only home (a CAS on it races `grow`'s
//! swap, and exactly one wins) or null, which reads as "taken or not yet written": the thief
//! goes round again and reads the new array.

use std::ptr::null_mut;

use ch02_poll::PollStats;

use crate::WorkQueue;
use crate::sync::Ordering::{Acquire, Relaxed, SeqCst};
use crate::sync::{Backoff, spin};

/// Thief: takes the task at `base`, or returns null when the queue is empty.
/// [JDK 25: `WorkQueue.poll`]
///
/// Inlined into the thief's take: out of line, its call and the registers it saved were 15 of
/// a push and steal's 205 instructions (valgrind, `queue-ops --count ours:push+steal`).
#[inline]
pub fn poll<T>(q: &WorkQueue<T>, stats: &mut PollStats) -> *mut T {
    let mut pb = None; // base seen by the previous round: detects "no progress"
    let backoff = Backoff::new(); // new in chapter 4: a stall spins, then yields
    loop {
        let a = q.array(); // new in chapter 4: the array of this round (Acquire)
        let b = q.base.load(Relaxed); // a stale base is rejected by the recheck
        // New: both slots found before the first load (after an Acquire load the compiler
        // would read the array's address and length again).
        let (slot, next) = (a.at(b), a.at(b.wrapping_add(1)));
        let t = slot.load(Acquire); // Acquire: chapter 2, row "thief reads the slot"
        let u = next.load(Relaxed); // a hint for "empty"
        if q.base.load(Relaxed) != b {
            stats.rechecks += 1;
        } else if t.is_null() {
            // Empty, or taken and base not moved yet, or (new) moved to a newer array.
            if u.is_null() && q.top.load(Relaxed).wrapping_sub(b) <= 0 {
                stats.empty += 1;
                return null_mut();
            }
            if pb == Some(b) {
                stats.stalls += 1;
                backoff.snooze(); // chapter 2 spins; see "Backing off" on the page
            }
        } else {
            stats.attempts += 1;
            // SeqCst CAS: decides ownership of t, against other thieves, the owner's take
            // and (new) grow's move, which empties this slot with a swap.
            if slot.compare_exchange(t, null_mut(), SeqCst, Relaxed).is_ok() {
                // Relaxed, where chapter 2 has SeqCst: no reader of base needs an ordering
                // (chapter 2's orderings table), and SeqCst is a locked instruction per steal.
                // See the page, "The thief's store to `base`".
                q.base.store(b.wrapping_add(1), Relaxed);
                return t;
            }
            stats.failures += 1;
        }
        pb = Some(b);
    }
}

/// Owner: takes the newest task (LIFO) or, with `fifo`, the oldest, with chapter 3's
/// last-slot branch. [JDK 25: `WorkQueue.nextLocalTask(int fifo)`]
#[inline]
pub fn next_local_task<T>(q: &WorkQueue<T>, fifo: bool) -> *mut T {
    let a = q.array(); // new in chapter 4; the owner's own array (it is the one who grows)
    let mut b = q.base.load(Relaxed); // as in chapter 3: the swap or the wait corrects it
    let p = q.top.load(Relaxed); // the owner's own field
    if p.wrapping_sub(b) <= 0 {
        return null_mut();
    }
    loop {
        let nb = b.wrapping_add(1);
        if !fifo || nb == p {
            let s = p.wrapping_sub(1);
            let t = a.at(s).swap(null_mut(), SeqCst); // SeqCst: the JDK's getAndSetReference
            if !t.is_null() {
                q.top.store(s, Relaxed);
            }
            return t;
        }
        let t = a.at(b).swap(null_mut(), SeqCst); // as above
        if !t.is_null() {
            q.base.store(nb, Relaxed); // the JDK's updateBase is volatile; Relaxed, as in `poll`
            return t;
        }
        loop {
            let now = q.base.load(Relaxed); // wait for the thief that took b to move base
            if now != b {
                b = now;
                break;
            }
            spin();
        }
        if p.wrapping_sub(b) <= 0 {
            return null_mut();
        }
    }
}
