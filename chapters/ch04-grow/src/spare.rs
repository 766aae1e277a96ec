//! The owner's spare boxes: a box that the owner's LIFO pop took out of the slot of index `i`
//! waits here, and the owner's next push at an index `i` or below (modulo [`SPARES`]) puts its
//! task in it, without a trip through chapter 2's reclamation (`reclaim::boxed` and
//! `take_own`, a thread-local chain each way).
//!
//! Why reuse at once is safe. Chapter 2's danger is a thief that read pointer `t` from the
//! slot of index `b`, checked `base == b`, and paused before its CAS: if `t`'s memory comes
//! back into that slot for a *later* index, the CAS succeeds and sets `base` to `b + 1`,
//! backwards. A spare never goes to a later index:
//! - it is filed under the index `j` its pop took it from (`top` after the pop). A push always
//!   goes to `top`, and `top` climbs past `j` only through a push at `j`, which takes the
//!   spare; a pop at an index below `j` that maps to the same entry files its own box there
//!   instead, handing the older one to the reclamation. So a spare of index `j` serves a push
//!   at `j`, or (after a take that lowered `top` without filing, chapter 3's FIFO last-slot
//!   branch) at an index below `j`;
//! - a box that leaves the queue any other way (a thief's take, a FIFO take, a spare pushed
//!   out by a newer one) goes through the reclamation, which waits for every pin.
//!
//! So if the paused thief's CAS finds `t` again, `t` left the slot of index `b` by the owner's
//! pop there (any other way out waits for the thief's pin) and came back by a push at an index
//! `i <= b`. That push was at `top`, and `top >= base >= b`, since `base` was `b` and never
//! moves backwards: so `i == b`. By the same step for each round trip, `t` holds the task of
//! index `b`, which no one has taken, and `base == b`: the thief takes exactly the task it
//! would have taken without the pause. A grow changes nothing: the pop emptied the old array's
//! slot, and no one writes an old array again.
//!
//! Only the owner touches the spares, as only the owner writes `top` (a submission queue's
//! owner is whoever holds its lock).

use std::cell::UnsafeCell;
use std::ptr::null_mut;

/// Spares kept: one per index modulo this. (A pop files its box at `index % SPARES`; one that
/// finds an older box there hands the older one to the reclamation.)
pub const SPARES: usize = 64;

/// The owner's spare boxes, by index modulo [`SPARES`].
///
/// Invariant: a non-null entry at `j % SPARES` is a box that [`reclaim::boxed`] made, holding
/// no value, in no slot, that the owner's LIFO pop took out of the slot of an index `j` with
/// `j >= top` (so no push has gone past `j` since).
pub(crate) struct Spares<T> {
    cells: [UnsafeCell<*mut T>; SPARES],
}

// SAFETY: the entries are touched only by the queue's owner (the invariant of `top`), one
// thread at a time; the boxes they point to hold no value of T.
unsafe impl<T> Sync for Spares<T> {}
// SAFETY: as above.
unsafe impl<T> Send for Spares<T> {}

impl<T> Spares<T> {
    pub(crate) fn new() -> Self {
        Spares { cells: std::array::from_fn(|_| UnsafeCell::new(null_mut())) }
    }

    /// The spare filed under `index`'s entry, if any, emptied out of it: from a pop at `index`
    /// or above (the invariant).
    ///
    /// # Safety
    /// Only the queue's owner calls this, and `index` is `top`, where it pushes next.
    #[inline(always)]
    pub(crate) unsafe fn take(&self, index: i32) -> *mut T {
        let cell = &self.cells[index as u32 as usize % SPARES];
        // SAFETY: only the owner touches the entries (caller).
        unsafe { std::mem::replace(&mut *cell.get(), null_mut()) }
    }

    /// Files `p`, just popped LIFO from the slot of `index`, for the next push there; an older
    /// spare in its entry goes to the reclamation.
    ///
    /// # Safety
    /// Only the queue's owner calls this; `p` came from [`reclaim::boxed`], its swap took it
    /// out of the slot of `index` (`top` after the pop), and its task was moved out.
    #[inline(always)]
    pub(crate) unsafe fn put(&self, index: i32, p: *mut T) {
        let cell = &self.cells[index as u32 as usize % SPARES];
        // SAFETY: only the owner touches the entries (caller).
        let old = unsafe { std::mem::replace(&mut *cell.get(), p) };
        if !old.is_null() {
            // SAFETY: a spare (the invariant): empty, in no slot, the owner's alone.
            unsafe { reclaim::release_empty(old) };
        }
    }
}

impl<T> Drop for Spares<T> {
    /// Frees the spares at once, as the queue's drop frees the boxes of tasks nobody took: a
    /// thief can compare an address only against this queue's slots, and no thread can reach
    /// them any more.
    fn drop(&mut self) {
        for cell in &mut self.cells {
            let p = *cell.get_mut();
            if !p.is_null() {
                // SAFETY: a spare (the invariant): from `reclaim::boxed` (a `Box<T>`'s layout),
                // holding no value, so freed as a box of `MaybeUninit<T>`; no one else has it.
                drop(unsafe { Box::from_raw(p.cast::<std::mem::MaybeUninit<T>>()) });
            }
        }
    }
}
