use std::cell::Cell;
use std::marker::PhantomData;

use ch01_ring::Full;
use ch01_ring::ops::slot_of;
use crossbeam_utils::CachePadded;

use crate::sync::{Arc, AtomicI32, AtomicPtr, Ordering};
use crate::{PollOps, PollStats, Reference};
use reclaim::{pin, take_keeping_box, take_own};

// ANCHOR: work_queue
/// The shared state of a work-stealing queue: chapter 1's ring with atomic slots.
///
/// Who writes what (the invariants every function here keeps):
/// - `array[i]` holds a task (a box from `reclaim::boxed`) or null. The owner's push writes a task;
///   whoever takes the task writes null, with an atomic swap (owner) or CAS (thief), so
///   *the slot decides who owns a task*: exactly one swap or CAS gets it.
/// - `top` is written by the owner only. `base` is written only by whoever just took the
///   task at index `base` (owner or thief), and only forward, to that index + 1.
/// - The tasks are at indices `base..top`; a slot in that range may be null for a moment
///   (taken, `base` not yet moved; or announced by `top`, not yet written).
pub struct WorkQueue<T> {
    /// Fixed in chapters 2 and 3; chapter 4 grows it while thieves poll.
    pub array: Box<[AtomicPtr<T>]>,
    /// Index of the oldest task, where thieves poll. The JDK leaves it unannotated beside
    /// `array` and keeps the owner's fields (`top` and others) in a `@Contended` group. Here
    /// both are padded, so that thieves writing `base` do not slow the owner writing `top`.
    pub base: CachePadded<AtomicI32>,
    /// Index of the next push. Only the owner writes it.
    pub top: CachePadded<AtomicI32>,
}
// ANCHOR_END: work_queue

impl<T> WorkQueue<T> {
    fn new(capacity: usize) -> Self {
        assert!(
            capacity >= 2 && capacity.is_power_of_two(),
            "capacity must be a power of two >= 2, got {capacity}"
        );
        assert!(
            capacity <= 1 << 30,
            "capacity {capacity} is above the JDK's largest array, 1 << 30"
        );
        WorkQueue {
            array: (0..capacity).map(|_| AtomicPtr::new(std::ptr::null_mut())).collect(),
            base: CachePadded::new(AtomicI32::new(0)),
            top: CachePadded::new(AtomicI32::new(0)),
        }
    }

    /// The slot of logical index `index` (chapter 1's mask).
    #[inline]
    pub fn slot(&self, index: i32) -> &AtomicPtr<T> {
        &self.array[slot_of(self.array.len(), index)]
    }

    /// Number of slots.
    pub fn capacity(&self) -> usize {
        self.array.len()
    }

    /// `top - base`, read without synchronizing: exact only when nobody is changing them.
    pub fn len(&self) -> usize {
        let (b, t) = (self.base.load(Ordering::Relaxed), self.top.load(Ordering::Relaxed));
        t.wrapping_sub(b).max(0) as usize
    }

    /// True when `len() == 0`, with the same caveat.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> Drop for WorkQueue<T> {
    fn drop(&mut self) {
        // Dropping the last handle: nobody else can touch the slots. Free what is left.
        for slot in self.array.iter() {
            // Relaxed: `&mut self` already rules out every other access (and loom's
            // AtomicPtr has no `get_mut`, so a load it is).
            let p = slot.load(Ordering::Relaxed);
            if !p.is_null() {
                // SAFETY: a non-null slot holds a box from `reclaim::boxed` in `push` that no
                // one took (taking nulls the slot), and `&mut self` means no one else can now.
                drop(unsafe { Box::from_raw(p) });
            }
        }
    }
}

// ANCHOR: push
/// Owner: stores `task` at `top`. [JDK: `WorkQueue.push`, minus growth (chapter 4)]
pub fn push<T>(q: &WorkQueue<T>, task: T) -> Result<(), Full<T>> {
    let s = q.top.load(Ordering::Relaxed); // only the owner writes top: its own last value
    // Relaxed: the JDK's plain read. A stale base only understates the room. The recheck that
    // catches a slot reused after a wrap needs no ordering here: this read comes before the
    // swap below, which a thief's Acquire read of the slot sees, so by coherence that thief's
    // recheck reads this base or a newer one (the page: "What each ordering buys").
    let b = q.base.load(Ordering::Relaxed);
    if s.wrapping_sub(b) as i64 >= q.capacity() as i64 {
        return Err(Full { task, capacity: q.capacity() });
    }
    // The box first (the JDK's task is an object already): between the store of top and the
    // swap, a thief finds a null slot inside base..top, the "stall" its poll waits out, and a
    // box from the allocator there would make it wait longer.
    let p = reclaim::boxed(task);
    // The JDK moves top first, then fills the slot.
    q.top.store(s.wrapping_add(1), Ordering::Relaxed); // a plain store in the JDK: owner's own field
    // SeqCst swap (the JDK's "fully fenced" getAndSetReference): Release publishes the task's
    // contents to the thief whose Acquire load reads this pointer.
    q.slot(s).swap(p, Ordering::SeqCst);
    Ok(())
}
// ANCHOR_END: push

// ANCHOR: pop
/// Owner, LIFO: takes the newest task, at `top - 1`, or null.
/// [JDK: `nextLocalTask(0)`; chapter 3 adds the FIFO mode]
pub fn pop<T>(q: &WorkQueue<T>) -> *mut T {
    let p = q.top.load(Ordering::Relaxed); // owner's own field
    let b = q.base.load(Ordering::Relaxed); // stale: too many tasks seen; the swap decides
    if p.wrapping_sub(b) <= 0 {
        return std::ptr::null_mut();
    }
    let s = p.wrapping_sub(1);
    // The swap decides: a thief's CAS on the same slot can win it only if s == base, the
    // last task. SeqCst: Acquire for the task's contents, and a total order with the CAS.
    let t = q.slot(s).swap(std::ptr::null_mut(), Ordering::SeqCst);
    if !t.is_null() {
        q.top.store(s, Ordering::Relaxed);
    } // else a thief won the only task: it moves base to p, so base == top: empty.
    t
}
// ANCHOR_END: pop

/// Makes a queue of `capacity` slots (a power of two), and its two kinds of handle.
pub fn new<T>(capacity: usize) -> (Owner<T>, Stealer<T>) {
    new_with::<T, Reference>(capacity)
}

/// Like [`new`], with the thieves running the mechanism `P` (the grader's `Exercise`).
pub fn new_with<T, P: PollOps>(capacity: usize) -> (Owner<T>, Stealer<T, P>) {
    let q = Arc::new(WorkQueue::new(capacity));
    (Owner { q: q.clone(), not_sync: PhantomData }, Stealer { q, poll: PhantomData })
}

/// The owner's handle: the only one that can push and pop. `Send` (it may be handed to the
/// thread that will own the queue) but not `Sync` and not `Clone`, so "only the owner writes
/// `top`" is checked by the compiler.
pub struct Owner<T> {
    q: Arc<WorkQueue<T>>,
    not_sync: PhantomData<Cell<()>>,
}

// SAFETY: the owner handle moves tasks of type T between threads (it pushes tasks that
// thieves take), which is sound when T: Send; the `Cell` marker keeps it !Sync.
unsafe impl<T: Send> Send for Owner<T> {}

impl<T> Owner<T> {
    /// Pushes a task; at capacity, hands it back in [`Full`].
    pub fn push(&self, task: T) -> Result<(), Full<T>> {
        push(&self.q, task)
    }

    /// Takes the newest task (LIFO), or `None` if the queue is empty or a thief won the last one.
    pub fn pop(&self) -> Option<T> {
        // SAFETY: `pop` returns null or a pointer it took from its slot with a swap. (No pin:
        // the owner's swap compares nothing; see `reclaim`.)
        unsafe { take_own(pop(&self.q)) }
    }

    /// The shared state, for later chapters, probes and tables.
    pub fn queue(&self) -> &WorkQueue<T> {
        &self.q
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

/// A thief's handle: polls the `base` end. `Clone + Send + Sync`: any number of threads may poll.
pub struct Stealer<T, P: PollOps = Reference> {
    q: Arc<WorkQueue<T>>,
    poll: PhantomData<fn() -> P>,
}

// SAFETY: thieves only take tasks (each exactly once, by CAS) and move them to their own
// thread, which is sound when T: Send; the queue's shared state is all atomics.
unsafe impl<T: Send, P: PollOps> Send for Stealer<T, P> {}
// SAFETY: as above; `poll` takes `&self` and synchronizes through the slot CAS.
unsafe impl<T: Send, P: PollOps> Sync for Stealer<T, P> {}

impl<T, P: PollOps> Clone for Stealer<T, P> {
    fn clone(&self) -> Self {
        Stealer { q: self.q.clone(), poll: PhantomData }
    }
}

impl<T, P: PollOps> Stealer<T, P> {
    /// Takes the oldest task, or `None` if the queue looked empty.
    pub fn poll(&self) -> Option<T> {
        self.poll_counted(&mut PollStats::default())
    }

    /// Like [`poll`](Self::poll), adding what happened to `stats` (CAS attempts, failures...).
    pub fn poll_counted(&self, stats: &mut PollStats) -> Option<T> {
        let pin = pin(); // held from the first slot read to the CAS: see `reclaim`
        let p = P::poll(&self.q, stats);
        // SAFETY: the contract of the unsafe trait `PollOps`: null or a pointer taken by CAS.
        unsafe { take_keeping_box(p, &pin) }
    }

    /// The shared state.
    pub fn queue(&self) -> &WorkQueue<T> {
        &self.q
    }
}
