//! Chapter 4: growing the array while thieves poll, after JDK 25's `WorkQueue.growArray`,
//! and keeping the old array alive, which Java's garbage collector does for free.
//!
//! Chapters 2 and 3 had a fixed array and a push that said [`Full`]. Here the array is a
//! value of its own ([`Slots`]) behind an atomic pointer, and the owner's push doubles it
//! when it fills: it *moves* each task from the old array to the new one with a swap, from
//! the newest down, stopping at the first slot a thief already emptied; then it publishes
//! the new array with a fully fenced swap. Thieves read the array afresh every round.
//!
//! - [`WorkQueue`], [`Slots`], [`push`]: the shared state and the owner's push;
//! - [`grow::grow`]: the move and the publish (the reference solution of the exercise);
//! - [`take`]: chapters 2 and 3's `poll` and `next_local_task`, re-reading the array;
//! - [`Owner`], [`Stealer`]: the handles, as in chapters 2 and 3;
//! - [`Memory`]: what the arrays hold, current and retired.

mod queue;
mod spare;
pub mod take;

/// Growing the array: the reference solution of the chapter 4 exercise.
pub mod grow;

pub use ch01_ring::Full;
pub use ch02_poll::{PollStats, sync};
pub use queue::{Memory, Slots, WorkQueue, pop, push, push_slot};
pub use spare::SPARES;

use std::cell::Cell;
use std::marker::PhantomData;

use reclaim::{home, pin, take_own, take_sending_box_home};

use crate::sync::Arc;

/// The JDK's first array length for a worker's queue (`INITIAL_QUEUE_CAPACITY`, 1 << 6).
pub const INITIAL_QUEUE_CAPACITY: usize = 1 << 6;
/// The largest array. JDK 25 has no named limit: `growArray` doubles while `cap << 1` is a
/// positive `int` (so 1 << 30 is the last length) and the allocation succeeds, and a push
/// into a full array that could not grow throws. We stop at a limit of our own, as in
/// chapter 1, so that [`Full`] can be tested.
pub const MAX_CAPACITY: usize = 1 << 30;

/// The seam between the owner's push and the `grow` it calls.
///
/// # Safety
/// `grow` must leave every task that was in `q`'s array either in the array it publishes
/// (at the same index) or with the thief that took it, never in both, and must not free an
/// array that a thief may still be reading: `Drop` and the thieves rely on both.
pub unsafe trait GrowOps {
    /// See [`grow::grow`].
    fn grow<T>(q: &WorkQueue<T>, s: i32);
}

macro_rules! impl_grow_ops {
    ($ty:ident) => {
        // SAFETY: `grow` in this module moves each task with a swap and retires the old array.
        unsafe impl $crate::GrowOps for $ty {
            fn grow<T>(q: &$crate::WorkQueue<T>, s: i32) {
                grow(q, s)
            }
        }
    };
}

/// The reference mechanism, [`grow::grow`].
pub struct Reference;
mod reference {
    use super::Reference;
    use crate::grow::grow;
    impl_grow_ops!(Reference);
}

/// The reader's exercise, compiled only with `--features exercise` (the grader's switch).
#[cfg(feature = "exercise")]
pub mod exercise {
    include!(env!("EXERCISE_FILE"));

    /// The exercise's `grow`, plugged into [`Owner`](crate::Owner)'s push.
    pub struct Exercise;
    impl_grow_ops!(Exercise);
}

/// A queue starting at `capacity` slots (a power of two >= 2) and growing up to
/// [`MAX_CAPACITY`], with its owner and a thief handle.
pub fn new<T>(capacity: usize) -> (Owner<T>, Stealer<T>) {
    new_with::<T, Reference>(capacity, MAX_CAPACITY)
}

/// Like [`new`], growing with `G` (the grader's `Exercise`) up to `max_capacity`.
pub fn new_with<T, G: GrowOps>(capacity: usize, max_capacity: usize) -> (Owner<T, G>, Stealer<T>) {
    let q = Arc::new(WorkQueue::new(capacity, max_capacity));
    (Owner { q: q.clone(), grow: PhantomData, homed: Cell::new(false) }, Stealer { q })
}

/// The owner's handle: push (growing), pop, FIFO take. `Send`, not `Sync`, not `Clone`.
pub struct Owner<T, G: GrowOps = Reference> {
    q: Arc<WorkQueue<T>>,
    grow: PhantomData<fn() -> G>,
    /// Whether this handle has bound the queue's home (at its first push). Also keeps it !Sync.
    homed: Cell<bool>,
}

// SAFETY: as chapter 2's Owner: it moves tasks of type T between threads; `Cell` keeps it !Sync.
unsafe impl<T: Send, G: GrowOps> Send for Owner<T, G> {}

impl<T, G: GrowOps> Owner<T, G> {
    /// Pushes a task, growing the array when it fills; at the maximum capacity, hands the
    /// task back in [`Full`].
    pub fn push(&self, task: T) -> Result<(), Full<T>> {
        if !self.homed.get() {
            self.bind_home();
        }
        push::<T, G>(&self.q, task)
    }

    /// At the first push: names this thread as the one thieves hand the boxes back to. Out of
    /// line, so that `push` stays small enough to inline (its task then goes straight into
    /// the box).
    #[cold]
    #[inline(never)]
    fn bind_home(&self) {
        self.q.bind_home(Some(home()));
        self.homed.set(true);
    }

    /// Takes the next task, newest first or, with `fifo`, oldest first.
    pub fn next_local_task(&self, fifo: bool) -> Option<T> {
        if !fifo {
            // SAFETY: this is the owner's handle.
            return unsafe { pop(&self.q) }; // the LIFO take keeps its box as a spare
        }
        // SAFETY: `next_local_task` returns null or a pointer its swap took.
        unsafe { take_own(take::next_local_task(&self.q, fifo)) }
    }

    /// LIFO take.
    pub fn pop(&self) -> Option<T> {
        self.next_local_task(false)
    }

    /// FIFO take.
    pub fn poll_fifo(&self) -> Option<T> {
        self.next_local_task(true)
    }

    /// The shared state.
    pub fn queue(&self) -> &WorkQueue<T> {
        &self.q
    }

    /// Another thief handle on this queue.
    pub fn stealer(&self) -> Stealer<T> {
        Stealer { q: self.q.clone() }
    }

    /// Number of tasks, exact when no thief is in the middle of a poll.
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// True when `len() == 0`.
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

/// A thief's handle. `Clone + Send + Sync`.
pub struct Stealer<T> {
    q: Arc<WorkQueue<T>>,
}

// SAFETY: thieves take tasks (each exactly once, by CAS) to their own thread: sound for T: Send.
unsafe impl<T: Send> Send for Stealer<T> {}
// SAFETY: as above; `poll` takes `&self` and synchronizes through the slot CAS.
unsafe impl<T: Send> Sync for Stealer<T> {}

impl<T> Clone for Stealer<T> {
    fn clone(&self) -> Self {
        Stealer { q: self.q.clone() }
    }
}

impl<T> Stealer<T> {
    /// Takes the oldest task, or `None` if the queue looked empty.
    pub fn poll(&self) -> Option<T> {
        self.poll_counted(&mut PollStats::default())
    }

    /// Like [`poll`](Self::poll), counting into `stats`.
    pub fn poll_counted(&self, stats: &mut PollStats) -> Option<T> {
        let p = {
            let _pin = pin(); // from the first slot read to the CAS
            take::poll(&self.q, stats)
        };
        // SAFETY: `take::poll` returns null or a pointer its CAS took while pinned; the box goes
        // back to the thread that pushed it (chapter 2's `take_sending_box_home`), once the pin is over.
        unsafe { take_sending_box_home(p, self.q.home()) }
    }

    /// The shared state.
    pub fn queue(&self) -> &WorkQueue<T> {
        &self.q
    }
}
