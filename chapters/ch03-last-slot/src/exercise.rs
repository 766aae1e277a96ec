// Chapter 3 exercise: the owner's take, LIFO or FIFO, with the last-slot branch.
//
// Write `next_local_task` so that `cargo grade ch03` passes. The page
// (chapters/ch03-last-slot/README.md, "Exercise") explains the branch and what goes wrong
// without it; `cargo grade ch03 --hint` gives hints. Compiled only by `cargo grade ch03`.

#[allow(unused_imports)] // you will want these
use crate::sync::Ordering::{Relaxed, SeqCst};
#[allow(unused_imports)]
use crate::sync::spin;
use crate::WorkQueue;

/// The owner takes its next task: the newest (LIFO) or, with `fifo`, the oldest. Returns
/// null when the queue is empty, or when a thief won the last task.
///
/// Return only null or a pointer that your swap took out of its slot: the caller turns it
/// back into the `Box` that `push` made. Only the owner calls this; thieves may be polling.
pub fn next_local_task<T>(q: &WorkQueue<T>, fifo: bool) -> *mut T {
    // TODO: read base and top; LIFO (or FIFO with one task left) swaps the slot of top - 1
    // and moves top if it got a task; FIFO otherwise swaps the slot of base, moves base, and
    // when the swap finds the slot already taken waits for base to move on.
    let _ = (q, fifo);
    todo!("next_local_task")
}
