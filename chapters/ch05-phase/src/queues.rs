use std::marker::PhantomData;
use std::ptr::null_mut;

use crossbeam_utils::CachePadded;

use crate::sync::Ordering::{Acquire, Relaxed, SeqCst};
use crate::sync::{AtomicI32, AtomicPtr, spin};
use crate::{EXTERNAL_ID_MASK, Full, IDLE, PhaseOps, Reference, Stealer, WorkQueue};

/// The JDK's first array length for a submission queue (`INITIAL_EXTERNAL_QUEUE_CAPACITY`).
pub const INITIAL_EXTERNAL_QUEUE_CAPACITY: usize = 1 << 9;

/// The JDK's least length of a pool's `queues` array (`MIN_QUEUES_SIZE`): room for eight
/// submission queues however few workers the pool has.
pub const MIN_QUEUES_SIZE: usize = 1 << 4;

/// The length of the `queues` array of a pool of `parallelism` workers: twice the next power of
/// two, so that every worker has an odd slot and as many even slots are left for submission
/// queues, and at least [`MIN_QUEUES_SIZE`]. (JDK: the `ForkJoinPool` constructor's
/// `max(MIN_QUEUES_SIZE, 1 << (33 - Integer.numberOfLeadingZeros(p - 1)))`)
pub fn queues_len(parallelism: usize) -> usize {
    (2 * parallelism.next_power_of_two()).max(MIN_QUEUES_SIZE)
}

// ANCHOR: queue
/// A work queue with its phase word: chapter 4's queue, plus the lock that lets any thread
/// act as its owner for one push.
pub struct Queue<T> {
    /// Queue id, IDLE bit and version (see [`crate::phase`]). Padded: submitters hammer it.
    pub phase: CachePadded<AtomicI32>,
    /// A handle on the shared queue. Pushing through it needs owner rights, which the
    /// worker has for its own queue and a submitter gets by locking the phase.
    work: Stealer<T>,
}
// ANCHOR_END: queue

impl<T> Queue<T> {
    fn new(phase: i32, (capacity, max_capacity): (usize, usize)) -> Self {
        // The owner's handle is not kept: its rights go with the phase lock (or the worker).
        let (_owner, work) = ch04_grow::new_with::<T, ch04_grow::Reference>(capacity, max_capacity);
        Queue { phase: CachePadded::new(AtomicI32::new(phase)), work }
    }

    /// The queue (for thieves and tables).
    pub fn work(&self) -> &WorkQueue<T> {
        self.work.queue()
    }

    /// A thief's handle on it.
    pub fn stealer(&self) -> Stealer<T> {
        self.work.clone()
    }

    /// Takes the lock with `P`, if it is free.
    pub fn try_lock<P: PhaseOps>(&self) -> Option<PhaseGuard<'_, T, P>> {
        // `then`, not `then_some`: a guard built eagerly and dropped would unlock a lock we never took.
        P::try_lock_phase(&self.phase).then(|| PhaseGuard { queue: self, ops: PhantomData })
    }
}

// ANCHOR: guard
/// Proof of holding a submission queue's phase lock: the one value through which a thread
/// that does not own the queue may push into it. Unlocks when dropped; [`push`] unlocks
/// after its write.
///
/// [`push`]: PhaseGuard::push
pub struct PhaseGuard<'a, T, P: PhaseOps = Reference> {
    queue: &'a Queue<T>,
    ops: PhantomData<fn() -> P>,
}

impl<'a, T, P: PhaseOps> PhaseGuard<'a, T, P> {
    /// Pushes inside the lock, then unlocks. A full queue hands the task back.
    pub fn push(self, task: T) -> Result<(), Full<T>> {
        let q = self.queue;
        std::mem::forget(self); // the push below unlocks; the guard must not do it again
        P::push(q.work(), &q.phase, task, false)
    }

    /// The locked queue.
    pub fn queue(&self) -> &'a Queue<T> {
        self.queue
    }
}

impl<T, P: PhaseOps> Drop for PhaseGuard<'_, T, P> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // Unwinding past a held lock: unlock with the plain add, not with `P`, whose code
            // (an unfinished exercise, say) could panic again here and abort the process.
            // SeqCst: as in `lock::unlock_phase`.
            self.queue.phase.fetch_add(IDLE, SeqCst);
        } else {
            P::unlock_phase(&self.queue.phase);
        }
    }
}
// ANCHOR_END: guard

/// The pool's `queues` array: submission queues at even indices, created on first use by
/// whoever submits there; worker queues at odd indices. [JDK: `ForkJoinPool.queues`]
pub struct Queues<T, P: PhaseOps = Reference> {
    slots: Box<[AtomicPtr<Queue<T>>]>,
    /// Initial and maximum capacity of the submission queues created later.
    capacities: (usize, usize),
    ops: PhantomData<fn() -> P>,
}

// SAFETY: the slots hold `Box<Queue<T>>`s that are only read through `&` (all their state is
// atomic) and freed when `Queues` drops; tasks of type T move between threads: T: Send.
unsafe impl<T: Send, P: PhaseOps> Send for Queues<T, P> {}
// SAFETY: as above; installing a queue is a CAS on its slot.
unsafe impl<T: Send, P: PhaseOps> Sync for Queues<T, P> {}

impl<T, P: PhaseOps> Queues<T, P> {
    /// A `len`-slot array (a power of two >= 2) with `workers` worker queues at the odd
    /// indices 1, 3, ..., each with phase `index | tag` (the JDK's tag is the worker's probe
    /// with its low 17 bits cleared; here too the low 17 bits of `tag` are ignored). Submission
    /// queues start at the JDK's 512 slots and grow as chapter 4's do.
    pub fn new(len: usize, workers: usize, tag: i32) -> Self {
        Self::with_capacities(
            len,
            workers,
            tag,
            INITIAL_EXTERNAL_QUEUE_CAPACITY,
            ch04_grow::MAX_CAPACITY,
        )
    }

    /// Like [`new`](Self::new), with submission queues of `initial` slots growing to `max`
    /// (small ones for loom models, and to show a full queue).
    pub fn with_capacities(
        len: usize,
        workers: usize,
        tag: i32,
        initial: usize,
        max: usize,
    ) -> Self {
        assert!(len >= 2 && len.is_power_of_two(), "len must be a power of two >= 2");
        assert!(workers <= len / 2, "{workers} workers do not fit in {} odd slots", len / 2);
        let slots: Box<[AtomicPtr<Queue<T>>]> =
            (0..len).map(|_| AtomicPtr::new(null_mut())).collect();
        for w in 0..workers {
            let id = 2 * w + 1;
            let phase = id as i32 | (tag & !((IDLE << 1) - 1));
            let q = Box::new(Queue::new(
                phase,
                (ch04_grow::INITIAL_QUEUE_CAPACITY, ch04_grow::MAX_CAPACITY),
            ));
            slots[id].store(Box::into_raw(q), Relaxed); // Relaxed: not shared yet
        }
        Queues { slots, capacities: (initial, max), ops: PhantomData }
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Always false: the array has at least two slots.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The queue at `index`, if one is installed.
    pub fn get(&self, index: usize) -> Option<&Queue<T>> {
        // Acquire: pairs with the installing CAS, so the queue is seen initialized.
        let p = self.slots.get(index)?.load(Acquire);
        // SAFETY: installed queues are freed only when `self` drops.
        (!p.is_null()).then(|| unsafe { &*p })
    }

    // ANCHOR: submission_queue
    /// Finds and locks a submission queue for a thread whose probe is `*probe` (non-zero):
    /// the slot `probe & EXTERNAL_ID_MASK & (len - 1)`. An empty slot gets a new queue, born
    /// locked (its phase is just its id, IDLE clear). A queue that is locked by someone else
    /// sends the thread elsewhere: its probe moves on (xorshift) and it tries again, so
    /// that submitters that collide once spread out for good. [JDK: `submissionQueue`, which
    /// prefers an empty slot (a new queue) while its `reuse` flag is 0 (a first submission, a
    /// failed lock, a lost install), until the call has made `len / 2` probes; the page has
    /// the whole rule]
    pub fn submission_queue(&self, probe: &mut u32) -> PhaseGuard<'_, T, P> {
        assert!(*probe != 0, "a probe of 0 is the JDK's 'not initialized'");
        let mask = self.slots.len() - 1;
        loop {
            let id = (*probe as i32) & EXTERNAL_ID_MASK;
            let i = id as usize & mask;
            if self.get(i).is_none() {
                let fresh = Box::new(Queue::new(id, self.capacities));
                // Many threads push here: thieves keep the boxes they take (chapter 4's `home`).
                fresh.work().bind_home(None);
                let fresh = Box::into_raw(fresh);
                // SeqCst CAS: installs the queue, publishing it (Release) to readers of the slot.
                match self.slots[i].compare_exchange(null_mut(), fresh, SeqCst, Acquire) {
                    // SAFETY: just installed; lives until `self` drops. Born locked: ours.
                    Ok(_) => return PhaseGuard { queue: unsafe { &*fresh }, ops: PhantomData },
                    // SAFETY: never shared; lost the race to another submitter.
                    Err(_) => drop(unsafe { Box::from_raw(fresh) }),
                }
            } else if let Some(guard) = self.get(i).and_then(|q| q.try_lock::<P>()) {
                return guard;
            } else {
                spin(); // someone holds it; under loom, let them run
            }
            *probe = advance_probe(*probe);
        }
    }
    // ANCHOR_END: submission_queue

    /// Every installed queue with its index, in index order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &Queue<T>)> {
        (0..self.slots.len()).filter_map(|i| self.get(i).map(|q| (i, q)))
    }
}

impl<T, P: PhaseOps> Drop for Queues<T, P> {
    fn drop(&mut self) {
        for slot in self.slots.iter() {
            let p = slot.load(Relaxed); // Relaxed: `&mut self`, no one else
            if !p.is_null() {
                // SAFETY: from Box::into_raw at install; freed once, here.
                drop(unsafe { Box::from_raw(p) });
            }
        }
    }
}

/// The next probe of a thread that collided (Marsaglia's xorshift, as the JDK's
/// `ThreadLocalRandom.advanceProbe`). Never returns 0 for a non-zero probe.
pub fn advance_probe(mut r: u32) -> u32 {
    r ^= r << 13;
    r ^= r >> 17;
    r ^= r << 5;
    r
}

/// A fresh, random, non-zero probe. A submitting thread keeps one and passes it to
/// [`Queues::submission_queue`] (the JDK keeps one per thread, in `Thread`'s
/// `threadLocalRandomProbe`, through `ThreadLocalRandom`).
pub fn new_probe() -> u32 {
    use std::hash::{BuildHasher, RandomState};
    (RandomState::new().hash_one(std::thread::current().id()) as u32) | 1
}
