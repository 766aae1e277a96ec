//! Chapter 3: the owner's side of the race for the last task, after JDK 25's
//! `WorkQueue.nextLocalTask(fifo)`.
//!
//! Chapter 2's owner could only pop LIFO. Here it gets the JDK's FIFO mode too (a pool built
//! with `asyncMode`), which takes from `base` — the thieves' end — and so meets them head on.
//! The interesting line is the last-slot branch: with one task left, take it from `top - 1`.
//!
//! - [`take::next_local_task`]: the mechanism (the reference solution of the exercise);
//! - [`Owner`]: chapter 2's owner handle with `next_local_task(fifo)`, generic over who runs it.

pub use ch02_poll::{Full, PollStats, Stealer, WorkQueue, sync};

/// The owner's take: the reference solution of the chapter 3 exercise.
pub mod take;

use std::marker::PhantomData;

/// The seam between the owner's handle and the take function that runs it.
///
/// # Safety
/// `next_local_task` must return null or a pointer that it took out of a slot of `q` with a
/// swap to null: the caller turns it back into the `Box` it came from.
pub unsafe trait TakeOps {
    /// See [`take::next_local_task`].
    fn next_local_task<T>(q: &WorkQueue<T>, fifo: bool) -> *mut T;
}

macro_rules! impl_take_ops {
    ($ty:ident) => {
        // SAFETY: `next_local_task` in this module returns null or the pointer its swap took.
        unsafe impl $crate::TakeOps for $ty {
            fn next_local_task<T>(q: &$crate::WorkQueue<T>, fifo: bool) -> *mut T {
                next_local_task(q, fifo)
            }
        }
    };
}

/// The reference mechanism, [`take::next_local_task`].
pub struct Reference;
mod reference {
    use super::Reference;
    use crate::take::next_local_task;
    impl_take_ops!(Reference);
}

/// The reader's exercise, compiled only with `--features exercise` (the grader's switch).
#[cfg(feature = "exercise")]
pub mod exercise {
    include!(env!("EXERCISE_FILE"));

    /// The exercise's take, plugged into [`Owner`](crate::Owner).
    pub struct Exercise;
    impl_take_ops!(Exercise);
}

/// Makes a queue of `capacity` slots, its owner (taking with the reference) and a thief handle.
pub fn new<T>(capacity: usize) -> (Owner<T>, Stealer<T>) {
    new_with::<T, Reference>(capacity)
}

/// Like [`new`], with the owner's takes run by `O` (the grader's `Exercise`).
pub fn new_with<T, O: TakeOps>(capacity: usize) -> (Owner<T, O>, Stealer<T>) {
    let (inner, stealer) = ch02_poll::new(capacity);
    (Owner { inner, take: PhantomData }, stealer)
}

/// Chapter 2's owner handle with the JDK's two take modes. `Send`, not `Sync`, not `Clone`.
pub struct Owner<T, O: TakeOps = Reference> {
    inner: ch02_poll::Owner<T>,
    take: PhantomData<fn() -> O>,
}

impl<T, O: TakeOps> Owner<T, O> {
    /// Pushes a task (chapter 2's push); at capacity, hands it back in [`Full`].
    pub fn push(&self, task: T) -> Result<(), Full<T>> {
        self.inner.push(task)
    }

    /// Takes the next task, newest first or, with `fifo`, oldest first. `None` when the queue
    /// is empty or a thief won the last task.
    pub fn next_local_task(&self, fifo: bool) -> Option<T> {
        let p = O::next_local_task(self.inner.queue(), fifo);
        // SAFETY: the contract of the unsafe trait `TakeOps`: null or a pointer its swap took.
        unsafe { reclaim::take_own(p) }
    }

    /// LIFO take: `next_local_task(false)`.
    pub fn pop(&self) -> Option<T> {
        self.next_local_task(false)
    }

    /// FIFO take: `next_local_task(true)`.
    pub fn poll_fifo(&self) -> Option<T> {
        self.next_local_task(true)
    }

    /// The shared state.
    pub fn queue(&self) -> &WorkQueue<T> {
        self.inner.queue()
    }

    /// Number of tasks, exact when no thief is in the middle of a poll.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// True when `len() == 0`.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }
}
