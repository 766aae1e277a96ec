//! When a taken task's memory may be freed: chapter 2's reclamation, a crate of its own because
//! chapters 2 to 7 all push and take through it. Chapter 2's page tells its story and includes
//! its code.
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
//! Rust needs the same promise explicitly. A thief holds a [`Guard`] from its first slot read
//! to its CAS, and every taker moves the task out at once but keeps its memory until every
//! thread pinned at the time has unpinned: no pointer a thief can still compare against is
//! ever reused. The owner takes with swaps, which compare nothing, so its own takes need no
//! pin ([`take_own`]); its garbage waits all the same, since a thief may hold the address.
//! (Chapter 4's owner makes one exception: the box of its LIFO pop, reused by its next push at
//! the same index, where a paused thief's CAS can only take the task of its own index:
//! `ch04-grow/src/spare.rs`.)
//! Chapter 4 meets the same problem with whole arrays.
//!
//! This is epoch-based reclamation (Fraser's; crossbeam-epoch is the Rust library), cut down to
//! what a work-stealing queue needs:
//! - **Pins** (`pins.rs`): each thread has a counter, odd while it is pinned; pinning is a
//!   store and a SeqCst fence (one locked swap on x86-64; on Linux, a store whose fence the
//!   seals pay with `membarrier`: `barrier.rs`), unpinning a store. No global epoch.
//! - **Limbo** (`limbo/`): each thread keeps what it took (a thief hands a box back to the
//!   thread that pushed it instead, when it knows which: [`take_sending_box_home`],
//!   `handback.rs`, a few at a time through the thief's `outbox.rs`), and every [`BATCH`] takes
//!   *seals* a batch: a fence, then a look at every thread's counter, noting those that are odd.
//!   The batch is past its pins once each noted counter has moved on. Then the thread *recycles*
//!   the boxes: [`boxed`], which every push calls, takes one of the right size before it asks
//!   the allocator, so a fork-join loop stops calling `malloc` and `free` once it runs warm.
//! - **Chains** (`chain.rs`, `fast.rs`): the fast path of both. A thread's boxes of its main
//!   layout wait and come back in lists threaded through the boxes themselves, kept in plain
//!   thread-local cells: a push and a take each move a pointer or two, and the limbo proper is
//!   reached once per batch.
//!
//! One file per concept: `pins.rs`, `take.rs` (a task out of its box, and the box to its limbo),
//! `handback.rs`, `outbox.rs`, `bound.rs` (a queue's home, as thieves read it), `limbo/` (the
//! thread's entry points in `mod.rs`, sealing and recycling in `seal.rs`), `chain.rs`, `fast.rs`
//! (the thread's two chains), `counts.rs`, `batch.rs`, `state.rs` (a pool task's state, which no
//! slot holds: reused with no pins), and `sync.rs` (std's atomics, or loom's: the chapters use
//! it too; under loom they write down every access, `timeline/`, for a failing model to print).
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

/// Boxes that must have come home before a thread with no box to reuse seals for them (one whose
/// tasks are all stolen takes nothing, so never seals every [`BATCH`] takes). Each seal pays the
/// heavy fence (`barrier.rs`): where that is `membarrier`, it interrupts the core of every
/// thread of the process running at the time, and it took 8.7 to 11.3 µs with one thread
/// spinning beside it (medians of `atomic-costs`' `seal fence` row in the contention lab's five
/// runs of 17:07 to 17:13 UTC; AMD EPYC of family 25, a 2-core KVM guest, 2026-12-06). At one
/// seal per 2,048 boxes, that was 4 to 5.5 ns a box on the owner's side of a race where it
/// pushed every 8 to 20 ns there: at 16 batches, a third of a nanosecond, for 32,768 boxes in
/// flight (1 MiB of 32-byte boxes) where 2,048 were.
pub const HOME_SEAL: usize = 16 * BATCH;

/// A pin, held while a thread reads task pointers out of slots: its counter is odd meanwhile
/// (nothing under loom, whose models never wrap the ring while a thief holds a pointer). Pins
/// nest: a pin inside a pin changes nothing. (crossbeam-epoch calls the same thing a `Guard`;
/// `std::pin::Pin` is unrelated.)
pub struct Guard {
    /// The counter this pin marked, to unmark when it drops; null for a pin inside a pin (and
    /// under loom). A raw pointer, so the guard is not `Send`: the counter is this thread's.
    #[cfg_attr(loom, allow(dead_code))] // under loom, always null and never read
    counter: *const sync::AtomicU64,
}

/// Pins the current thread for one poll (from its first slot read to its CAS).
#[inline] // on every steal
pub fn pin() -> Guard {
    #[cfg(not(loom))]
    return Guard { counter: pins::enter() };
    #[cfg(loom)]
    Guard { counter: std::ptr::null() }
}

impl Drop for Guard {
    #[inline]
    fn drop(&mut self) {
        #[cfg(not(loom))]
        if !self.counter.is_null() {
            // SAFETY: `pins::enter` returned it on this thread (`Guard` is not `Send`), and
            // only this drop unpins it.
            unsafe { pins::leave(self.counter) };
        }
    }
}

/// Moves `task` into memory of its own, for a slot: a recycled box of its layout when this
/// thread has one whose pins have cleared, else a new one (same layout either way, so it may be
/// freed as a `Box<T>`, or handed to [`take_keeping_box`]/[`take_own`]).
///
/// Zero-sized tasks are refused at compile time: all their boxes share one dangling address, so
/// no pin could keep a thief's CAS from matching a later task's.
#[inline(always)] // on every push and take: see `fast.rs`
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

/// [`boxed`]'s fast path alone, for a push that calls nothing on its common path (chapter 4):
/// a box of `T`'s layout from this thread's ready chain (its pins have cleared; it holds no
/// value), or null when none is there (then [`boxed`] looks further, or allocates).
#[inline(always)]
pub fn recycled<T>() -> *mut T {
    #[cfg(not(loom))]
    if let Some(m) = fast::FAST.with(|f| f.pop_ready(std::alloc::Layout::new::<T>())) {
        return m.cast();
    }
    std::ptr::null_mut()
}

/// Where a thread's task boxes go back to when another thread takes them: the thread that
/// pushed them (see [`take_sending_box_home`]).
pub struct Home {
    #[cfg(not(loom))]
    inbox: handback::Inbox<batch::Block>,
    /// The vectors of blocks this home has emptied, for thieves to send the next ones in.
    #[cfg(not(loom))]
    empties: outbox::Empties,
}

/// This thread's [`Home`] (under loom, a home that keeps nothing: boxes are freed at once there).
pub fn home() -> std::sync::Arc<Home> {
    #[cfg(not(loom))]
    return limbo::home();
    #[cfg(loom)]
    std::sync::Arc::new(Home {})
}

/// Counts one box reused outside [`boxed`]: an owner's spare (chapter 4's `Spares`), in
/// [`BoxCounts::reused`] with the rest. (Nothing under loom.)
#[inline(always)]
pub fn note_reused() {
    #[cfg(not(loom))]
    fast::FAST.with(|f| f.noted.set(f.noted.get() + 1));
}

/// The fence a seal pays (`barrier.rs`): a SeqCst fence, and `membarrier` as well where pins
/// leave their fence to the seals. Public for `atomic-costs` to time; a seal is the only caller
/// that needs it.
#[cfg(not(loom))]
pub fn seal_fence() {
    barrier::heavy_fence();
}

/// Who pays for a pin's fence in this process (`barrier.rs`): `membarrier` (each seal, on every
/// running thread) or `fence` (each pin; `RECLAIM_FENCE=symmetric`, or no `membarrier` here).
/// Loom's models check the symmetric pair: `loom`.
pub fn pin_fence() -> &'static str {
    #[cfg(not(loom))]
    return barrier::label();
    #[cfg(loom)]
    "loom"
}

pub mod sync;
#[cfg(loom)]
mod timeline;

mod counts;
pub use counts::BoxCounts;

#[cfg(not(loom))]
mod barrier;
#[cfg(not(loom))]
mod batch;
mod bound;
#[cfg(not(loom))]
mod chain;
#[cfg(not(loom))]
mod fast;
pub use bound::BoundHome;
pub mod handback;
#[cfg(not(loom))]
mod limbo;
#[cfg(not(loom))]
mod outbox;
#[cfg(not(loom))]
pub use outbox::SEND_EVERY;
pub mod pins;
mod state;
pub use state::{boxed_state, free_state};
mod take;
pub use take::{release_empty, send_pending, take_keeping_box, take_own, take_sending_box_home};
