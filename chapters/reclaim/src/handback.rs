//! Boxes handed back to the thread that pushed them ([`super::take_sending_box_home`]), and
//! the order in which a seal takes them in. Public, and compiled under loom, for chapter 2's
//! model.

use crate::sync::Ordering::Relaxed;
use crate::sync::{AtomicUsize, Mutex, MutexGuard};

use super::pins::{Pinned, Registry};

/// One thread's inbox: what other threads hand back, until the thread collects it; closed
/// (`None`) once the thread has exited.
pub struct Inbox<T> {
    items: Mutex<Option<Vec<T>>>,
    /// How many boxes the items waiting hold, for the owner to read without the lock (a hint).
    waiting: AtomicUsize,
}

impl<T> Inbox<T> {
    /// An open inbox.
    pub fn new() -> Inbox<T> {
        Inbox { items: Mutex::new(Some(Vec::new())), waiting: AtomicUsize::new(0) }
    }

    /// A closed inbox: every `send` hands its item back.
    pub fn closed() -> Inbox<T> {
        Inbox { items: Mutex::new(None), waiting: AtomicUsize::new(0) }
    }

    /// Hands back `item`, which holds `boxes` boxes, under one lock; returns it when the inbox
    /// is closed.
    pub fn send(&self, item: T, boxes: usize) -> Result<(), T> {
        let mut inbox = self.lock();
        let Some(list) = inbox.as_mut() else { return Err(item) };
        list.push(item);
        // Relaxed: a hint; the lock orders the items themselves.
        self.waiting.store(self.waiting.load(Relaxed) + boxes, Relaxed);
        Ok(())
    }

    /// How many boxes wait (a hint: it may lag behind the lock's view).
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
