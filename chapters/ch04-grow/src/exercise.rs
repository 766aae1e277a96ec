// Chapter 4 exercise: grow the array while thieves poll, and keep the old one alive.
//
// Write `grow` so that `cargo grade ch04` passes: the tests (including a million tasks with
// thieves polling through every growth), the loom models (capacity 2 growing to 4 with a
// thief polling during the move), clippy (a `// SAFETY:` comment above every `unsafe` block)
// and the benchmark gate. The page's section "The move"
// (chapters/ch04-grow/README.md) walks through the JDK's growArray;
// `cargo grade ch04 --hint` gives hints. Compiled only by `cargo grade ch04`.

#[allow(unused_imports)] // you will want these
use crate::sync::Ordering::{Acquire, Relaxed, SeqCst};
use crate::{Slots, WorkQueue};

/// Owner: doubles the array. Called by `push` right after it filled the last free slot, at
/// index `s` (so `top == s + 1`); thieves may be polling the whole time.
///
/// Every task must end up in exactly one place: in the new array, or with the thief that
/// took it from the old one. The old array must stay readable for as long as a thief might
/// hold it: hand it to `q.retire`.
pub fn grow<T>(q: &WorkQueue<T>, s: i32) {
    // TODO: make `Slots::new(2 * capacity)`; from index s downward, move each task from the
    // old array to the new one (how do you stop a thief from taking it from the old one too,
    // and when do you stop?); publish the new array in `q.array`; retire the old one.
    let _ = (q, s, Slots::<T>::new);
    todo!("grow")
}
