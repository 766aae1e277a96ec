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
//! Rust needs the same promise explicitly. A thief holds a [`Pin`] (an epoch of
//! crossbeam-epoch) from its first slot read to its CAS, and every taker moves the task out at
//! once but *defers* freeing its memory until every thread pinned at the time has unpinned: no
//! pointer a thief can still compare against is ever reused. The owner takes with swaps, which
//! compare nothing, so its own takes need no pin ([`take_own`]); its garbage waits all the same,
//! since a thief may hold the address. Chapter 4 meets the same problem with whole arrays.
//!
//! Deferring each box on its own through crossbeam-epoch costs more than the take: the epoch's
//! bags fill, go to a global queue, and are freed later by whichever thread collects them, so
//! most frees cross threads and contend on the allocator (the contention lab's profile showed
//! it). So each thread keeps its garbage in a thread-local limbo and defers one small closure
//! per batch of [`BATCH`] boxes: the closure only raises the batch's flag. Once the flag is up,
//! the thread *recycles* the boxes: [`boxed`], which every push calls, takes one of the right
//! size before it asks the allocator. The promise is the same (an address comes back only after
//! every thread pinned when its batch was sealed has unpinned, and a thief holding a pointer has
//! been pinned since before its task was taken), and a fork-join loop stops calling `malloc`
//! and `free` once it runs warm.

/// Boxes per deferred batch: one crossbeam `defer`, flag and flush per this many takes. Large,
/// because sealing pins: with more workers than cores, a worker preempted inside a seal holds
/// the epoch back for its whole time slice, and with batches of 512 the boxes then waited for
/// hundreds of batches (measured at 4 workers on 2 cores) while pushes went back to `malloc`.
pub const BATCH: usize = 2048;

/// Held while a thread reads task pointers out of slots (a crossbeam-epoch guard; nothing
/// under loom, whose models never wrap the ring while a thief holds a pointer).
pub struct Pin {
    #[cfg(not(loom))]
    _guard: crossbeam_epoch::Guard,
}

/// Pins the current thread for one poll (from its first slot read to its CAS).
pub fn pin() -> Pin {
    Pin {
        #[cfg(not(loom))]
        _guard: crossbeam_epoch::pin(),
    }
}

/// Moves `task` into memory of its own, for a slot: a recycled box of its layout when this
/// thread has one whose epoch has passed, else a new one (same layout either way, so it may be
/// freed as a `Box<T>`, or handed to [`take_task`]/[`take_own`]).
///
/// Zero-sized tasks are refused at compile time: all their boxes share one dangling address, so
/// no epoch could keep a thief's CAS from matching a later task's.
pub fn boxed<T>(task: T) -> *mut T {
    const { assert!(size_of::<T>() > 0, "a queue's task type must not be zero-sized") };
    #[cfg(not(loom))]
    if let Some(m) = limbo::reuse(std::alloc::Layout::new::<T>()) {
        let p = m.cast::<T>();
        // SAFETY: `m` is an allocation of `T`'s layout that no one else holds (its epoch
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

#[cfg(not(loom))]
mod limbo {
    use std::alloc::Layout;
    use std::cell::RefCell;
    use std::collections::VecDeque;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    use std::sync::atomic::Ordering::{Acquire, Release};

    use super::BATCH;

    /// Recycled boxes kept per layout (a few batches: what is in flight while an epoch passes);
    /// past this many, the allocator gets them back.
    const KEEP: usize = 8 * BATCH;

    /// Memory of a taken task (the task moved out): an address and its layout.
    struct Garbage {
        /// From the global allocator (through `boxed`); holds no value.
        memory: *mut u8,
        /// Its task's layout: never zero-sized (`boxed` refuses those).
        layout: Layout,
    }

    impl Garbage {
        /// # Safety
        /// The memory came from the global allocator with `layout`, holds no value, and no one
        /// else holds it.
        unsafe fn free(self) {
            // SAFETY: as above; the layout is not zero-sized, so this is a real allocation.
            unsafe { std::alloc::dealloc(self.memory, self.layout) }
        }
    }

    /// One thread's taken boxes: waiting for their epoch, then ready for reuse.
    #[derive(Default)]
    struct Limbo {
        /// Taken since the last batch was sealed.
        open: Vec<Garbage>,
        /// Sealed batches, oldest first, each with the flag its deferred closure raises once
        /// every thread pinned at the seal has unpinned.
        sealed: VecDeque<(Arc<AtomicBool>, Vec<Garbage>)>,
        /// Boxes whose epoch has passed, by layout (a thread sees one or two layouts).
        ready: Vec<(Layout, Vec<*mut u8>)>,
        /// Emptied batch vectors, reused (a fresh one per seal would be a large allocation).
        spare: Vec<Vec<Garbage>>,
    }

    thread_local! {
        static LIMBO: RefCell<Limbo> = RefCell::default();
    }

    /// A box of `layout` whose epoch has passed, if this thread has one.
    pub(super) fn reuse(layout: Layout) -> Option<*mut u8> {
        // `try_with`: during thread exit the limbo may be gone; then the allocator serves.
        LIMBO
            .try_with(|l| {
                let mut l = l.borrow_mut();
                l.ready.iter_mut().find(|(k, _)| *k == layout).and_then(|(_, v)| v.pop())
            })
            .ok()
            .flatten()
    }

    /// Keeps `memory` (of `layout`), just taken; every `BATCH` takes, seals a batch and moves
    /// the batches whose epoch has passed to `ready`.
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
        /// Defers the open batch: a thief that may still hold one of its addresses has been
        /// pinned since before that task was taken, so it is pinned now, and the closure runs
        /// only after it unpins. The pin here is only what `defer` needs.
        fn seal(&mut self) {
            let guard = crossbeam_epoch::pin();
            let flag = Arc::new(AtomicBool::new(false));
            let raise = flag.clone();
            // Release: pairs with the Acquire below: the reuse comes after every unpin the
            // epoch waited for.
            guard.defer(move || raise.store(true, Release));
            // Hand the closure to the epoch now and let it advance: left alone, crossbeam
            // collects only every 128 pins, and with owners that take without pinning that
            // can be tens of thousands of takes, while the boxes wait in the limbo.
            guard.flush();
            let fresh = self.spare.pop().unwrap_or_else(|| Vec::with_capacity(BATCH));
            let batch = std::mem::replace(&mut self.open, fresh);
            self.sealed.push_back((flag, batch));
            while self.sealed.front().is_some_and(|(f, _)| f.load(Acquire)) {
                let (_, mut batch) = self.sealed.pop_front().expect("checked above");
                for g in batch.drain(..) {
                    self.recycle(g);
                }
                self.spare.push(batch);
            }
        }

        /// `g`'s epoch has passed: keep it for `reuse`, or free it past `KEEP`.
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
                // SAFETY: the epoch has passed: no thread holds the address, and it holds no
                // value (the taker moved the task out).
                unsafe { g.free() };
            }
        }
    }

    impl Drop for Limbo {
        /// A thread that exits frees its ready boxes and hands the waiting ones to the epoch.
        fn drop(&mut self) {
            for (layout, list) in self.ready.drain(..) {
                for memory in list {
                    // SAFETY: ready boxes are past their epoch, empty, and held by no one.
                    unsafe { Garbage { memory, layout }.free() };
                }
            }
            let guard = crossbeam_epoch::pin();
            let waiting = std::mem::take(&mut self.sealed).into_iter().map(|(_, b)| b);
            for batch in waiting.chain([std::mem::take(&mut self.open)]) {
                let batch = Batch(batch);
                // SAFETY: the boxes were taken before this pin; the closure frees them after
                // every thread pinned now has unpinned, which covers every thread that could
                // still hold one of their addresses.
                unsafe { guard.defer_unchecked(move || batch.free()) };
            }
        }
    }

    /// A batch moved into a deferred closure (which may run on another thread).
    struct Batch(Vec<Garbage>);

    // SAFETY: a `Garbage` is an address and a layout; the memory it names is owned by no one
    // else (its task was moved out) and is freed once, wherever the closure runs.
    unsafe impl Send for Batch {}

    impl Batch {
        fn free(self) {
            for g in self.0 {
                // SAFETY: called from a closure deferred after every pin that could hold it.
                unsafe { g.free() };
            }
        }
    }
}
