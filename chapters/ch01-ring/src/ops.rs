// The mechanism of the single-owner ring: the reference solution of the chapter 1 exercise.
//
// This file is compiled twice: as `ch01_ring::ops` (the reference every later chapter,
// probe and notebook uses) and, by the grader, in place of `src/exercise.rs` to prove that
// the reference passes every check. So it has no inner `//!` docs and names items by `crate::`.
// JDK 25 names in brackets: `java.util.concurrent.ForkJoinPool.WorkQueue`.

use crate::raw::empty_array;
use crate::{Full, RawRing};

// ANCHOR: slot_of
/// The slot that holds logical index `index` in an array of `capacity` slots.
///
/// `capacity` is a power of two, so `capacity - 1` is a mask of its low bits and
/// `index & mask` is `index mod capacity` for every `i32`, negative or wrapped
/// included: `2^32` is a multiple of `capacity`, so wrapping past `i32::MAX` to
/// `i32::MIN` (or past `-1` to `0`) moves to the next slot like any other step.
/// [JDK: `(cap - 1) & b`, `m & s` throughout `WorkQueue`]
#[inline]
pub fn slot_of(capacity: usize, index: i32) -> usize {
    (capacity - 1) & (index as u32 as usize)
}
// ANCHOR_END: slot_of

// ANCHOR: push
/// Pushes `task` at `top`. When that fills the array, grows it at once, so the
/// next push finds room; at the maximum capacity the array stays full and the next
/// push hands its task back in [`Full`]. [JDK: `WorkQueue.push`]
pub fn push<T>(q: &mut RawRing<T>, task: T) -> Result<(), Full<T>> {
    let (s, b, cap) = (q.top, q.base, q.array.len());
    // Free slots left after this push: (cap - 1) - (s - b). Negative means full.
    let room = (cap as i64 - 1) - i64::from(s.wrapping_sub(b));
    if room < 0 {
        return Err(Full { task, capacity: cap });
    }
    q.array[slot_of(cap, s)] = Some(task);
    q.top = s.wrapping_add(1);
    if room == 0 && cap < q.max_capacity {
        grow(q);
    }
    Ok(())
}
// ANCHOR_END: push

// ANCHOR: grow
/// Doubles the array and moves every task to the slot its index has under the new
/// mask. A task's index never changes; only `index & mask` does, so a ring whose tasks
/// wrapped around the end of the old array comes out in one piece.
/// [JDK: `WorkQueue.growArray`, which moves from `top - 1` down; chapter 4 explains why]
pub fn grow<T>(q: &mut RawRing<T>) {
    let (cap, new_cap) = (q.array.len(), q.array.len() * 2);
    let mut new_array = empty_array(new_cap);
    let mut k = q.top;
    for _ in 0..q.len() {
        k = k.wrapping_sub(1);
        new_array[slot_of(new_cap, k)] = q.array[slot_of(cap, k)].take();
    }
    q.array = new_array;
}
// ANCHOR_END: grow

// ANCHOR: pop
/// LIFO: takes the newest task, at `top - 1`. [JDK: `nextLocalTask(0)`]
pub fn pop<T>(q: &mut RawRing<T>) -> Option<T> {
    if q.is_empty() {
        return None;
    }
    let s = q.top.wrapping_sub(1);
    let task = q.array[slot_of(q.array.len(), s)].take();
    q.top = s;
    task
}
// ANCHOR_END: pop

// ANCHOR: poll_fifo
/// FIFO: takes the oldest task, at `base`. [JDK: `nextLocalTask(FIFO)`; with one owner the
/// last-slot branch takes the same task but moves `top` down, not `base` up: chapter 3]
pub fn poll_fifo<T>(q: &mut RawRing<T>) -> Option<T> {
    if q.is_empty() {
        return None;
    }
    let b = q.base;
    let task = q.array[slot_of(q.array.len(), b)].take();
    q.base = b.wrapping_add(1);
    task
}
// ANCHOR_END: poll_fifo
