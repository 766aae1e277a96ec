//! A task's way out of its box: the owner's take ([`take_own`]), a thief's
//! ([`take_keeping_box`], [`take_sending_box_home`]), and where the emptied box goes
//! ([`release_empty`]): into this thread's limbo, or home to the thread that pushed it.

use crate::{BoundHome, Guard};
#[cfg(not(loom))]
use crate::{limbo, outbox};

/// A thief's take that keeps the box: moves the task out of `p`; the box joins this thread's
/// own batches, reused or freed once no pinned thread can still hold `p` (the other thief's
/// take, [`take_sending_box_home`], sends it to its pusher instead). `guard` is the pin the
/// thief held since it read `p`.
///
/// # Safety
/// `p` is null, or a pointer that [`boxed`](crate::boxed) made and that the caller took out of
/// its slot (a successful CAS to null) while holding `guard`, so that no one else can take it.
pub unsafe fn take_keeping_box<T>(p: *mut T, guard: &Guard) -> Option<T> {
    let _ = guard; // the pin mattered while `p` was compared; the garbage waits for all pins
    // SAFETY: the caller's contract is `take_own`'s, and more.
    unsafe { take_own(p) }
}

// ANCHOR: take_sending_box_home
/// A thief's take, after its pin has ended: moves the task out of `p`, and sends the memory
/// back to `home`, the thread that pushed it, where one is bound (else keeps it, as
/// [`take_keeping_box`]). The box goes by way of this thread's outbox (`outbox.rs`), a few at a
/// time: [`send_pending`] sends what it holds. The thief's pin covers its reads of the slot up
/// to its CAS; from the CAS on, the task is the thief's alone, so the rest, which may wait for
/// a lock, runs unpinned (a thread descheduled while pinned holds back every batch sealed
/// meanwhile).
///
/// Why send it home: recycled into the thief's own pushes, a stolen box would share its cache
/// line with the pusher's boxes, and the two threads' writes would fight over the line (false
/// sharing), on more lines with every steal. A long-lived pool slowed down run after run so.
///
/// `home` should be the queue's (chapter 4's `WorkQueue::home`), bound by the thread that
/// pushes there (any thread's batches are safe for the box; only the pusher's keep boxes
/// apart from other threads').
///
/// # Safety
/// `p` is null, or a pointer that [`boxed`](crate::boxed) made and that the caller took out of
/// its slot with a successful CAS to null while pinned.
#[inline] // on every steal
pub unsafe fn take_sending_box_home<T>(p: *mut T, home: &BoundHome) -> Option<T> {
    #[cfg(not(loom))]
    {
        let to = home.addr(); // null: no home bound (yet), or none
        if !p.is_null() && !to.is_null() {
            // SAFETY: the caller took the task at p out of its slot.
            let task = unsafe { p.read() };
            limbo::send_home(p.cast(), std::alloc::Layout::new::<T>(), to, home);
            return Some(task);
        }
    }
    #[cfg(loom)]
    let _ = home; // boxes are freed at once under loom
    // No home (an unbound `BoundHome`, or one bound to none): kept here, as `take_keeping_box`.
    // SAFETY: the caller's contract is `take_own`'s, and more.
    unsafe { take_own(p) }
}
// ANCHOR_END: take_sending_box_home

/// Sends home now the stolen boxes this thread holds for another thread (see
/// `take_sending_box_home`): for a thread about to wait, so that the boxes do not wait with it.
/// (Nothing under loom.)
pub fn send_pending() {
    #[cfg(not(loom))]
    outbox::send_now();
}

/// The owner's take (and a thief's, through `take_keeping_box`): moves the task out of `p`; its
/// memory is reused or freed once every thread pinned now has unpinned.
///
/// # Safety
/// `p` is null, or a pointer that [`boxed`](crate::boxed) made and that the caller took out of
/// its slot (swap or successful CAS to null), so that no one else can take it.
#[inline(always)] // on every push and take: see `fast.rs`
pub unsafe fn take_own<T>(p: *mut T) -> Option<T> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller owns the task at p (its swap or CAS emptied the slot).
    let task = unsafe { p.read() };
    // SAFETY: from `boxed`, emptied just above, out of its slot and the caller's alone.
    unsafe { release_empty(p) };
    Some(task)
}

/// Hands back the memory of a box whose task was already moved out ([`take_own`] after its
/// read, and an owner's spare pushed out by a newer one, chapter 4's `Spares`): it is reused or
/// freed once every thread pinned now has unpinned.
///
/// # Safety
/// `p` is a pointer that [`boxed`](crate::boxed) made, holding no value, that no slot holds and
/// no one else will use.
#[inline(always)] // on every take: see `fast.rs`
pub unsafe fn release_empty<T>(p: *mut T) {
    #[cfg(not(loom))]
    limbo::keep(p.cast(), std::alloc::Layout::new::<T>());
    #[cfg(loom)]
    // SAFETY: the memory came from Box::into_raw and holds no value (caller). An early free is
    // harmless here: loom's models never wrap the ring while a thief holds a pointer.
    drop(unsafe { Box::from_raw(p.cast::<std::mem::MaybeUninit<T>>()) });
}
