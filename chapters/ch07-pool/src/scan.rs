//! The workers' scan, which never waits on one queue.
//!
//! Chapter 6's scan steals with chapter 4's `poll`, and `poll` spins while a queue is
//! *stalled*: its slot at `base` is empty, yet the queue is not, because another thief has
//! emptied the slot and not yet moved `base`, or the owner has moved `top` and not yet filled
//! the slot. That wait is a few instructions long while every thread has a core. With more
//! workers than cores, the thread in the middle of its two stores can be descheduled for a
//! whole time slice, and every thief that reaches its queue spins (pinned, so that no task
//! memory can be recycled either) until the scheduler runs it again. So JDK 25's worker loop
//! does not call `poll`: the scan in `runWorker` reads the slot itself and, on a stall, abandons
//! the whole pass and starts another from a new random origin. `try_poll` and `scan` give up
//! on the stalled queue too, but finish the pass before scanning again.
//!
//! `try_poll` repeats chapter 4's `poll` on purpose, so that the page can print the two side
//! by side (`figures/changes.diff`): only the stall branch differs.

use std::ptr::null_mut;

use ch04_grow::WorkQueue;
use ch05_phase::{Queue, Queues};
use reclaim::{pin, take_sending_box_home};

use crate::sync::Ordering::{Acquire, Relaxed, SeqCst};

/// What a look at a queue, or at every queue, found.
#[derive(Debug, PartialEq, Eq)]
pub enum Polled<T> {
    /// A task, now this thread's alone.
    Task(T),
    /// Nothing to take.
    Empty,
    /// No task taken, but a queue was not empty: a thief or its owner was between two stores.
    /// Look again before going idle.
    Stalled,
}

// ANCHOR: try_poll
/// Thief, in a scan: chapter 4's `poll`, except that where `poll` spins on a stalled queue it
/// returns `Stalled`. A lost CAS still retries here: another thief moved on, not stopped.
/// [JDK 25: the loop over one queue in `runWorker`'s scan; `pb == b` sets `rescan`]
pub fn try_poll<T>(q: &WorkQueue<T>) -> Polled<*mut T> {
    let mut pb = None;
    loop {
        let a = q.array();
        let b = q.base.load(Relaxed); // a stale base is rejected by the recheck
        let (slot, next) = (a.at(b), a.at(b.wrapping_add(1))); // both before the loads, as in chapter 4
        let t = slot.load(Acquire); // Acquire: chapter 2, row "thief reads the slot"
        let u = next.load(Relaxed); // a hint for "empty"
        if q.base.load(Relaxed) != b {
            // another thief took the task at b: look at the new base
        } else if t.is_null() {
            if u.is_null() && q.top.load(Relaxed).wrapping_sub(b) <= 0 {
                return Polled::Empty;
            }
            if pb == Some(b) {
                return Polled::Stalled; // chapter 4 spins here
            }
        } else {
            // SeqCst CAS, as in chapter 4: decides ownership of t.
            if slot.compare_exchange(t, null_mut(), SeqCst, Relaxed).is_ok() {
                // Relaxed, as in chapter 4's `poll` (JDK 25.0.3's scan: a plain store).
                q.base.store(b.wrapping_add(1), Relaxed);
                return Polled::Task(t);
            }
        }
        pb = Some(b);
    }
}
// ANCHOR_END: try_poll

/// A thief's take from `q`, whose boxes go back to the queue's home when it has one (chapter
/// 2's `take_sending_box_home`, chapter 4's `WorkQueue::home`: a worker's queue, once its worker has
/// started; submission queues have many pushers and none). An empty queue costs two loads and
/// no pin; the pin ends with the CAS.
pub fn steal<T>(q: &Queue<T>) -> Polled<T> {
    if q.work().is_empty() {
        return Polled::Empty;
    }
    let polled = {
        let _pin = pin(); // from the first slot read to the CAS
        try_poll(q.work())
    };
    match polled {
        Polled::Task(t) => {
            let home = q.work().home(); // an unbound home would keep the box here
            // SAFETY: `try_poll` returned a pointer its CAS took, while pinned.
            unsafe { take_sending_box_home(t, home) }.map_or(Polled::Empty, Polled::Task)
        }
        Polled::Empty => Polled::Empty,
        Polled::Stalled => Polled::Stalled,
    }
}

// ANCHOR: scan
/// One scan of every queue but `own`, from a start and an odd stride drawn from `r`, as in
/// chapter 6: the first task stolen and the index of its queue. A stalled queue is passed
/// over, and the scan says so, so that the worker scans again instead of going idle.
/// [JDK 25: the scan loop of `runWorker`, which abandons the pass at a stall]
pub fn scan<T>(queues: &Queues<T>, own: usize, r: u32) -> Polled<(usize, T)> {
    let n = queues.len();
    let (mut i, step) = (r as usize, ((r >> 16) | 1) as usize);
    let mut stalled = false;
    for _ in 0..n {
        let j = i & (n - 1);
        i = i.wrapping_add(step);
        match queues.get(j).filter(|_| j != own).map_or(Polled::Empty, steal) {
            Polled::Task(task) => return Polled::Task((j, task)),
            Polled::Stalled => stalled = true,
            Polled::Empty => {}
        }
    }
    if stalled { Polled::Stalled } else { Polled::Empty }
}
// ANCHOR_END: scan
