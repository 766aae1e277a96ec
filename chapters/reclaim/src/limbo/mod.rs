//! Each thread's limbo: the boxes it took, kept until no thief can still hold their addresses,
//! then handed out again. Here the thread's entry points (`keep` a box just taken, `reuse` one
//! for a push, `send_home` another thread's box) and the limbo's fields; `seal.rs`: sealing a
//! batch, recycling the batches whose pins have cleared, and what a thread leaves at exit.

use std::alloc::Layout;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::sync::Arc;

use super::batch::{Block, Garbage, Sealed};
use super::handback::Inbox;
use super::outbox::{Empties, post};
use super::{BATCH, BoundHome, HOME_SEAL, Home};
use crate::fast::FAST;

mod seal;

/// Recycled boxes kept per layout; past this many, the allocator gets them back. Enough for
/// what a thread has had in flight at once: the batches waiting for pins, and a backlog of
/// pushed tasks that thieves have not taken yet. (At 8 batches, one owner pushing 200,000 tasks
/// ahead of one thief went back to `malloc` for a quarter of its pushes, run after run, at
/// about 45 ns each, where a recycled box costs a few: `queue-ops`, AMD EPYC, 2026-12-04.)
const KEEP: usize = 64 * BATCH;

/// One thread's taken boxes: waiting for their pins, then ready for reuse.
struct Limbo {
    /// Taken since the last batch was sealed (besides the open chain, `FAST.open`).
    open: Vec<Garbage>,
    /// Sealed batches, oldest first.
    sealed: VecDeque<Sealed>,
    /// Boxes whose pins have cleared, by layout, except the main layout's (`FAST.ready`).
    ready: Vec<(Layout, Vec<*mut u8>)>,
    /// Emptied batch vectors, reused (a fresh one per seal would be a large allocation).
    spare: Vec<Vec<Garbage>>,
    /// The vectors of blocks that came home, emptied, on their way back to this home's
    /// `empties` for thieves to reuse. Empty between calls: `recycle_if_passed` fills it and
    /// its callers hand it on at once; a field only so that no call allocates a list.
    emptied: Vec<Vec<*mut u8>>,
    /// `boxed` calls served from `ready` (the slow path) and by the allocator, not yet added to
    /// the totals.
    reused: u64,
    allocated: u64,
    /// Boxes this thread took and sent home, not yet added to the totals.
    sent_home: u64,
    /// Where thieves hand this thread's boxes back.
    home: Arc<Home>,
}

impl Default for Limbo {
    fn default() -> Limbo {
        let home = Home::with_inbox(Inbox::new());
        OWN_HOME.set(Arc::as_ptr(&home));
        Limbo {
            open: Vec::new(),
            sealed: VecDeque::new(),
            ready: Vec::new(),
            spare: Vec::new(),
            emptied: Vec::new(),
            reused: 0,
            allocated: 0,
            sent_home: 0,
            home,
        }
    }
}

/// This thread's home.
pub(super) fn home() -> Arc<Home> {
    // A thread past its thread-locals gets a closed home: thieves keep its boxes.
    LIMBO
        .try_with(|l| l.borrow().home.clone())
        .unwrap_or_else(|_| Home::with_inbox(Inbox::closed()))
}

impl Home {
    /// A home whose thieves send to `inbox` (open; or closed, and they keep what they take),
    /// with no emptied vectors yet.
    fn with_inbox(inbox: Inbox<Block>) -> Arc<Home> {
        Arc::new(Home { inbox, empties: Empties::new() })
    }
}

/// Hands `memory` (of `layout`, just taken by this thread) back to `home`, whose address is
/// `to` (not null), through this thread's outbox (`outbox.rs`); keeps a box of its own here.
#[inline] // on every steal
pub(super) fn send_home(memory: *mut u8, layout: Layout, to: *const Home, home: &BoundHome) {
    if std::ptr::eq(OWN_HOME.get(), to) {
        return keep(memory, layout); // a box of our own: no inbox, no lock
    }
    post(memory, layout, to, home);
}

/// Counts `n` boxes this thread sent home.
pub(super) fn sent_home(n: u64) {
    let _ = LIMBO.try_with(|l| l.borrow_mut().sent_home += n);
}

thread_local! {
    static LIMBO: RefCell<Limbo> = RefCell::default();
    /// This thread's home while its limbo lives (null otherwise), for `send_home` to tell a
    /// box of its own from another thread's without reaching the limbo.
    static OWN_HOME: Cell<*const Home> = const { Cell::new(std::ptr::null()) };
}

/// A box of `layout` whose pins have cleared, if this thread has one. The fast path: the main
/// layout's ready chain.
#[inline]
pub(super) fn reuse(layout: Layout) -> Option<*mut u8> {
    FAST.with(|f| f.pop_ready(layout)).or_else(|| reuse_slow(layout))
}

/// `reuse` when the ready chain had nothing: other layouts, a seal of what came home, counts.
#[inline(never)]
fn reuse_slow(layout: Layout) -> Option<*mut u8> {
    // `try_with`: during thread exit the limbo may be gone; then the allocator serves.
    LIMBO
        .try_with(|l| {
            let mut l = l.borrow_mut();
            FAST.with(|f| f.adopt(layout));
            let mut m = l.pop_ready(layout);
            // A batch sealed while a thief was pinned waits for that thief's next unpin, a
            // steal later; look at the newest batch again before asking the allocator. (Without
            // this look, one owner whose every task was stolen called `malloc` for a whole batch
            // of pushes after each such seal: up to 12% of them, `race-rounds`, Intel,
            // 2026-12-05.) Only the newest: older ones waited through a seal already, and a
            // look at every batch on every push would cost most while a long pin holds many.
            if m.is_none() && l.recycle_newest() {
                m = l.pop_ready(layout);
            }
            // A thread whose tasks are all stolen takes nothing and so never seals: seal
            // when `HOME_SEAL` of its boxes have come back. (A hint, see `Inbox::waiting`.)
            if m.is_none() && l.home.inbox.waiting() >= HOME_SEAL {
                l.seal();
                m = l.pop_ready(layout);
            }
            if m.is_none() {
                l.allocated += 1; // `boxed` asks the allocator next (`pop_ready` counts reuse)
            }
            m
        })
        .ok()
        .flatten()
}

/// Keeps `memory` (of `layout`), just taken; every `BATCH` takes, seals a batch and moves
/// the batches whose pins have cleared to `ready`. The fast path: the main layout's open chain.
#[inline]
pub(super) fn keep(memory: *mut u8, layout: Layout) {
    // SAFETY: the box was just taken (its task moved out): empty, and this thread's alone;
    // `holds` checked its layout, which is at least a pointer long (`Fast::adopt`).
    let open = FAST.with(|f| f.holds(layout).then(|| unsafe { f.keep(memory) }));
    match open {
        Some(len) if len < BATCH => {}
        // The chain's layout is set only while the limbo lives (`adopt` runs inside it, and its
        // drop unsets it), so `try_with` finds it here.
        Some(_) => {
            let _ = LIMBO.try_with(|l| l.borrow_mut().seal());
        }
        None => keep_slow(Garbage { memory, layout }),
    }
}

/// `keep` for a box the open chain does not hold: other layouts, or the thread's first take.
#[inline(never)]
fn keep_slow(g: Garbage) {
    // `try_with`: while the thread exits, its limbo may be gone; the box then leaks (the
    // safe side: no one can reuse an address too early).
    let _ = LIMBO.try_with(|l| {
        let mut l = l.borrow_mut();
        let chained = FAST.with(|f| {
            f.adopt(g.layout);
            // SAFETY: as in `keep`.
            f.holds(g.layout).then(|| unsafe { f.keep(g.memory) })
        });
        let open = match chained {
            Some(len) => len,
            None => {
                l.open.push(g);
                l.open.len()
            }
        };
        if open >= BATCH {
            l.seal();
        }
    });
}
