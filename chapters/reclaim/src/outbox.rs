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
//! batch is recycled. (The outbox used to copy each box's address and layout into the inbox's
//! list, and the home copied them again into its batch: two copies of 24 bytes per box, the
//! second across cores. Those lists also kept their largest size, which is what held most of
//! the memory of chapter 4's ten-million-task run: see its page.)
//!
//! As safe as one at a time: a box joins its home's batch when the home drains its inbox,
//! and the home looks at the pins after that drain, so after the thief's take. Holding the box
//! a while longer only delays its reuse.

use std::alloc::Layout;
use std::cell::{Cell, RefCell, UnsafeCell};
use std::ptr::null;
use std::sync::Arc;

use super::Home;
use super::batch::Block;
use super::limbo::{keep, sent_home};

/// Boxes a thief collects before it takes its home's lock.
pub const SEND_EVERY: usize = 64;

/// This thread's boxes for one home, all of one layout: a fixed array that a post fills with
/// one store, in `Cell`s of a `const` thread-local (as chapter 2's chains, `chain.rs`).
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
        // SAFETY: only this thread touches its outbox; `boxes[..n]` are filled (invariant).
        let boxes = unsafe { (&*self.boxes.get())[..n].to_vec() };
        let block = Block { layout: self.layout.get(), boxes };
        let home = self.home.borrow();
        let home = home.as_ref().expect("boxes wait only for a home (invariant)");
        match home.inbox.send(block, n) {
            Ok(()) => sent_home(n as u64),
            Err(back) => back.boxes.into_iter().for_each(|m| keep(m, back.layout)),
        }
    }

    /// `post` for a box that starts a new block (another home, another layout) or fills one.
    #[cold]
    #[inline(never)]
    fn post_slow(&self, memory: *mut u8, layout: Layout, home: &Arc<Home>) {
        if self.to.get() != Arc::as_ptr(home) || self.layout.get() != layout {
            self.send();
            *self.home.borrow_mut() = Some(home.clone());
            self.to.set(Arc::as_ptr(home));
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

/// Posts `memory` (of `layout`), just taken from a queue that `home`'s thread pushes to.
#[inline]
pub(super) fn post(memory: *mut u8, layout: Layout, home: &Arc<Home>) {
    // `try_with`: while the thread exits its outbox may be gone; the box then leaks (the safe
    // side, as in `limbo::keep_slow`).
    let _ = OUTBOX.try_with(|o| {
        let len = o.len.get();
        if o.to.get() == Arc::as_ptr(home) && o.layout.get() == layout && len + 1 < SEND_EVERY {
            // SAFETY: only this thread touches its outbox; `len + 1 < SEND_EVERY`, and the box
            // is of the block's home and layout (checked), as the invariant asks.
            unsafe { (*o.boxes.get())[len] = memory };
            o.len.set(len + 1);
        } else {
            o.post_slow(memory, layout, home);
        }
    });
}

/// Sends what this thread's outbox holds.
pub(super) fn send_now() {
    let _ = OUTBOX.try_with(|o| o.send());
}
