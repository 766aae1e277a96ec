use std::alloc::Layout;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::sync::{Arc, PoisonError};

use super::batch::{Block, Garbage, ORPHANS, Sealed, free_orphans};
use super::chain::{Chain, FAST, Fast};
use super::counts::add;
use super::handback::{Inbox, close_returned, seal_returned};
use super::outbox::{Empties, post};
use super::pins::registry;
use super::{BATCH, Home};

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

/// Hands `memory` (of `layout`, just taken by this thread) back to `home`, through this
/// thread's outbox (`outbox.rs`); keeps a box of its own here.
#[inline] // on every steal
pub(super) fn send_home(memory: *mut u8, layout: Layout, home: &Arc<Home>) {
    if std::ptr::eq(OWN_HOME.get(), Arc::as_ptr(home)) {
        return keep(memory, layout); // a box of our own: no inbox, no lock
    }
    post(memory, layout, home);
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
            // when a batch's worth of its boxes has come back. (A hint, see `Inbox::waiting`.)
            if m.is_none() && l.home.inbox.waiting() >= BATCH {
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

impl Limbo {
    /// Seals the open batch: a thief that may still hold one of its addresses has been
    /// pinned since before that task was taken, so it is pinned now, and `seal_returned`
    /// notes it. Then recycles every batch whose noted pins have cleared.
    // ANCHOR: seal
    fn seal(&mut self) {
        let chain = FAST.with(|f| f.take_open());
        let mut blocks = Vec::new(); // what thieves sent home since the last seal
        let pinned = seal_returned(&self.home.inbox, &mut blocks, registry());
        let fresh = self.spare.pop().unwrap_or_default();
        let boxes = std::mem::replace(&mut self.open, fresh);
        self.sealed.push_back(Sealed { pinned, boxes, blocks, chain });
        self.recycle_passed();
        free_orphans();
        self.add_counts();
    }

    /// Recycles every sealed batch whose noted pins have cleared (each batch stands on its
    /// own: one held back by a long pin does not hold back the others).
    fn recycle_passed(&mut self) {
        let mut i = 0;
        while i < self.sealed.len() {
            if !self.recycle_if_passed(i) {
                i += 1;
            }
        }
        self.home.empties.give(&mut self.emptied);
    }

    /// Recycles sealed batch `i` if its noted pins have cleared; says whether it did.
    fn recycle_if_passed(&mut self, i: usize) -> bool {
        if !self.sealed[i].pinned.passed() {
            return false;
        }
        let Sealed { mut boxes, blocks, chain, .. } = self.sealed.remove(i).expect("i < len");
        recycle_chain(chain);
        for g in boxes.drain(..) {
            self.recycle(g);
        }
        for Block { layout, boxes: mut memories } in blocks {
            memories.drain(..).for_each(|memory| self.recycle(Garbage { memory, layout }));
            self.emptied.push(memories);
        }
        self.spare.push(boxes);
        true
    }
    // ANCHOR_END: seal

    /// Recycles the newest sealed batch if its noted pins have cleared; says whether it did.
    fn recycle_newest(&mut self) -> bool {
        let Some(newest) = self.sealed.len().checked_sub(1) else { return false };
        let recycled = self.recycle_if_passed(newest);
        self.home.empties.give(&mut self.emptied);
        recycled
    }

    /// A ready box of `layout`, if there is one (counted as reused).
    fn pop_ready(&mut self, layout: Layout) -> Option<*mut u8> {
        if let Some(m) = FAST.with(|f| f.pop_ready(layout)) {
            return Some(m); // counted by `Fast::take_reused`
        }
        let m = self.ready.iter_mut().find(|(k, _)| *k == layout).and_then(|(_, v)| v.pop());
        self.reused += u64::from(m.is_some());
        m
    }

    /// Adds this thread's counts to the totals.
    fn add_counts(&mut self) {
        // Relaxed: statistics.
        let reused = std::mem::take(&mut self.reused) + FAST.with(Fast::take_reused);
        add(reused, std::mem::take(&mut self.allocated), std::mem::take(&mut self.sent_home));
    }

    /// `g`'s pins have cleared: keep it for `reuse`, or free it past `KEEP`.
    fn recycle(&mut self, g: Garbage) {
        // Some(room): the main layout, whose ready boxes are on the chain; None: another one.
        match FAST.with(|f| f.holds(g.layout).then(|| f.ready_len() < KEEP)) {
            // SAFETY: its pins have cleared (no thread holds the address), it holds no value
            // (the taker moved the task out), and it is of the chain's layout (`holds`).
            Some(true) => FAST.with(|f| unsafe { f.make_ready(g.memory) }),
            // SAFETY: as above, for the allocator.
            Some(false) => unsafe { g.free() },
            None => {
                let i = match self.ready.iter().position(|(k, _)| *k == g.layout) {
                    Some(i) => i,
                    None => {
                        self.ready.push((g.layout, Vec::new()));
                        self.ready.len() - 1
                    }
                };
                let list = &mut self.ready[i].1;
                if list.len() < KEEP {
                    list.push(g.memory);
                } else {
                    // SAFETY: as above.
                    unsafe { g.free() };
                }
            }
        }
    }
}

/// A passed batch's chain goes to the ready chain, as far as `KEEP` allows; the rest is freed.
fn recycle_chain((layout, chain): (Layout, Chain)) {
    let Err(chain) = FAST.with(|f| f.make_all_ready(layout, chain, KEEP)) else { return };
    // SAFETY: its pins have cleared, and it holds boxes of `layout` that no one else holds.
    unsafe { chain.free(layout) };
}

impl Drop for Limbo {
    /// A thread that exits frees its ready boxes and leaves the waiting ones as orphans.
    fn drop(&mut self) {
        OWN_HOME.set(std::ptr::null());
        self.add_counts();
        // From here on every take goes to `keep_slow`, which finds no limbo: the box leaks.
        let (layout, open_chain) = FAST.with(|f| f.close());
        for (layout, list) in self.ready.drain(..) {
            for memory in list {
                // SAFETY: ready boxes are past their pins, empty, and held by no one.
                unsafe { Garbage { memory, layout }.free() };
            }
        }
        // Close the inbox: thieves keep what they take from now on.
        let mut blocks = Vec::new();
        let pinned = close_returned(&self.home.inbox, &mut blocks, registry());
        self.home.empties.clear(); // no thief sends here any more
        let open = std::mem::take(&mut self.open);
        let last = (!open.is_empty() || !blocks.is_empty() || open_chain.len() > 0)
            .then_some(Sealed { pinned, boxes: open, blocks, chain: (layout, open_chain) });
        let mut orphans = ORPHANS.lock().unwrap_or_else(PoisonError::into_inner);
        orphans.extend(self.sealed.drain(..).chain(last));
    }
}
