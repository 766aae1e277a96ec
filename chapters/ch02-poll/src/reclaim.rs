//! When a taken task's memory may be freed.
//!
//! A thief reads a task pointer `t` from a slot, rechecks `base`, and only then tries its CAS.
//! If it is descheduled in between, the task can be taken by someone else, run, and its `Box`
//! freed; the owner can push again until the ring wraps to the same slot, and the allocator
//! may hand the freed address to the new task. The thief's CAS then compares equal, it takes
//! the new task as if it were the old index's, and it moves `base` *backwards*. (Our
//! chapter 3 stress test hung exactly this way: `base` back on an emptied slot, owner and
//! thieves all waiting for it to move.) Java cannot fail like this: while the thief holds `t`,
//! the garbage collector will not reuse its memory.
//!
//! Rust needs the same promise explicitly. A thief holds a [`Pin`] from its first slot read
//! to its CAS, and every taker moves the task out at once but keeps its memory until every
//! thread pinned at the time has unpinned: no pointer a thief can still compare against is
//! ever reused. The owner takes with swaps, which compare nothing, so its own takes need no
//! pin ([`take_own`]); its garbage waits all the same, since a thief may hold the address.
//! Chapter 4 meets the same problem with whole arrays.
//!
//! This is epoch-based reclamation (Fraser's; crossbeam-epoch is the Rust library), cut down to
//! what a work-stealing queue needs:
//! - **Pins** (`pins`): each thread has a counter, odd while it is pinned; pinning is a store
//!   and a SeqCst fence, unpinning a store. No global epoch.
//! - **Limbo** (`limbo`): each thread keeps what it took (a thief hands a box back to the
//!   thread that pushed it instead, when it knows which: [`take_stolen`], `handback`), and
//!   every [`BATCH`] takes *seals* a
//!   batch: a fence, then a look at every thread's counter, noting those that are odd. The
//!   batch is past its pins once each noted counter has moved on. Then the thread *recycles*
//!   the boxes: [`boxed`], which every push calls, takes one of the right size before it asks
//!   the allocator, so a fork-join loop stops calling `malloc` and `free` once it runs warm.
//!
//! The pins, and the hand-back of a stolen box, have loom models of their own (`tests/loom.rs`,
//! with a [`pins::Registry`] and a [`handback::Inbox`] made in the model); under loom, [`pin`]
//! marks nothing and the queue's models free a taken box at once.
//!
//! Why not crossbeam-epoch itself, which this module used first: per box, its bags of garbage
//! went to a global queue and were freed by whichever thread collected them, across threads
//! (the contention lab's profile showed the allocator). Per batch, with its `defer` and `flush`,
//! the boxes came back, but only while threads had cores: a seal pins, `flush` allocates and
//! frees the epoch's bags while pinned, and with 16 workers on 2 cores some seals stayed pinned
//! for 40 ms, the whole run. One global epoch then stopped for everyone, and most pushes went
//! back to `malloc` (measured; the contention page tells the story). Here a seal pins nothing,
//! and a thread stopped inside its pin holds back only the batches sealed while it was pinned.

/// Boxes per batch: one fence, two locks (the thread registry, the inbox), a `try_lock` (the
/// orphans) and one look at every thread's pin counter per this many takes. (Batches of 256
/// timed the same on fib(30); larger ones keep more memory waiting.)
pub const BATCH: usize = 2048;

/// Held while a thread reads task pointers out of slots: its counter is odd meanwhile (nothing
/// under loom, whose models never wrap the ring while a thief holds a pointer). Pins nest.
pub struct Pin {
    /// Not `Send`: the counter marked is this thread's.
    _not_send: std::marker::PhantomData<*const ()>,
}

/// Pins the current thread for one poll (from its first slot read to its CAS).
pub fn pin() -> Pin {
    #[cfg(not(loom))]
    pins::enter();
    Pin { _not_send: std::marker::PhantomData }
}

impl Drop for Pin {
    fn drop(&mut self) {
        #[cfg(not(loom))]
        pins::leave();
    }
}

/// How many boxes [`boxed`] has handed out since the program started, recycled and from the
/// allocator. Each thread adds its counts every [`BATCH`] takes and when it exits, so the totals
/// are exact once the threads that pushed have exited (a pool after its shutdown), and lag
/// behind before. (Under loom, zeros: nothing is recycled there.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoxCounts {
    pub reused: u64,
    pub allocated: u64,
    /// Of the boxes taken, those a thief sent back to the thread that pushed them
    /// ([`take_stolen`]).
    pub sent_home: u64,
}

impl BoxCounts {
    /// The totals now.
    pub fn now() -> BoxCounts {
        #[cfg(not(loom))]
        let (reused, allocated, sent_home) = limbo::counts();
        #[cfg(loom)]
        let (reused, allocated, sent_home) = (0, 0, 0);
        BoxCounts { reused, allocated, sent_home }
    }

    /// The boxes handed out since `earlier`.
    pub fn since(self, earlier: BoxCounts) -> BoxCounts {
        BoxCounts {
            reused: self.reused - earlier.reused,
            allocated: self.allocated - earlier.allocated,
            sent_home: self.sent_home - earlier.sent_home,
        }
    }

    /// The share of boxes that were recycled, 0 to 1 (0 when none were handed out).
    pub fn reuse_ratio(self) -> f64 {
        let all = self.reused + self.allocated;
        if all == 0 { 0.0 } else { self.reused as f64 / all as f64 }
    }
}

/// Moves `task` into memory of its own, for a slot: a recycled box of its layout when this
/// thread has one whose pins have cleared, else a new one (same layout either way, so it may be
/// freed as a `Box<T>`, or handed to [`take_task`]/[`take_own`]).
///
/// Zero-sized tasks are refused at compile time: all their boxes share one dangling address, so
/// no pin could keep a thief's CAS from matching a later task's.
pub fn boxed<T>(task: T) -> *mut T {
    const { assert!(size_of::<T>() > 0, "a queue's task type must not be zero-sized") };
    #[cfg(not(loom))]
    if let Some(m) = limbo::reuse(std::alloc::Layout::new::<T>()) {
        let p = m.cast::<T>();
        // SAFETY: `m` is an allocation of `T`'s layout that no one else holds (its pins
        // passed) and that holds no value.
        unsafe { p.write(task) };
        return p;
    }
    Box::into_raw(Box::new(task))
}

/// A thief's take: moves the task out of `p`; its memory is reused or freed once no pinned
/// thread can still hold `p`. `pin` is the one the thief held since it read `p`.
///
/// # Safety
/// `p` is null, or a pointer that [`boxed`] made and that the caller took out of its slot (a
/// successful CAS to null) while holding `pin`, so that no one else can take it.
pub unsafe fn take_task<T>(p: *mut T, pin: &Pin) -> Option<T> {
    let _ = pin; // the pin mattered while `p` was compared; the garbage waits for all pins
    // SAFETY: the caller's contract is `take_own`'s, and more.
    unsafe { take_own(p) }
}

/// Where a thread's task boxes go back to when another thread takes them: the thread that
/// pushed them (see [`take_stolen`]).
pub struct Home {
    #[cfg(not(loom))]
    inbox: handback::Inbox<limbo::Garbage>,
}

/// This thread's [`Home`] (under loom, a home that keeps nothing: boxes are freed at once there).
pub fn home() -> std::sync::Arc<Home> {
    #[cfg(not(loom))]
    return limbo::home();
    #[cfg(loom)]
    std::sync::Arc::new(Home {})
}

// ANCHOR: take_stolen
/// A thief's take, after its pin has ended: moves the task out of `p`, and sends the memory
/// back to `home`, the thread that pushed it, where there is one (else keeps it, as
/// [`take_task`]). The thief's pin covers its reads of the slot up to its CAS; from the CAS on,
/// the task is the thief's alone, so the rest, which may wait for a lock, runs unpinned (a
/// thread descheduled while pinned holds back every batch sealed meanwhile).
///
/// Why send it home: recycled into the thief's own pushes, a stolen box would share its cache
/// line with the pusher's boxes, and the two threads' writes would fight over the line (false
/// sharing), on more lines with every steal. A long-lived pool slowed down run after run so.
///
/// `home` should belong to the thread that pushed the task (any thread's batches are safe for
/// the box; only the pusher's keep boxes apart from other threads').
///
/// # Safety
/// `p` is null, or a pointer that [`boxed`] made and that the caller took out of its slot with
/// a successful CAS to null while pinned.
pub unsafe fn take_stolen<T>(p: *mut T, home: Option<&Home>) -> Option<T> {
    match home {
        #[cfg(not(loom))]
        Some(home) if !p.is_null() => {
            // SAFETY: the caller took the task at p out of its slot.
            let task = unsafe { p.read() };
            limbo::send_home(p.cast(), std::alloc::Layout::new::<T>(), home);
            Some(task)
        }
        // No home (or under loom, where boxes are freed at once): kept here, as `take_task`.
        // SAFETY: the caller's contract is `take_own`'s, and more.
        _ => unsafe { take_own(p) },
    }
}
// ANCHOR_END: take_stolen

/// The owner's take (and a thief's, through `take_task`): moves the task out of `p`; its memory
/// is reused or freed once every thread pinned now has unpinned.
///
/// # Safety
/// `p` is null, or a pointer that [`boxed`] made and that the caller took out of its slot (swap
/// or successful CAS to null), so that no one else can take it.
pub unsafe fn take_own<T>(p: *mut T) -> Option<T> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller owns the task at p (its swap or CAS emptied the slot).
    let task = unsafe { p.read() };
    #[cfg(not(loom))]
    limbo::keep(p.cast(), std::alloc::Layout::new::<T>());
    #[cfg(loom)]
    // SAFETY: the memory came from Box::into_raw and the task was moved out above. An early
    // free is harmless here: loom's models never wrap the ring while a thief holds a pointer.
    drop(unsafe { Box::from_raw(p.cast::<std::mem::MaybeUninit<T>>()) });
    Some(task)
}

pub mod pins {
    //! Pin counters: one per thread, odd while it is pinned, and the look a seal takes at them.
    //! [`Registry`] and [`Handle`] are the protocol; this process's one registry and each
    //! thread's handle (`enter`, `leave`, `registry`) wrap them. Public so that chapter 2's
    //! loom model (`tests/loom.rs`) can drive the protocol with a registry of its own.

    use std::cell::Cell;

    use crossbeam_utils::CachePadded;

    use crate::sync::Ordering::{Acquire, Relaxed, Release, SeqCst};
    use crate::sync::{Arc, AtomicU64, Mutex, MutexGuard, fence};

    /// One thread's pin counter: odd while the thread is pinned. Only that thread writes it;
    /// each pin and each unpin adds one, so a value once seen odd never comes back.
    type Counter = CachePadded<AtomicU64>;

    /// The counters of the threads registered now. Locked once per seal and once per thread
    /// start and exit.
    pub struct Registry {
        threads: Mutex<Vec<Arc<Counter>>>,
    }

    /// One thread's place in a registry: its counter and how deep its pins are nested.
    pub struct Handle {
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
        pub fn register(&self) -> Handle {
            let counter = Arc::new(Counter::default());
            self.lock().push(counter.clone());
            Handle { counter, depth: Cell::new(0) }
        }

        /// Takes `me` out of the registry, unless it is pinned: then its counter stays odd and
        /// registered and holds the batches that noted it for good, the safe side.
        pub fn deregister(&self, me: &Handle) {
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
    impl Handle {
        /// Pins this thread (the outermost of nested pins marks the counter odd).
        pub fn enter(&self) {
            let depth = self.depth.get();
            if depth == 0 {
                let c = self.counter.load(Relaxed); // Relaxed: only this thread writes it
                self.counter.store(c + 1, Relaxed); // Relaxed: the fence below orders it
                // SeqCst fence: the slot reads that follow may not move above the mark. A
                // seal's fence and look pair with it (Dekker): either the seal sees the mark,
                // or this thread's reads see the slot already emptied by the take.
                fence(SeqCst);
            }
            self.depth.set(depth + 1);
        }

        /// Unpins (the outermost unpin marks the counter even). Panics without a matching
        /// `enter`: an extra unpin would mark the counter even while a pin is still held.
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
            // not move below the look at the counters. Pairs with the fence in `enter`.
            fence(SeqCst);
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
        use super::{Handle, Registry};

        static THREADS: Registry = Registry::new();

        /// This thread's handle; it leaves the registry when the thread exits.
        struct Me(Handle);

        impl Drop for Me {
            fn drop(&mut self) {
                THREADS.deregister(&self.0);
            }
        }

        thread_local! {
            static ME: Me = Me(THREADS.register());
        }

        /// Pins the calling thread.
        pub(crate) fn enter() {
            ME.with(|me| me.0.enter());
        }

        /// Unpins the calling thread.
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
}

pub mod handback {
    //! Boxes handed back to the thread that pushed them ([`super::take_stolen`]), and the order
    //! in which a seal takes them in. Public, and compiled under loom, for chapter 2's model.

    use crate::sync::Ordering::Relaxed;
    use crate::sync::{AtomicUsize, Mutex, MutexGuard};

    use super::pins::{Pinned, Registry};

    /// One thread's inbox: what other threads hand back, until the thread collects it; closed
    /// (`None`) once the thread has exited.
    pub struct Inbox<T> {
        items: Mutex<Option<Vec<T>>>,
        /// How many items wait, for the owner to read without the lock (a hint).
        waiting: AtomicUsize,
    }

    impl<T> Inbox<T> {
        /// An open inbox.
        pub fn new() -> Inbox<T> {
            Inbox { items: Mutex::new(Some(Vec::new())), waiting: AtomicUsize::new(0) }
        }

        /// A closed inbox: every `send` gets its item back.
        pub fn closed() -> Inbox<T> {
            Inbox { items: Mutex::new(None), waiting: AtomicUsize::new(0) }
        }

        /// Hands `item` back; returns it when the inbox is closed.
        pub fn send(&self, item: T) -> Result<(), T> {
            let mut items = self.lock();
            let Some(list) = items.as_mut() else { return Err(item) };
            list.push(item);
            self.waiting.store(list.len(), Relaxed); // Relaxed: a hint; the lock orders the items
            Ok(())
        }

        /// How many items wait (a hint: it may lag behind the lock's view).
        pub fn waiting(&self) -> usize {
            self.waiting.load(Relaxed) // Relaxed: a hint, see `send`
        }

        /// Moves what waits into `open` (nothing once closed).
        fn drain_into(&self, open: &mut Vec<T>) {
            if let Some(items) = self.lock().as_mut() {
                open.append(items);
                self.waiting.store(0, Relaxed); // Relaxed: a hint, see `send`
            }
        }

        /// Closes the inbox and returns what waited in it.
        fn close(&self) -> Vec<T> {
            let items = self.lock().take().unwrap_or_default();
            self.waiting.store(0, Relaxed); // Relaxed: a hint, see `send`
            items
        }

        fn lock(&self) -> MutexGuard<'_, Option<Vec<T>>> {
            self.items.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
        }
    }

    impl<T> Default for Inbox<T> {
        fn default() -> Inbox<T> {
            Inbox::new()
        }
    }

    // ANCHOR: seal_returned
    /// A seal's first two steps: moves what came back to `inbox` into the open batch `open`,
    /// then looks at the pins. In this order: the look must come after the take of every box
    /// it covers, and a box is handed back after its take (the lock orders the two).
    pub fn seal_returned<T>(inbox: &Inbox<T>, open: &mut Vec<T>, registry: &Registry) -> Pinned {
        inbox.drain_into(open);
        registry.pinned_now()
    }
    // ANCHOR_END: seal_returned

    /// `seal_returned` for a thread that exits: closes the inbox (a later `send` gets its item
    /// back) and moves what waited into `open`, then looks at the pins, in the same order.
    pub fn close_returned<T>(inbox: &Inbox<T>, open: &mut Vec<T>, registry: &Registry) -> Pinned {
        open.extend(inbox.close());
        registry.pinned_now()
    }
}

#[cfg(not(loom))]
mod limbo {
    use std::alloc::Layout;
    use std::cell::RefCell;
    use std::collections::VecDeque;
    use std::sync::atomic::AtomicU64;
    use std::sync::atomic::Ordering::Relaxed;
    use std::sync::{Arc, Mutex, PoisonError};

    use super::handback::{Inbox, close_returned, seal_returned};
    use super::pins::{Pinned, registry};
    use super::{BATCH, Home};

    /// Recycled boxes kept per layout (a few batches: what is in flight while pins clear);
    /// past this many, the allocator gets them back.
    const KEEP: usize = 8 * BATCH;

    /// Memory of a taken task (the task moved out): an address and its layout.
    pub(super) struct Garbage {
        /// From the global allocator (through `boxed`); holds no value.
        memory: *mut u8,
        /// Its task's layout: never zero-sized (`boxed` refuses those).
        layout: Layout,
    }

    // SAFETY: a `Garbage` is an address and a layout; the memory it names is owned by no one
    // else (its task was moved out), so it may move to another thread (a batch left by an
    // exited thread, a box sent home), which reuses or frees it once.
    unsafe impl Send for Garbage {}

    impl Garbage {
        /// # Safety
        /// The memory came from the global allocator with `layout`, holds no value, and no one
        /// else holds it.
        unsafe fn free(self) {
            // SAFETY: as above; the layout is not zero-sized, so this is a real allocation.
            unsafe { std::alloc::dealloc(self.memory, self.layout) }
        }
    }

    /// A sealed batch and the pins it waits for.
    struct Sealed {
        pinned: Pinned,
        boxes: Vec<Garbage>,
    }

    /// Batches left by threads that exited before their pins cleared; any later seal frees the
    /// ones that have.
    static ORPHANS: Mutex<Vec<Sealed>> = Mutex::new(Vec::new());

    /// One thread's taken boxes: waiting for their pins, then ready for reuse.
    struct Limbo {
        /// Taken since the last batch was sealed.
        open: Vec<Garbage>,
        /// Sealed batches, oldest first.
        sealed: VecDeque<Sealed>,
        /// Boxes whose pins have cleared, by layout (a thread sees one or two layouts).
        ready: Vec<(Layout, Vec<*mut u8>)>,
        /// Emptied batch vectors, reused (a fresh one per seal would be a large allocation).
        spare: Vec<Vec<Garbage>>,
        /// `boxed` calls served from `ready` and by the allocator, not yet added to the totals.
        reused: u64,
        allocated: u64,
        /// Boxes this thread took and sent home, not yet added to the totals.
        sent_home: u64,
        /// Where thieves hand this thread's boxes back.
        home: Arc<Home>,
    }

    impl Default for Limbo {
        fn default() -> Limbo {
            Limbo {
                open: Vec::new(),
                sealed: VecDeque::new(),
                ready: Vec::new(),
                spare: Vec::new(),
                reused: 0,
                allocated: 0,
                sent_home: 0,
                home: Arc::new(Home { inbox: Inbox::new() }),
            }
        }
    }

    /// This thread's home.
    pub(super) fn home() -> Arc<Home> {
        // A thread past its thread-locals gets a closed home: thieves keep its boxes.
        LIMBO
            .try_with(|l| l.borrow().home.clone())
            .unwrap_or_else(|_| Arc::new(Home { inbox: Inbox::closed() }))
    }

    /// Hands `memory` (of `layout`, just taken by this thread) back to `home`, or keeps it here
    /// when that thread has exited.
    pub(super) fn send_home(memory: *mut u8, layout: Layout, home: &Home) {
        match home.inbox.send(Garbage { memory, layout }) {
            Ok(()) => {
                let _ = LIMBO.try_with(|l| l.borrow_mut().sent_home += 1);
            }
            Err(g) => keep(g.memory, g.layout),
        }
    }

    /// What every thread has added to its totals so far (see `super::BoxCounts`).
    static REUSED: AtomicU64 = AtomicU64::new(0);
    static ALLOCATED: AtomicU64 = AtomicU64::new(0);
    static SENT_HOME: AtomicU64 = AtomicU64::new(0);

    /// The totals: (reused, allocated, sent home).
    pub(super) fn counts() -> (u64, u64, u64) {
        // Relaxed: statistics; the threads that added them were joined by the caller.
        (REUSED.load(Relaxed), ALLOCATED.load(Relaxed), SENT_HOME.load(Relaxed))
    }

    thread_local! {
        static LIMBO: RefCell<Limbo> = RefCell::default();
    }

    /// A box of `layout` whose pins have cleared, if this thread has one.
    pub(super) fn reuse(layout: Layout) -> Option<*mut u8> {
        // `try_with`: during thread exit the limbo may be gone; then the allocator serves.
        LIMBO
            .try_with(|l| {
                let mut l = l.borrow_mut();
                let mut m = l.pop_ready(layout);
                // A thread whose tasks are all stolen takes nothing and so never seals: seal
                // when a batch's worth of its boxes has come back. Relaxed: a hint.
                if m.is_none() && l.home.inbox.waiting() >= BATCH {
                    l.seal();
                    m = l.pop_ready(layout);
                }
                match m {
                    Some(_) => l.reused += 1,
                    None => l.allocated += 1, // `boxed` asks the allocator next
                }
                m
            })
            .ok()
            .flatten()
    }

    /// Keeps `memory` (of `layout`), just taken; every `BATCH` takes, seals a batch and moves
    /// the batches whose pins have cleared to `ready`.
    pub(super) fn keep(memory: *mut u8, layout: Layout) {
        let g = Garbage { memory, layout };
        // `try_with`: while the thread exits, its limbo may be gone; the box then leaks (the
        // safe side: no one can reuse an address too early).
        let _ = LIMBO.try_with(|l| {
            let mut l = l.borrow_mut();
            l.open.push(g);
            if l.open.len() >= BATCH {
                l.seal();
            }
        });
    }

    impl Limbo {
        /// Seals the open batch: a thief that may still hold one of its addresses has been
        /// pinned since before that task was taken, so it is pinned now, and `seal_returned`
        /// notes it. Then recycles every batch whose noted pins have cleared (each batch
        /// stands on its own: one held back by a long pin does not hold back the others).
        // ANCHOR: seal
        fn seal(&mut self) {
            let pinned = seal_returned(&self.home.inbox, &mut self.open, registry());
            let fresh = self.spare.pop().unwrap_or_else(|| Vec::with_capacity(BATCH));
            let boxes = std::mem::replace(&mut self.open, fresh);
            self.sealed.push_back(Sealed { pinned, boxes });
            let mut i = 0;
            while i < self.sealed.len() {
                if !self.sealed[i].pinned.passed() {
                    i += 1;
                    continue;
                }
                let Sealed { mut boxes, .. } = self.sealed.remove(i).expect("i < len");
                for g in boxes.drain(..) {
                    self.recycle(g);
                }
                self.spare.push(boxes);
            }
            free_orphans();
            self.add_counts();
        }
        // ANCHOR_END: seal

        /// A ready box of `layout`, if there is one.
        fn pop_ready(&mut self, layout: Layout) -> Option<*mut u8> {
            self.ready.iter_mut().find(|(k, _)| *k == layout).and_then(|(_, v)| v.pop())
        }

        /// Adds this thread's counts to the totals.
        fn add_counts(&mut self) {
            // Relaxed: statistics.
            REUSED.fetch_add(std::mem::take(&mut self.reused), Relaxed);
            ALLOCATED.fetch_add(std::mem::take(&mut self.allocated), Relaxed);
            SENT_HOME.fetch_add(std::mem::take(&mut self.sent_home), Relaxed);
        }

        /// `g`'s pins have cleared: keep it for `reuse`, or free it past `KEEP`.
        fn recycle(&mut self, g: Garbage) {
            let i = match self.ready.iter().position(|(k, _)| *k == g.layout) {
                Some(i) => i,
                None => {
                    self.ready.push((g.layout, Vec::new()));
                    self.ready.len() - 1
                }
            };
            let list = &mut self.ready[i].1;
            if list.len() < KEEP {
                list.push(g.memory);
            } else {
                // SAFETY: its pins have cleared: no thread holds the address, and it holds no
                // value (the taker moved the task out).
                unsafe { g.free() };
            }
        }
    }

    /// Frees the orphaned batches whose pins have cleared (skipped when another thread is
    /// at it: the next seal will look again).
    fn free_orphans() {
        let Ok(mut orphans) = ORPHANS.try_lock() else { return };
        orphans.retain_mut(|b| {
            if !b.pinned.passed() {
                return true;
            }
            for g in b.boxes.drain(..) {
                // SAFETY: its pins have cleared, it holds no value, and only this batch had it.
                unsafe { g.free() };
            }
            false
        });
    }

    impl Drop for Limbo {
        /// A thread that exits frees its ready boxes and leaves the waiting ones as orphans.
        fn drop(&mut self) {
            self.add_counts();
            for (layout, list) in self.ready.drain(..) {
                for memory in list {
                    // SAFETY: ready boxes are past their pins, empty, and held by no one.
                    unsafe { Garbage { memory, layout }.free() };
                }
            }
            // Close the inbox: thieves keep what they take from now on.
            let pinned = close_returned(&self.home.inbox, &mut self.open, registry());
            let open = std::mem::take(&mut self.open);
            let last = (!open.is_empty()).then_some(Sealed { pinned, boxes: open });
            let mut orphans = ORPHANS.lock().unwrap_or_else(PoisonError::into_inner);
            orphans.extend(self.sealed.drain(..).chain(last));
        }
    }
}
