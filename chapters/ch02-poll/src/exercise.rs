// Chapter 2 exercise: the thief's poll().
//
// Write `poll` so that `cargo grade ch02` passes: the tests, the loom models (every
// interleaving of an owner and one or two thieves on a 4-slot queue), clippy, and the
// benchmark gate. The page (chapters/ch02-poll/README.md, "Exercise") walks through
// the JDK's loop; `cargo grade ch02 --hint` gives hints.
//
// This file is compiled only by `cargo grade ch02` (feature `exercise`).

#[allow(unused_imports)] // you will want both
use crate::sync::{Ordering, spin};
use crate::{PollStats, WorkQueue};

/// Takes the task at `base`, or returns null when the queue is empty. Any number of
/// threads may call it at once, alongside the owner's push and pop.
///
/// Return only null or a pointer that *your* compare-and-set took out of its slot:
/// the caller turns it back into the `Box` the owner made.
///
/// Count what happens in `stats`: `attempts` (each CAS), `failures` (each lost CAS),
/// `rechecks` (base moved under you), `stalls` (each spin), `empty` (an empty result).
pub fn poll<T>(q: &WorkQueue<T>, stats: &mut PollStats) -> *mut T {
    // TODO: the JDK's loop: read base, the slot (which ordering?), the next slot,
    // recheck base, then either conclude empty, spin on no progress, or CAS and move base.
    let _ = (q, stats);
    todo!("poll")
}
