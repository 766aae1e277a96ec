//! Boxes handed back to the thread that pushed them ([`super::take_sending_box_home`]), and the order
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

    /// A closed inbox: every `send_all` leaves its items with the sender.
    pub fn closed() -> Inbox<T> {
        Inbox { items: Mutex::new(None), waiting: AtomicUsize::new(0) }
    }

    /// Hands back every item of `items` (leaving it empty), under one lock; leaves them there
    /// when the inbox is closed (the error says no more).
    #[allow(clippy::result_unit_err)]
    pub fn send_all(&self, items: &mut Vec<T>) -> Result<(), ()> {
        let mut inbox = self.lock();
        let Some(list) = inbox.as_mut() else { return Err(()) };
        list.append(items);
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
