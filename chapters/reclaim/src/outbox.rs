//! Stolen boxes on their way home, sent a few at a time.
//!
//! A thief that sent each stolen box home at once took its home's inbox lock on every steal:
//! two locked instructions, and a line the home also writes. It collects them in its outbox
//! instead, and sends them under one lock every [`SEND_EVERY`] boxes, when it steals from
//! another home (or a box of another layout), before it waits for work
//! ([`super::send_pending`]), and when it exits.
//!
//! What travels is a [`Block`]: the boxes' addresses in a vector that moves whole, from this
//! outbox to the home's inbox and on into one of the home's batches, and is read once, when the
//! batch is recycled; emptied, it waits at the home ([`Empties`]) for a thief's next block.
//! (The outbox used to copy each box's address and layout into the inbox's list, and the home
//! copied them again into its batch: two copies of 24 bytes per box, the second across cores.
//! Those lists also kept their largest size, which is what held most of the memory of chapter
//! 4's ten-million-task run: see its page.)
//!
//! As safe as one at a time: a box joins its home's batch when the home drains its inbox,
//! and the home looks at the pins after that drain, so after the thief's take. Holding the box
//! a while longer only delays its reuse.

use std::alloc::Layout;
use std::cell::{Cell, RefCell, UnsafeCell};
use std::ptr::null;
use std::sync::{Arc, Mutex};

use super::batch::Block;
use super::limbo::{keep, sent_home};
use super::{BoundHome, Home};

/// Boxes a thief collects before it takes its home's lock.
pub const SEND_EVERY: usize = 64;

/// Emptied block vectors, kept at their home for the thieves that send there next. A block's
/// vector is allocated by a thief and emptied by the home: without this, every block cost the
/// thief a `malloc` and the home a `free` of memory from the thief's allocator arena, and the
/// two threads waited for that arena's lock (one owner and one thief, `race-rounds` under
/// `perf`, Intel Xeon, 2026-12-05). Both sides only `try_lock`: when the other holds the list,
/// the thief allocates and the home frees, as before.
pub(crate) struct Empties(Mutex<Vec<Vec<*mut u8>>>);

/// Emptied vectors a home keeps; past this, it frees them.
const KEEP_EMPTIES: usize = 64;

// SAFETY: every vector the list holds is empty (`give` takes only emptied ones), so no address
// moves between threads through it, only the vectors' own memory.
unsafe impl Send for Empties {}
// SAFETY: as above; the mutex orders every access to the list.
unsafe impl Sync for Empties {}

impl Empties {
    pub(crate) const fn new() -> Empties {
        Empties(Mutex::new(Vec::new()))
    }

    /// An emptied vector, if one waits and no one else holds the list.
    fn take(&self) -> Option<Vec<*mut u8>> {
        self.0.try_lock().ok()?.pop()
    }

    /// Keeps the emptied vectors of `emptied` (up to [`KEEP_EMPTIES`]) and frees the rest,
    /// leaving `emptied` empty.
    pub(crate) fn give(&self, emptied: &mut Vec<Vec<*mut u8>>) {
        if emptied.is_empty() {
            return;
        }
        if let Ok(mut kept) = self.0.try_lock() {
            let room = KEEP_EMPTIES.saturating_sub(kept.len()).min(emptied.len());
            let only_empty = |v: &Vec<*mut u8>| debug_assert!(v.is_empty(), "only emptied ones");
            kept.extend(emptied.drain(..room).inspect(only_empty));
        }
        emptied.clear();
    }

    /// Frees the vectors kept, for a home whose thread exits (its inbox is closed).
    pub(crate) fn clear(&self) {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clear();
    }
}

/// This thread's boxes for one home, all of one layout: a fixed array that a post fills with
/// one store, in `Cell`s of a `const` thread-local (as chapter 2's chains, `fast.rs`).
///
/// Invariant: `boxes[..len]` are boxes of `layout` taken by this thread from a queue that
/// `home`'s thread pushes to, holding no value, this outbox's alone; `len < SEND_EVERY`; `to` is
/// `home`'s address, or null when `home` is `None` (and then `len` is 0).
struct Outbox {
    home: RefCell<Option<Arc<Home>>>,
    to: Cell<*const Home>,
    layout: Cell<Layout>,
    boxes: UnsafeCell<[*mut u8; SEND_EVERY]>,
    len: Cell<usize>,
}

impl Outbox {
    /// Sends what waits to its home, as one block; keeps it here when that thread has exited.
    fn send(&self) {
        let n = self.len.replace(0);
        if n == 0 {
            return;
        }
        let home = self.home.borrow();
        let home = home.as_ref().expect("boxes wait only for a home (invariant)");
        let mut boxes = home.empties.take().unwrap_or_else(|| Vec::with_capacity(SEND_EVERY));
        // SAFETY: only this thread touches its outbox; `boxes[..n]` are filled (invariant).
        boxes.extend_from_slice(unsafe { &(&*self.boxes.get())[..n] });
        let block = Block { layout: self.layout.get(), boxes };
        match home.inbox.send(block, n) {
            Ok(()) => sent_home(n as u64),
            Err(back) => back.boxes.into_iter().for_each(|m| keep(m, back.layout)),
        }
    }

    /// `post` for a box that starts a new block (another home, another layout) or fills one.
    #[cold]
    #[inline(never)]
    fn post_slow(&self, memory: *mut u8, layout: Layout, to: *const Home, home: &BoundHome) {
        if self.to.get() != to || self.layout.get() != layout {
            self.send();
            let home = home.get().expect("a home whose address is bound is bound (invariant)");
            *self.home.borrow_mut() = Some(home.clone());
            self.to.set(to);
            self.layout.set(layout);
        }
        let len = self.len.get();
        // SAFETY: only this thread touches its outbox; `len < SEND_EVERY` (invariant).
        unsafe { (*self.boxes.get())[len] = memory };
        self.len.set(len + 1);
        if len + 1 == SEND_EVERY {
            self.send();
        }
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        self.send();
    }
}

thread_local! {
    static OUTBOX: Outbox = const {
        Outbox {
            home: RefCell::new(None),
            to: Cell::new(null()),
            layout: Cell::new(Layout::new::<()>()),
            boxes: UnsafeCell::new([std::ptr::null_mut(); SEND_EVERY]),
            len: Cell::new(0),
        }
    };
}

/// Posts `memory` (of `layout`), just taken from a queue that `home`'s thread pushes to; `to`
/// is `home`'s address, not null.
#[inline]
pub(super) fn post(memory: *mut u8, layout: Layout, to: *const Home, home: &BoundHome) {
    // `try_with`: while the thread exits its outbox may be gone; the box then leaks (the safe
    // side, as in `limbo::keep_slow`).
    let _ = OUTBOX.try_with(|o| {
        let len = o.len.get();
        if o.to.get() == to && o.layout.get() == layout && len + 1 < SEND_EVERY {
            // SAFETY: only this thread touches its outbox; `len + 1 < SEND_EVERY`, and the box
            // is of the block's home and layout (checked), as the invariant asks.
            unsafe { (*o.boxes.get())[len] = memory };
            o.len.set(len + 1);
        } else {
            o.post_slow(memory, layout, to, home);
        }
    });
}

/// Sends what this thread's outbox holds.
pub(super) fn send_now() {
    let _ = OUTBOX.try_with(|o| o.send());
}
