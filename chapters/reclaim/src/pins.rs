//! Pin counters: one per thread, odd while it is pinned, and the look a seal takes at them.
//! [`Registry`] and [`Participant`] are the protocol; this process's one registry and each
//! thread's handle (`enter`, `leave`, `registry`) wrap them. Public so that chapter 2's
//! loom model (`tests/loom.rs`) can drive the protocol with a registry of its own.

use std::cell::Cell;
use std::marker::PhantomData;

use crossbeam_utils::CachePadded;

use crate::sync::Ordering::{Acquire, Relaxed, Release, SeqCst};
use crate::sync::{Arc, AtomicU64, Mutex, MutexGuard};

/// One thread's pin counter: odd while the thread is pinned. Only that thread writes it;
/// each pin and each unpin adds one, so a value once seen odd never comes back.
type Counter = CachePadded<AtomicU64>;

/// The counters of the threads registered now. Locked once per seal and once per thread
/// start and exit.
pub struct Registry {
    threads: Mutex<Vec<Arc<Counter>>>,
}

/// One thread registered in a registry: its counter. (Not chapter 7's `Handle`, a task's
/// result: crossbeam-epoch calls this a `Local`.)
pub struct Participant {
    counter: Arc<Counter>,
    /// Not `Sync`: only its thread writes the counter.
    _one_thread: PhantomData<Cell<()>>,
}

impl Registry {
    /// An empty registry (`const` outside loom, for the process's one static).
    #[cfg(not(loom))]
    pub const fn new() -> Registry {
        Registry { threads: Mutex::new(Vec::new()) }
    }

    /// An empty registry, inside a loom model.
    #[cfg(loom)]
    pub fn new() -> Registry {
        Registry { threads: Mutex::new(Vec::new()) }
    }

    /// A handle for the calling thread, its counter registered (even: not pinned).
    pub fn register(&self) -> Participant {
        let counter = Arc::new(Counter::default());
        self.lock().push(counter.clone());
        Participant { counter, _one_thread: PhantomData }
    }

    /// Takes `me` out of the registry, unless it is pinned: then its counter stays odd and
    /// registered and holds the batches that noted it for good, the safe side.
    pub fn deregister(&self, me: &Participant) {
        if !me.is_pinned() {
            self.lock().retain(|c| !Arc::ptr_eq(c, &me.counter));
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Arc<Counter>>> {
        self.threads.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Default for Registry {
    fn default() -> Registry {
        Registry::new()
    }
}

// ANCHOR: enter
impl Participant {
    /// Pins this thread: marks the counter odd, unless it is odd already (a pin inside a pin,
    /// which changes nothing). Returns whether it marked: only that pin's [`leave`](Self::leave)
    /// unpins.
    #[inline] // on every steal
    pub fn enter(&self) -> bool {
        let c = self.counter.load(Relaxed); // Relaxed: only this thread writes it
        if c % 2 == 1 {
            return false; // pinned already: the outer pin unpins
        }
        mark_and_fence(&self.counter, c + 1);
        true
    }

    /// Unpins: marks the counter even. For the pin whose `enter` marked it. Panics when the
    /// thread is not pinned: an extra unpin would make the counter odd again.
    #[inline] // on every steal
    pub fn leave(&self) {
        assert!(self.is_pinned(), "an unpin without a pin");
        unmark(&self.counter);
    }

    /// Whether this thread is pinned now (its counter is odd).
    pub fn is_pinned(&self) -> bool {
        self.counter.load(Relaxed) % 2 == 1 // Relaxed: only this thread writes it
    }
}

/// Marks `counter`, odd, even again: the unpin. Only the pin that marked it calls this.
#[inline(always)] // on every steal
fn unmark(counter: &AtomicU64) {
    let c = counter.load(Relaxed); // Relaxed: only this thread writes it
    debug_assert!(c % 2 == 1, "an unpin without a pin");
    // Release: the pinned reads happen before a reuse that sees this store.
    counter.store(c + 1, Release);
}

/// Marks `counter` odd (`odd`), then fences: the slot reads that follow may not move above the
/// mark. A seal's fence and look pair with it (Dekker): either the seal sees the mark, or this
/// thread's reads see the slot already emptied by the take.
#[inline(always)] // on every steal
fn mark_and_fence(counter: &AtomicU64, odd: u64) {
    #[cfg(not(loom))]
    if crate::barrier::seals_fence_for_pins() {
        counter.store(odd, Relaxed); // Relaxed: the seal's `membarrier` fences for it
        // The compiler may not move the slot reads above the mark; the processor may, and
        // the seal's barrier covers that (`barrier.rs`).
        std::sync::atomic::compiler_fence(SeqCst);
        return;
    }
    #[cfg(all(target_arch = "x86_64", not(loom)))]
    {
        // SeqCst swap: on x86-64 a locked instruction is itself a full barrier, so the mark
        // and the fence are one instruction (crossbeam-epoch's pin uses a locked
        // compare-exchange so on x86). That is the processor's promise, not the memory
        // model's: loom checks the store and fence below.
        counter.swap(odd, SeqCst);
    }
    #[cfg(not(all(target_arch = "x86_64", not(loom))))]
    {
        counter.store(odd, Relaxed); // Relaxed: the fence orders it
        crate::sync::fence(SeqCst); // SeqCst fence: see above
    }
}
// ANCHOR_END: enter

/// What a batch waits for: the threads that were pinned when it was sealed, and the odd
/// value each counter had then.
pub struct Pinned(Vec<(Arc<Counter>, u64)>);

// ANCHOR: pinned
impl Registry {
    /// The threads pinned now, the caller included: a thread that seals while pinned (a
    /// thief's take under its pin) holds back its own batch until it unpins, like anyone's.
    pub fn pinned_now(&self) -> Pinned {
        // SeqCst fence: the takes before it (swaps and CASes that emptied the slots) may
        // not move below the look at the counters. Pairs with the pin's (`mark_and_fence`: a
        // fence, on x86-64 a swap, or this fence's `membarrier`: `barrier.rs`).
        #[cfg(not(loom))]
        crate::barrier::heavy_fence();
        #[cfg(loom)]
        crate::sync::fence(SeqCst);
        let threads = self.lock();
        let noted = threads.iter().filter_map(|c| {
            // Acquire: the fence orders the look after the takes; Acquire also orders
            // the reuse after the unpin of a thread seen already even.
            let v = c.load(Acquire);
            (v % 2 == 1).then(|| (c.clone(), v))
        });
        Pinned(noted.collect())
    }
}

impl Pinned {
    /// Whether every thread noted has unpinned since.
    pub fn passed(&self) -> bool {
        // Acquire: pairs with `leave`'s Release; the reuse comes after the unpin.
        self.0.iter().all(|(c, v)| c.load(Acquire) != *v)
    }
}
// ANCHOR_END: pinned

/// This process's registry and each thread's handle in it.
#[cfg(not(loom))]
mod process {
    use std::ptr::null;

    use super::{Participant, Registry};
    use crate::sync::AtomicU64;

    static THREADS: Registry = Registry::new();

    /// This thread's handle; it leaves the registry when the thread exits.
    struct Me(Participant);

    impl Drop for Me {
        fn drop(&mut self) {
            THREADS.deregister(&self.0);
        }
    }

    thread_local! {
        // The fence mode is chosen before this thread's first pin (`barrier.rs`).
        static ME: Me = Me({
            crate::barrier::decide();
            THREADS.register()
        });
    }

    /// Pins the calling thread; returns its counter, or null when it was pinned already (the
    /// outer pin unpins).
    #[inline]
    pub(crate) fn enter() -> *const AtomicU64 {
        ME.with(|me| if me.0.enter() { &**me.0.counter as *const AtomicU64 } else { null() })
    }

    /// Unpins the thread whose `enter` returned `counter`.
    ///
    /// # Safety
    /// `counter` came from [`enter`] on this thread, not null, and this is its one unpin.
    #[inline]
    pub(crate) unsafe fn leave(counter: *const AtomicU64) {
        // SAFETY: the counter lives in an `Arc` that this thread's `ME` holds until the thread
        // exits, and that the registry holds too: for good once `ME` has gone while the
        // counter was odd (`deregister`). So it outlives any pin, even one kept in another
        // thread-local that drops after `ME`. (The `Guard` is not `Send`: this thread's.)
        super::unmark(unsafe { &*counter });
    }

    /// The process's registry.
    pub(crate) fn registry() -> &'static Registry {
        &THREADS
    }
}
#[cfg(not(loom))]
pub(crate) use process::{enter, leave, registry};
