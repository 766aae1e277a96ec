//! Stolen boxes on their way home, sent a few at a time.
//!
//! A thief that sent each stolen box home at once took its home's inbox lock on every steal:
//! two locked instructions, and a line the home also writes. It collects them in its outbox
//! instead, and sends them under one lock every [`SEND_EVERY`] boxes, when it steals from
//! another home, before it waits for work ([`super::send_pending`]), and when it exits.
//!
//! As safe as one at a time: a box joins its home's batch when the home drains its inbox,
//! and the home looks at the pins after that drain, so after the thief's take. Holding the box
//! a while longer only delays its reuse.

use std::cell::RefCell;
use std::sync::Arc;

use super::Home;
use super::batch::Garbage;
use super::limbo::{keep_garbage, sent_home};

/// Boxes a thief collects before it takes its home's lock.
pub const SEND_EVERY: usize = 64;

/// This thread's boxes for one home. Invariant: `boxes` is empty when `home` is `None`.
struct Outbox {
    home: Option<Arc<Home>>,
    boxes: Vec<Garbage>,
}

impl Outbox {
    /// Sends what waits to its home; keeps it here when that thread has exited.
    fn send(&mut self) {
        let Some(home) = &self.home else { return };
        let n = self.boxes.len() as u64;
        match home.inbox.send_all(&mut self.boxes) {
            Ok(()) => sent_home(n),
            Err(()) => self.boxes.drain(..).for_each(keep_garbage),
        }
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        self.send();
    }
}

thread_local! {
    static OUTBOX: RefCell<Outbox> =
        const { RefCell::new(Outbox { home: None, boxes: Vec::new() }) };
}

/// Posts `g`, just taken from a queue that `home`'s thread pushes to.
pub(super) fn post(g: Garbage, home: &Arc<Home>) {
    // `try_with`: while the thread exits its outbox may be gone; the box then leaks (the safe
    // side, as in `limbo::keep_slow`).
    let _ = OUTBOX.try_with(|o| {
        let mut o = o.borrow_mut();
        if !o.home.as_ref().is_some_and(|h| Arc::ptr_eq(h, home)) {
            o.send();
            o.home = Some(home.clone());
        }
        o.boxes.push(g);
        if o.boxes.len() >= SEND_EVERY {
            o.send();
        }
    });
}

/// Sends what this thread's outbox holds.
pub(super) fn send_now() {
    let _ = OUTBOX.try_with(|o| o.borrow_mut().send());
}
