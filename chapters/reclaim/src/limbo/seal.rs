//! Sealing a batch of taken boxes, recycling each sealed batch once its noted pins have cleared,
//! and what a thread's limbo leaves behind when the thread exits.

use std::alloc::Layout;
use std::sync::PoisonError;

use super::{KEEP, Limbo, OWN_HOME};
use crate::batch::{Block, Garbage, ORPHANS, Sealed, free_orphans};
use crate::chain::Chain;
use crate::counts::add;
use crate::fast::{FAST, Fast};
use crate::handback::{close_returned, seal_returned};
use crate::pins::registry;

impl Limbo {
    /// Seals the open batch: a thief that may still hold one of its addresses has been
    /// pinned since before that task was taken, so it is pinned now, and `seal_returned`
    /// notes it. Then recycles every batch whose noted pins have cleared.
    // ANCHOR: seal
    pub(super) fn seal(&mut self) {
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
            // SAFETY: their pins have cleared, they hold no value, and only this batch has them.
            let ready = FAST.with(|f| unsafe { f.make_block_ready(layout, &memories, KEEP) });
            memories.drain(ready..).for_each(|memory| self.recycle(Garbage { memory, layout }));
            memories.clear();
            self.emptied.push(memories);
        }
        self.spare.push(boxes);
        true
    }
    // ANCHOR_END: seal

    /// Recycles the newest sealed batch if its noted pins have cleared; says whether it did.
    pub(super) fn recycle_newest(&mut self) -> bool {
        let Some(newest) = self.sealed.len().checked_sub(1) else { return false };
        let recycled = self.recycle_if_passed(newest);
        self.home.empties.give(&mut self.emptied);
        recycled
    }

    /// A ready box of `layout`, if there is one (counted as reused).
    pub(super) fn pop_ready(&mut self, layout: Layout) -> Option<*mut u8> {
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
