//! Pin counters: one per thread, odd while it is pinned, and the look a seal takes at them.
//! [`Registry`] and [`Participant`] are the protocol; this process's one registry and each
//! thread's handle (`enter`, `leave`, `registry`) wrap them. Public so that chapter 2's
//! loom model (`tests/loom.rs`) can drive the protocol with a registry of its own.

use std::cell::Cell;

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

/// One thread registered in a registry: its counter and how deep its pins are nested. (Not
/// chapter 7's `Handle`, a task's result: crossbeam-epoch calls this a `Local`.)
pub struct Participant {
    counter: Arc<Counter>,
    depth: Cell<u32>,
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
        Participant { counter, depth: Cell::new(0) }
    }

    /// Takes `me` out of the registry, unless it is pinned: then its counter stays odd and
    /// registered and holds the batches that noted it for good, the safe side.
    pub fn deregister(&self, me: &Participant) {
        if me.depth.get() == 0 {
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
    /// Pins this thread (the outermost of nested pins marks the counter odd).
    #[inline] // on every steal
    pub fn enter(&self) {
        let depth = self.depth.get();
        if depth == 0 {
            let c = self.counter.load(Relaxed); // Relaxed: only this thread writes it
            mark_and_fence(&self.counter, c + 1);
        }
        self.depth.set(depth + 1);
    }

    /// Unpins (the outermost unpin marks the counter even). Panics without a matching
    /// `enter`: an extra unpin would mark the counter even while a pin is still held.
    #[inline] // on every steal
    pub fn leave(&self) {
        let depth = self.depth.get().checked_sub(1).expect("leave without a matching enter");
        self.depth.set(depth);
        if depth == 0 {
            let c = self.counter.load(Relaxed); // Relaxed: only this thread writes it
            // Release: the pinned reads happen before a reuse that sees this store.
            self.counter.store(c + 1, Release);
        }
    }
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
    use super::{Participant, Registry};

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

    /// Pins the calling thread.
    #[inline]
    pub(crate) fn enter() {
        ME.with(|me| me.0.enter());
    }

    /// Unpins the calling thread.
    #[inline]
    pub(crate) fn leave() {
        // `try_with`: a pin dropped while the thread exits finds `ME` gone; nothing to mark.
        let _ = ME.try_with(|me| me.0.leave());
    }

    /// The process's registry.
    pub(crate) fn registry() -> &'static Registry {
        &THREADS
    }
}
#[cfg(not(loom))]
pub(crate) use process::{enter, leave, registry};
