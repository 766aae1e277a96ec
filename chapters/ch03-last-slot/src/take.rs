// The owner's take, LIFO or FIFO, with the last-slot branch: the reference solution of the
// chapter 3 exercise. Compiled twice (as `ch03_last_slot::take`, and by the grader in place of
// `src/exercise.rs`), so: no inner `//!` docs, items named through `crate::`.
// [JDK 25: `ForkJoinPool.WorkQueue.nextLocalTask(int fifo)`]

use std::ptr::null_mut;

use crate::WorkQueue;
use crate::sync::Ordering::{Relaxed, SeqCst};
use crate::sync::spin;

// ANCHOR: next_local_task
/// The owner takes its next task: the newest (LIFO) or, with `fifo`, the oldest. Returns null
/// when the queue is empty, or when a thief won the last task.
pub fn next_local_task<T>(q: &WorkQueue<T>, fifo: bool) -> *mut T {
    // Relaxed: the JDK's plain read; a stale base shows tasks that are gone, and the swap or
    // the wait below finds that out.
    let mut b = q.base.load(Relaxed);
    let p = q.top.load(Relaxed); // the owner's own field
    if p.wrapping_sub(b) <= 0 {
        return null_mut();
    }
    loop {
        let nb = b.wrapping_add(1);
        // ANCHOR: last_slot
        if !fifo || nb == p {
            // LIFO, or FIFO with one task left: take top - 1 (the same slot as base when one
            // task is left) and, if we got it, move top, the index only the owner writes.
            let s = p.wrapping_sub(1);
            let t = q.slot(s).swap(null_mut(), SeqCst); // SeqCst: the JDK's getAndSetReference
            if !t.is_null() {
                q.top.store(s, Relaxed);
            } // else a thief won the only task: it moves base to p; nothing to wait for
            return t;
        }
        // ANCHOR_END: last_slot
        // FIFO with two or more tasks: take at base, like a thief but with a swap.
        let t = q.slot(b).swap(null_mut(), SeqCst);
        if !t.is_null() {
            q.base.store(nb, SeqCst); // the JDK's updateBase (putIntVolatile)
            return t;
        }
        // A thief took index b and has not moved base yet: wait until it does.
        loop {
            // Relaxed: only base is read from the thief (the JDK's getIntAcquire(BASE); Java
            // needs a mode above plain to keep the read inside the loop, Rust's atomics do not).
            let now = q.base.load(Relaxed);
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
// ANCHOR_END: next_local_task
