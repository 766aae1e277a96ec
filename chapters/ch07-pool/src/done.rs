//! How a thread that cannot help waits for a task: it parks, and the task that finishes wakes
//! it. A worker never parks here: it helps (`wait::help_until`). This is for `main` joining a
//! submitted task's handle, or calling `ThreadPool::join` from outside the pool.
//!
//! The same word says who frees a submitted or forked task, which the queued task and its
//! handle share: the task, when the handle let go before it finished
//! ([`Done::let_go`](crate::done::Done::let_go)); the handle, when it finished first. So a
//! task that finishes costs one CAS, and a handle none: no reference count.
//!
//! [JDK 25: `ForkJoinTask.awaitDone` pushes an `Aux` node holding the waiting thread onto the
//! task's `aux` list with a CAS, then parks until `status` says done; `setDone` sets the DONE
//! bit, then `signalWaiters` detaches the list and unparks each thread on it.] One handle
//! waits for each task here, so one thread, not a list, and one word for both facts.
//!
//! Before this, an outside waiter polled: it yielded, then slept 50 µs at a time until the
//! task was done, and on a machine whose cores all run workers each of its wake-ups took a core
//! from one of them (the chapter's page, "Waiting from outside the pool", has the measurement).

use std::mem::ManuallyDrop;
use std::time::Duration;

use crate::sync::AtomicUsize;
use crate::sync::Ordering::{AcqRel, Acquire, Release};
use crate::sync::thread::{self, Thread};

/// No one has finished the task, and no one is parked on it.
const PENDING: usize = 0;
/// A waiter has put its thread in `waiter` and parks (or is about to).
const PARKED: usize = 1;
/// The task has finished: its result may be read, and the `Done` freed.
const DONE: usize = 2;
/// The one waiter let go without the result (a handle dropped unjoined): whichever of the
/// task and the handle leaves second frees the memory (`set`, `let_go`).
const LET_GO: usize = 3;

/// How often a parked waiter wakes on its own to run its `check` (a pool whose worker died
/// outside any task never finishes the task: the check turns that into a panic, not a hang).
const CHECK_EVERY: Duration = Duration::from_millis(10);

// Loom's cell checks that the waiter and the task never touch `waiter` at the same time.
#[cfg(loom)]
use loom::cell::UnsafeCell;
#[cfg(not(loom))]
use std::cell::UnsafeCell;

/// Whether a task has finished, and the one thread that may be parked until it has.
pub struct Done {
    /// `PENDING -> DONE` when no one waits, or `PENDING -> PARKED -> DONE`; from any of the
    /// three, `-> LET_GO` when the waiter leaves without the result. Only the waiter moves it
    /// to `PARKED` or `LET_GO`; only the task moves it to `DONE`; none moves it back to
    /// `PENDING`, and nothing moves it after `LET_GO` but the task's `DONE` (to the memory
    /// it is about to free).
    state: AtomicUsize,
    /// The parked thread: written by the waiter while `PENDING`, before its CAS to `PARKED`;
    /// taken by the task after its own CAS found `PARKED`, before it stores `DONE`. The state
    /// hands it from one to the other: the two never touch it at the same time.
    ///
    /// `None` again by the time the `Done` is dropped (the waiter takes its thread back when
    /// its CAS finds `DONE`), so it needs no drop: a `Done` sits in every forked task, and
    /// drop code for it cost about 14 instructions per join in fib (valgrind). A waiter that
    /// gives up while `PARKED` and lets go leaves its thread here for the task to drop
    /// (`set`); if the task never runs (a broken pool), one handle leaks.
    waiter: UnsafeCell<ManuallyDrop<Option<Thread>>>,
}

// SAFETY: `waiter` is accessed by the waiter, then by the task, ordered by `state` (its field's
// invariant); everything else is atomic. `Thread` may move between threads.
unsafe impl Sync for Done {}

impl Default for Done {
    fn default() -> Self {
        Done::new()
    }
}

impl Done {
    pub fn new() -> Done {
        Done { state: AtomicUsize::new(PENDING), waiter: UnsafeCell::new(ManuallyDrop::new(None)) }
    }

    /// Whether the task has finished; once true, what it wrote before `set` is visible.
    #[inline]
    pub fn is_done(&self) -> bool {
        self.state.load(Acquire) == DONE // Acquire: pairs with `set`'s Release CAS or AcqRel swap
    }

    // ANCHOR: set
    /// The task has finished: publish it, and wake the waiter if one parked. Takes a raw
    /// pointer: the waiter may free the `Done` as soon as it sees `DONE`, so nothing here
    /// touches it after the store that says so.
    ///
    /// Returns true when the waiter let go first ([`let_go`](Self::let_go)): no one will read
    /// the result, and the caller, the last one out, frees the memory.
    ///
    /// # Safety
    /// `this` points to a live `Done` until this call has stored `DONE`; called once.
    #[inline]
    #[must_use = "true: the waiter let go, and the caller frees the memory"]
    pub unsafe fn set(this: *const Done) -> bool {
        // Release (success): what the task wrote is visible to whoever sees DONE. Acquire
        // (failure): the waiter's thread, written before its PARKED, is visible to the read
        // below; or, on LET_GO, the waiter's last reads come before the caller's free.
        // SAFETY: live until DONE is stored (caller).
        let cas = unsafe { (*this).state.compare_exchange(PENDING, DONE, Release, Acquire) };
        let Err(found) = cas else {
            return false; // no one parked or let go: the common case, one CAS
        };
        // SAFETY: the state is PARKED or LET_GO: the waiter wrote `waiter` (or left it None)
        // and will not touch it again, and cannot free `this` before DONE.
        let waiter = unsafe { with_waiter(this, |w| (**w).take()) };
        if found == LET_GO {
            return true; // the waiter is gone: drop its thread, if it left one, unwoken
        }
        // PARKED: a swap, not a store: the waiter may let go meanwhile (its wait gave up).
        // Release: as the CAS above; Acquire: as its failure, for LET_GO. From here on the
        // waiter may free `this`: only the thread handle taken out of it is used.
        // SAFETY: live until this swap (caller).
        let let_go = unsafe { (*this).state.swap(DONE, AcqRel) } == LET_GO;
        if let Some(waiter) = waiter {
            waiter.unpark();
        }
        let_go
    }
    // ANCHOR_END: set

    // ANCHOR: let_go
    /// The one waiter leaves without the result (a handle dropped unjoined). Returns true when
    /// the task had already finished: the caller, the last one out, frees the memory (and the
    /// result in it). Otherwise the task frees it when it finishes (`set` returns true).
    /// Takes a raw pointer, as `set` does: once this has stored `LET_GO`, the task may free
    /// the `Done` at any moment.
    ///
    /// # Safety
    /// `this` points to a live `Done`; called once, by the one waiter, not during its `wait`,
    /// and the waiter touches it no more.
    #[inline]
    #[must_use = "true: the task finished, and the caller frees the memory"]
    pub unsafe fn let_go(this: *const Done) -> bool {
        // AcqRel. Acquire: on DONE, what the task wrote (the result) is visible to the caller,
        // who drops it. Release: otherwise, this thread's reads of the memory come before the
        // task's free (its CAS or swap reads LET_GO with Acquire).
        // SAFETY: live (caller); not touched after the swap.
        unsafe { (*this).state.swap(LET_GO, AcqRel) == DONE }
    }
    // ANCHOR_END: let_go

    // ANCHOR: wait
    /// Waits until the task has finished: puts this thread in `waiter` and parks until `set`
    /// wakes it. `check` runs before the first park and each time the park times out, and may
    /// panic to give up. At most one thread waits on a `Done`.
    pub fn wait(&self, check: impl Fn()) {
        if self.is_done() {
            return;
        }
        check();
        // SAFETY: the state is PENDING (only this thread would make it PARKED), so the task
        // does not read `waiter` before the CAS below publishes it.
        unsafe { with_waiter(self, |w| **w = Some(thread::current())) };
        // Release: `waiter` is written before the task can see PARKED. Acquire (failure): the
        // task set DONE first; its writes are visible, and it never looked at `waiter`.
        if self.state.compare_exchange(PENDING, PARKED, Release, Acquire).is_err() {
            // SAFETY: the task never reads `waiter` once it has set DONE without seeing PARKED.
            drop(unsafe { with_waiter(self, |w| (**w).take()) }); // back to None (the field)
            return;
        }
        loop {
            thread::park_timeout(CHECK_EVERY); // may wake spuriously: look again
            if self.is_done() {
                return;
            }
            check();
        }
    }
    // ANCHOR_END: wait
}

/// Runs `f` on the address of `this`'s `waiter` (under loom, as one checked access).
///
/// # Safety
/// `this` is live, and the caller has the field to itself (see `Done::waiter`).
unsafe fn with_waiter<R>(
    this: *const Done,
    f: impl FnOnce(*mut ManuallyDrop<Option<Thread>>) -> R,
) -> R {
    // SAFETY: live (caller).
    #[cfg(loom)]
    return unsafe { (*this).waiter.with_mut(f) };
    // SAFETY: live (caller).
    #[cfg(not(loom))]
    return f(unsafe { (*this).waiter.get() });
}
