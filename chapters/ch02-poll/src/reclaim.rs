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
//! Rust needs the same promise explicitly. Every take happens inside a [`Pin`] (an epoch of
//! crossbeam-epoch), and the taker moves the task out at once but *defers* freeing its memory
//! until every thread pinned at the time has unpinned: no pointer a thief can still compare
//! against is ever reused. Chapter 4 meets the same problem with whole arrays.

use std::mem::MaybeUninit;

/// Held while a thread reads task pointers out of slots (a crossbeam-epoch guard; nothing
/// under loom, whose models are too small for an address to be reused).
pub struct Pin {
    #[cfg(not(loom))]
    guard: crossbeam_epoch::Guard,
}

/// Pins the current thread for one take.
pub fn pin() -> Pin {
    Pin {
        #[cfg(not(loom))]
        guard: crossbeam_epoch::pin(),
    }
}

/// Moves the task out of `p` and frees its memory once no pinned thread can still hold `p`.
///
/// # Safety
/// `p` is null, or a pointer that `push` made with `Box::into_raw` and that the caller took
/// out of its slot (swap or successful CAS to null) while holding `pin`, so that no one else
/// can take it.
pub unsafe fn take_task<T>(p: *mut T, pin: &Pin) -> Option<T> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller owns the task at p (its swap or CAS emptied the slot).
    let task = unsafe { p.read() };
    // The memory, without the task (already moved out): freeing it drops nothing.
    let memory = p.cast::<MaybeUninit<T>>();
    #[cfg(not(loom))]
    // SAFETY: memory came from Box::into_raw; the closure runs once, after every thread that
    // was pinned when it was deferred has unpinned, so no thief still compares against p.
    unsafe {
        pin.guard.defer_unchecked(move || drop(Box::from_raw(memory)))
    };
    #[cfg(loom)]
    {
        let _ = pin;
        // SAFETY: as above; loom models never reuse an address within one execution.
        drop(unsafe { Box::from_raw(memory) });
    }
    Some(task)
}
