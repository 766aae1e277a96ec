use std::fmt;
use std::marker::PhantomData;

use crate::raw::{DEFAULT_MAX_CAPACITY, INITIAL_QUEUE_CAPACITY};
use crate::{Full, RawRing};

/// The seam between the ring's API and its mechanism: the functions of
/// [`ops`](crate::ops) (or of the reader's exercise), gathered under one type.
pub trait RingOps {
    /// Shown in tables and benchmark ids.
    const NAME: &'static str;
    /// See [`ops::slot_of`](crate::ops::slot_of).
    fn slot_of(capacity: usize, index: i32) -> usize;
    /// See [`ops::push`](crate::ops::push).
    fn push<T>(q: &mut RawRing<T>, task: T) -> Result<(), Full<T>>;
    /// See [`ops::grow`](crate::ops::grow).
    fn grow<T>(q: &mut RawRing<T>);
    /// See [`ops::pop`](crate::ops::pop).
    fn pop<T>(q: &mut RawRing<T>) -> Option<T>;
    /// See [`ops::poll_fifo`](crate::ops::poll_fifo).
    fn poll_fifo<T>(q: &mut RawRing<T>) -> Option<T>;
}

/// Implements [`RingOps`] for `$ty` by calling the functions of the module it sits in.
macro_rules! impl_ring_ops {
    ($ty:ident, $name:literal) => {
        impl $crate::RingOps for $ty {
            const NAME: &'static str = $name;
            fn slot_of(capacity: usize, index: i32) -> usize {
                slot_of(capacity, index)
            }
            fn push<T>(q: &mut $crate::RawRing<T>, task: T) -> Result<(), $crate::Full<T>> {
                push(q, task)
            }
            fn grow<T>(q: &mut $crate::RawRing<T>) {
                grow(q)
            }
            fn pop<T>(q: &mut $crate::RawRing<T>) -> Option<T> {
                pop(q)
            }
            fn poll_fifo<T>(q: &mut $crate::RawRing<T>) -> Option<T> {
                poll_fifo(q)
            }
        }
    };
}
// Used by `lib.rs` for the exercise; unused without the grader's feature.
#[cfg_attr(not(feature = "exercise"), allow(unused_imports))]
pub(crate) use impl_ring_ops;

/// The reference mechanism, [`ops`](crate::ops).
pub struct Reference;
mod reference {
    use crate::ops::{grow, poll_fifo, pop, push, slot_of};
    impl_ring_ops!(Reference, "reference");
    use super::Reference;
}

/// A work queue with one owner: push at `top`, take from `top - 1` (LIFO) or from
/// `base` (FIFO), grow by doubling, refuse with [`Full`] past the maximum capacity.
///
/// ```
/// use ch01_ring::Ring;
/// let mut ring = Ring::new();
/// ring.push("a").unwrap();
/// ring.push("b").unwrap();
/// assert_eq!(ring.pop(), Some("b"));       // LIFO: newest first
/// assert_eq!(ring.poll_fifo(), Some("a")); // FIFO: oldest first
/// assert_eq!(ring.pop(), None);
/// ```
pub struct Ring<T, O: RingOps = Reference> {
    raw: RawRing<T>,
    ops: PhantomData<O>,
}

impl<T> Ring<T> {
    /// An empty ring of [`INITIAL_QUEUE_CAPACITY`] slots that grows up to [`DEFAULT_MAX_CAPACITY`].
    pub fn new() -> Self {
        Self::with_capacity(INITIAL_QUEUE_CAPACITY, DEFAULT_MAX_CAPACITY)
    }

    /// An empty ring of `capacity` slots that grows up to `max_capacity`.
    ///
    /// # Panics
    /// If either is not a power of two of at least 2, or `capacity > max_capacity`.
    pub fn with_capacity(capacity: usize, max_capacity: usize) -> Self {
        Self::with_ops(capacity, max_capacity)
    }
}

impl<T> Default for Ring<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, O: RingOps> Ring<T, O> {
    /// Like [`Ring::with_capacity`], for a ring run by the mechanism `O`
    /// (`Ring::<u64, Exercise>::with_ops(2, 64)`).
    pub fn with_ops(capacity: usize, max_capacity: usize) -> Self {
        Ring { raw: RawRing::new(capacity, max_capacity, 0), ops: PhantomData }
    }

    /// Moves the indices of an empty ring to `start`, so that tests and probes can
    /// watch them wrap past `i32::MAX` (and, as bits, past `u32::MAX`) within a few pushes.
    ///
    /// # Panics
    /// If the ring is not empty.
    pub fn starting_at(mut self, start: i32) -> Self {
        assert!(self.raw.is_empty(), "starting_at needs an empty ring");
        self.raw.base = start;
        self.raw.top = start;
        self
    }

    /// Pushes a task; hands it back in [`Full`] if the ring is full at its maximum capacity.
    pub fn push(&mut self, task: T) -> Result<(), Full<T>> {
        O::push(&mut self.raw, task)
    }

    /// Takes the newest task (LIFO).
    pub fn pop(&mut self) -> Option<T> {
        O::pop(&mut self.raw)
    }

    /// Takes the oldest task (FIFO).
    pub fn poll_fifo(&mut self) -> Option<T> {
        O::poll_fifo(&mut self.raw)
    }

    /// Takes the next task in the given mode, like the JDK's `nextLocalTask(fifo)`.
    pub fn next_local_task(&mut self, fifo: bool) -> Option<T> {
        if fifo { self.poll_fifo() } else { self.pop() }
    }

    /// Number of tasks held.
    pub fn len(&self) -> usize {
        self.raw.len()
    }

    /// True when no task is held.
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// Number of slots in the current array.
    pub fn capacity(&self) -> usize {
        self.raw.capacity()
    }

    /// The index of the oldest task.
    pub fn base(&self) -> i32 {
        self.raw.base
    }

    /// The index of the next push.
    pub fn top(&self) -> i32 {
        self.raw.top
    }

    /// The fields, read-only, for tables and probes.
    pub fn raw(&self) -> &RawRing<T> {
        &self.raw
    }
}

impl<T: fmt::Debug, O: RingOps> fmt::Debug for Ring<T, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ring")
            .field("ops", &O::NAME)
            .field("base", &self.raw.base)
            .field("top", &self.raw.top)
            .field("capacity", &self.capacity())
            .field("slots", &self.raw.array)
            .finish()
    }
}
