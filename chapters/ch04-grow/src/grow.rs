// Growing the array while thieves poll: the reference solution of the chapter 4 exercise.
// Compiled twice (as `ch04_grow::grow`, and by the grader in place of `src/exercise.rs`),
// so: no inner `//!` docs, items named through `crate::`.
// [JDK 25: `ForkJoinPool.WorkQueue.growArray`, called from `push` when the array fills]

use std::ptr::null_mut;

use crate::sync::Ordering::{Relaxed, SeqCst};
use crate::{Slots, WorkQueue};

// ANCHOR: grow
/// Owner: doubles the array. Called by `push` right after it filled the last free slot,
/// at index `s` (so `top == s + 1`); thieves may be polling the whole time.
pub fn grow<T>(q: &WorkQueue<T>, s: i32) {
    // Relaxed: only the owner writes `array`; this reads its own last store.
    let old = q.array.load(Relaxed);
    // SAFETY: `array` is never null, and arrays are freed only when the queue drops.
    let a = unsafe { &*old };
    let cap = a.capacity();
    let new = Slots::new(cap * 2);
    // ANCHOR: move
    // Move, don't copy: from the newest task down, empty each old slot with a swap and put
    // what it held at the same index in the new array. Thieves take from base upward, so
    // the first slot found empty was taken by a thief, and so was everything below it.
    let mut k = s;
    for _ in 0..cap {
        // SeqCst swap (getAndSetReference): races with a thief's CAS on this very slot;
        // whichever empties it owns the task, so no task is in both arrays.
        let t = a.at(k).swap(null_mut(), SeqCst);
        if t.is_null() {
            break; // lost to a thief: indices below k are taken too
        }
        new.at(k).store(t, Relaxed); // Relaxed: the new array is not visible yet (see below)
        k = k.wrapping_sub(1);
    }
    // ANCHOR_END: move
    // SeqCst swap (the JDK's "fully fenced" updateArray). Its Release half publishes the
    // moved slots: a thief whose Acquire load sees the new array sees them filled.
    let old = q.array.swap(Box::into_raw(new), SeqCst);
    // A thief may still be reading the old array (it loaded the pointer before the swap).
    // Java's GC frees it when the last reader is done; we keep it until the queue drops.
    // SAFETY: `old` came from Box::into_raw and is no longer reachable through `array`;
    // only this owner ever unlinks an array, so no one else turns it back into a Box.
    q.retire(unsafe { Box::from_raw(old) });
}
// ANCHOR_END: grow
