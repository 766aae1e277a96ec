// Chapter 1 exercise: the mechanism of the single-owner ring.
//
// Write the five functions below so that `cargo grade ch01` passes. The book page
// (chapters/ch01-ring/README.md, "Exercise") explains each one; `cargo grade ch01 --hint`
// gives hints. The struct you work on is `RawRing` (src/raw.rs): read the invariants
// on its fields first. Keep the signatures: the tests and the benchmark call them
// through `ch01_ring::exercise::Exercise`.
//
// This file is not compiled by `cargo test`/`cargo build`; only `cargo grade ch01`
// (feature `exercise`) compiles it, so a half-done exercise breaks nothing else.

#[allow(unused_imports)] // `empty_array(n)` makes `n` empty slots; you will want it in `grow`.
use crate::raw::empty_array;
use crate::{Full, RawRing};

/// The slot that holds logical index `index` in an array of `capacity` slots
/// (a power of two). Must be right for every `i32`, negative and wrapped ones too.
pub fn slot_of(capacity: usize, index: i32) -> usize {
    // TODO: one mask, no division.
    todo!("slot_of(capacity={capacity}, index={index})")
}

/// Pushes `task` at `top`. If that fills the array and it may still grow, grow it now.
/// If the ring is already full at `max_capacity`, hand the task back in `Full`.
pub fn push<T>(q: &mut RawRing<T>, task: T) -> Result<(), Full<T>> {
    // TODO: compute the room left, store the task, move `top`, grow when full.
    let _ = (q, task);
    todo!("push")
}

/// Doubles the array; every task keeps its index and moves to that index's new slot.
pub fn grow<T>(q: &mut RawRing<T>) {
    // TODO: allocate twice the slots and move each task from base..top.
    let _ = q;
    todo!("grow")
}

/// LIFO: takes the newest task, at `top - 1`, or `None` when empty.
pub fn pop<T>(q: &mut RawRing<T>) -> Option<T> {
    // TODO
    let _ = q;
    todo!("pop")
}

/// FIFO: takes the oldest task, at `base`, or `None` when empty.
pub fn poll_fifo<T>(q: &mut RawRing<T>) -> Option<T> {
    // TODO
    let _ = q;
    todo!("poll_fifo")
}
