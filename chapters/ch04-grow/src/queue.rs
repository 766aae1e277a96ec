use std::ptr::null_mut;
use std::sync::{Arc, Mutex};

use ch01_ring::ops::slot_of;
use crossbeam_utils::CachePadded;
use reclaim::{BoundHome, Home};

use crate::GrowOps;
use crate::spare::Spares;
use crate::sync::{AtomicI32, AtomicPtr, Ordering};
use ch01_ring::Full;

// ANCHOR: slots
/// One array of slots: chapter 2's `array`, now a value of its own so that it can be
/// replaced whole. A power of two long; never resized in place. Aligned to a line pair of its
/// own: every poll reads `cells`' length, and a task box allocated beside it would share its
/// line with the owner's writes.
#[repr(align(128))]
pub struct Slots<T> {
    cells: Box<[AtomicPtr<T>]>,
}

impl<T> Slots<T> {
    /// `capacity` empty (null) slots.
    pub fn new(capacity: usize) -> Box<Self> {
        assert!(capacity.is_power_of_two(), "a capacity of {capacity} is no power of two");
        Box::new(Slots { cells: (0..capacity).map(|_| AtomicPtr::new(null_mut())).collect() })
    }

    /// Number of slots.
    pub fn capacity(&self) -> usize {
        self.cells.len()
    }

    /// The slot of logical index `index` (chapter 1's mask, for this array's length).
    #[inline]
    pub fn at(&self, index: i32) -> &AtomicPtr<T> {
        let i = slot_of(self.cells.len(), index);
        // SAFETY: `cells` is a power of two long (`new` asserts it, so at least 1), and the
        // mask keeps `i` below that: no bounds check needed on the hottest line of every push.
        unsafe { self.cells.get_unchecked(i) }
    }
}
// ANCHOR_END: slots

// ANCHOR: work_queue
/// Chapter 2's queue with a replaceable array.
///
/// Invariants, in addition to chapter 2's (the slot decides who owns a task; only the owner
/// writes `top`; `base` moves forward only, written by whoever took index `base`):
/// - `array` is never null. Only the owner replaces it, in `grow`, after moving every task
///   still in the old array into the new one (emptying each old slot with a swap).
/// - An array that `array` pointed to is freed only when the queue drops: `grow` hands it to
///   `retired`. So any `&Slots` read from `array` stays valid while the queue lives, however
///   long a thief holds it. The retired arrays hold fewer slots than the current one
///   (`c/2 + c/4 + ... < c`), and all their slots are null.
pub struct WorkQueue<T> {
    /// The current array, from `Box::into_raw`. Owner writes (grow), everyone reads.
    pub array: AtomicPtr<Slots<T>>,
    /// Index of the oldest task, where thieves poll (padded, as in chapter 2).
    pub base: CachePadded<AtomicI32>,
    /// Index of the next push. Only the owner writes it.
    pub top: CachePadded<AtomicI32>,
    /// Arrays replaced by `grow`, kept until the queue drops. Only the owner pushes here,
    /// a handful of times in the queue's life: the lock is never contended. Boxed, not
    /// moved into the Vec: thieves hold `&Slots` at the address `array` pointed to.
    #[allow(clippy::vec_box)]
    retired: Mutex<Vec<Box<Slots<T>>>>,
    /// `grow` is not called past this capacity: the array then fills and push says [`Full`].
    max_capacity: usize,
    /// Where thieves hand the task boxes they take back to (chapter 2's `take_sending_box_home`):
    /// the home of the thread that pushes here, bound once; none for a queue that many threads
    /// push to (a submission queue), whose thieves keep what they take.
    home: BoundHome,
    /// Boxes the owner popped, for its next push at the same index (`spare.rs`).
    spares: Spares<T>,
    /// The owner's last read of `base`, for `push`'s room check: `base` only grows, so this is
    /// a lower bound, and the room it gives is never more than there is. Only the owner reads
    /// and writes it.
    base_seen: AtomicI32,
    /// Set by a push that grew the array, until the owner asks ([`WorkQueue::grew`]): the
    /// JDK's push signals on a growth (`room == 0`), and chapter 7's pool, which signals after
    /// chapter 4's push, learns of the growth here. Only the owner reads and writes it (on a
    /// submission queue, whoever holds its lock sets it, chapter 5's owner rights, and no one
    /// reads it). std's atomic under loom too: one owner's flag has no interleaving to explore.
    grew: std::sync::atomic::AtomicBool,
}
// ANCHOR_END: work_queue

/// What a queue's arrays hold, in slots (one pointer each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memory {
    /// Slots of the current array.
    pub capacity: usize,
    /// Arrays replaced by `grow` and kept until the queue drops.
    pub retired_arrays: usize,
    /// Their slots, all null.
    pub retired_slots: usize,
}

impl Memory {
    /// Bytes of all arrays, current and retired (the tasks' own boxes are not counted).
    pub fn bytes(&self) -> usize {
        (self.capacity + self.retired_slots) * size_of::<AtomicPtr<()>>()
    }
}

impl<T> WorkQueue<T> {
    /// The shared state alone, without handles: [`new`](crate::new) wraps it in an owner and a
    /// thief; the contention probes' floor (`probes::protocol`) drives it with bare ids.
    pub fn new(capacity: usize, max_capacity: usize) -> Self {
        assert!(
            capacity >= 2 && capacity.is_power_of_two() && max_capacity.is_power_of_two(),
            "capacities must be powers of two >= 2, got {capacity} and {max_capacity}"
        );
        assert!(
            capacity <= max_capacity && max_capacity <= 1 << 30,
            "need capacity {capacity} <= max {max_capacity} <= 1 << 30 (the JDK's largest array)"
        );
        WorkQueue {
            array: AtomicPtr::new(Box::into_raw(Slots::new(capacity))),
            base: CachePadded::new(AtomicI32::new(0)),
            top: CachePadded::new(AtomicI32::new(0)),
            retired: Mutex::new(Vec::new()),
            max_capacity,
            home: BoundHome::new(),
            spares: Spares::new(),
            base_seen: AtomicI32::new(0),
            grew: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Owner: whether a push grew the array since the last call (and forget it).
    #[inline]
    pub fn grew(&self) -> bool {
        use std::sync::atomic::Ordering::Relaxed; // the owner's own flag, set by its pushes
        let grew = self.grew.load(Relaxed);
        if grew {
            self.grew.store(false, Relaxed);
        }
        grew
    }

    /// The current array. Acquire: pairs with `grow`'s publishing swap, so the slots it
    /// moved into the new array are seen filled.
    #[inline]
    pub fn array(&self) -> &Slots<T> {
        // SAFETY: `array` is never null, and no array it ever pointed to is freed before the
        // queue drops (invariants above), which `&self` outlives.
        unsafe { &*self.array.load(Ordering::Acquire) }
    }

    /// Keeps an array that `grow` replaced until the queue drops (see the invariants).
    pub fn retire(&self, old: Box<Slots<T>>) {
        self.retired.lock().unwrap_or_else(|e| e.into_inner()).push(old);
    }

    /// Whether `array` is one of the retired arrays itself: the array a thief loaded, not
    /// another of the same length handed to [`retire`](Self::retire) in its place.
    pub fn is_retired(&self, array: *const Slots<T>) -> bool {
        let retired = self.retired.lock().unwrap_or_else(|e| e.into_inner());
        retired.iter().any(|a| std::ptr::eq(&**a, array))
    }

    /// Where thieves send the boxes they take from here (see the field).
    #[inline]
    pub fn home(&self) -> &BoundHome {
        &self.home
    }

    /// Binds the queue's home, once: the pushing thread's (`Some(reclaim::home())`), or `None`
    /// for a queue with many pushers. Returns false if one was bound already.
    pub fn bind_home(&self, home: Option<Arc<Home>>) -> bool {
        self.home.bind(home)
    }

    /// Largest capacity `grow` may reach.
    pub fn max_capacity(&self) -> usize {
        self.max_capacity
    }

    /// Slots held, current and retired.
    pub fn memory(&self) -> Memory {
        let retired = self.retired.lock().unwrap_or_else(|e| e.into_inner());
        Memory {
            capacity: self.array().capacity(),
            retired_arrays: retired.len(),
            retired_slots: retired.iter().map(|a| a.capacity()).sum(),
        }
    }

    /// Capacity of the current array.
    pub fn capacity(&self) -> usize {
        self.array().capacity()
    }

    // `len` and `is_empty` repeat chapter 2's on purpose: the page prints the two queues' diff.

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
        // Relaxed: `&mut self` rules out every other access.
        let a = self.array.load(Ordering::Relaxed);
        // SAFETY: `a` came from Box::into_raw and is freed only here, once.
        let a = unsafe { Box::from_raw(a) };
        for cell in a.cells.iter() {
            let p = cell.load(Ordering::Relaxed); // as above
            if !p.is_null() {
                // SAFETY: a task nobody took, boxed by `reclaim::boxed` in `push` (a `Box<T>`'s
                // layout); no one else is left.
                drop(unsafe { Box::from_raw(p) });
            }
        }
        // The retired arrays drop with `self.retired`: their slots are null (moved by grow).
    }
}

// ANCHOR: push
/// Owner: stores `task` at `top`; when that fills the array, grows it (with `G`, the
/// reference or the reader's `grow`). At the maximum capacity the array stays full and the
/// next push hands its task back in [`Full`]. [JDK: `WorkQueue.push`]
///
/// Two paths. The common one: the room is known from the owner's last read of `base`, and a
/// box is at hand (a spare of this index, or a recycled one), so the push calls nothing.
/// Everything else (reading `base` again, a full array, a growth, a box from the allocator)
/// is [`push_slot`], out of line: with no call on the common path, the compiler saves no
/// registers for one (the page has the counts).
#[inline(always)] // into the caller's frame: the task moves straight into its box
pub fn push<T, G: GrowOps>(q: &WorkQueue<T>, task: T) -> Result<(), Full<T>> {
    let s = q.top.load(Ordering::Relaxed); // only the owner writes top
    // Relaxed: only the owner writes `array`; this reads its own last store.
    // SAFETY: never null, never freed while the queue lives.
    let a = unsafe { &*q.array.load(Ordering::Relaxed) };
    if room_seen(q, s, a.capacity()) {
        let slot = a.at(s);
        // SAFETY: the owner's push, at `top` (`s`).
        let mut m = unsafe { q.spares.take(s) };
        let spare = !m.is_null();
        if !spare {
            m = reclaim::recycled::<T>(); // null when none is ready: then the general path
        }
        if !m.is_null() {
            // SAFETY: a spare or a recycled box: of T's layout, empty, the owner's alone.
            unsafe { m.write(task) };
            q.top.store(s.wrapping_add(1), Ordering::Relaxed); // as in chapter 2
            // SeqCst swap, as in chapter 2: Release publishes the task's contents.
            slot.swap(m, Ordering::SeqCst);
            // Counted after the swap: counted just before it, the same count cost a fork of
            // chapter 7 about a fifteenth of its time on the lab's Intel Xeon (its page, "What
            // it costs"; other machines may differ).
            if spare {
                reclaim::note_reused();
            }
            return Ok(());
        }
    }
    push_general::<T, G>(q, task)
}

/// `push` when the room is not known or no box is at hand: [`push_slot`] with a spare or a box
/// from [`reclaim::boxed`].
#[cold]
#[inline(never)]
fn push_general<T, G: GrowOps>(q: &WorkQueue<T>, task: T) -> Result<(), Full<T>> {
    push_slot::<T, G, T>(q, task, |task, s| {
        // SAFETY: the owner's push, at `top` (`s`).
        let m = unsafe { q.spares.take(s) };
        if m.is_null() {
            return reclaim::boxed(task); // a recycled box, or a new one
        }
        reclaim::note_reused();
        // SAFETY: a spare: a box of T's layout, empty, the owner's alone (`spare.rs`).
        unsafe { m.write(task) };
        m
    })
}

/// Whether a push at `s` has a free slot to spare, reckoned from the owner's last read of
/// `base` (at most `s - base_seen` tasks are in the array; `base` only grows).
#[inline(always)]
fn room_seen<T>(q: &WorkQueue<T>, s: i32, cap: usize) -> bool {
    let queued = s.wrapping_sub(q.base_seen.load(Ordering::Relaxed)); // Relaxed: the owner's own
    (0..cap as i32 - 1).contains(&queued)
}

// ANCHOR: pop
/// Owner: the LIFO pop of chapter 3 (`next_local_task(q, false)`), whose box waits as a spare
/// for the next push at the same index (`spare.rs`).
///
/// # Safety
/// Only the queue's owner calls this.
#[inline(always)]
pub unsafe fn pop<T>(q: &WorkQueue<T>) -> Option<T> {
    let p = crate::take::next_local_task(q, false);
    if p.is_null() {
        return None;
    }
    // SAFETY: its swap took p out of its slot: the task is ours.
    let task = unsafe { p.read() };
    let s = q.top.load(Ordering::Relaxed); // the index just popped: the owner's own field
    // SAFETY: the owner's LIFO pop took p out of the slot of index s; its task was moved out.
    unsafe { q.spares.put(s, p) };
    Some(task)
}
// ANCHOR_END: pop

/// [`push`], with the slot's pointer made from `item` and the index by `into_slot` once there
/// is room (a task box; the contention probe's floor stores bare ids).
#[inline(always)]
pub fn push_slot<T, G: GrowOps, U>(
    q: &WorkQueue<T>,
    item: U,
    into_slot: impl FnOnce(U, i32) -> *mut T,
) -> Result<(), Full<U>> {
    let s = q.top.load(Ordering::Relaxed); // only the owner writes top
    // Relaxed: only the owner writes `array`; this reads its own last store.
    // SAFETY: never null, never freed while the queue lives.
    let a = unsafe { &*q.array.load(Ordering::Relaxed) };
    let cap = a.capacity();
    // New in this chapter: the room is first reckoned from the owner's last read of `base`:
    // at most `queued` tasks are in the array. `base` (a line every steal writes) is read again
    // only when that leaves this push no free slot to spare. (Or shows a negative count: only
    // a test that sets `base` and `top` itself makes that.)
    let mut fills = false; // whether this push takes the last free slot
    if !room_seen(q, s, cap) {
        let b = q.base.load(Ordering::Relaxed); // as in chapter 2: stale means less room
        q.base_seen.store(b, Ordering::Relaxed); // Relaxed: the owner's own
        let room = (cap as i64 - 1) - i64::from(s.wrapping_sub(b)); // free slots after this push
        if room < 0 {
            return Err(Full { task: item, capacity: cap });
        }
        fills = room == 0;
    }
    // The box is made before `top` moves: from that store to the swap, a thief finds the
    // slot null inside base..top and stalls, and a box from the allocator, or from a batch
    // being recycled, would make it wait out that work.
    let p = into_slot(item, s);
    q.top.store(s.wrapping_add(1), Ordering::Relaxed); // as in chapter 2
    // SeqCst swap, as in chapter 2: Release publishes the task's contents.
    a.at(s).swap(p, Ordering::SeqCst);
    if fills && cap < q.max_capacity {
        G::grow(q, s); // the array is full now: double it before the next push
        q.grew.store(true, std::sync::atomic::Ordering::Relaxed); // Relaxed: the owner's own
    }
    Ok(())
}
// ANCHOR_END: push

#[cfg(all(test, not(loom)))]
mod tests {
    /// `grew` says yes once per growth, and only after the push that grew the array.
    #[test]
    fn grew_reports_each_growth_once() {
        let (owner, _stealer) = crate::new::<u64>(4);
        let q = owner.queue();
        for i in 0..3 {
            owner.push(i).unwrap();
            assert!(!q.grew(), "push {i} of 4: no growth yet");
        }
        owner.push(3).unwrap(); // takes the last free slot: the array doubles
        assert_eq!(q.array().capacity(), 8);
        assert!(q.grew(), "the filling push grew the array");
        assert!(!q.grew(), "a growth is reported once");
    }
}
