//! The fast path of [`super::boxed`] and [`super::take_own`]: a thread's boxes of its main layout
//! kept in two lists threaded through the boxes themselves, in `Cell`s of a `const`
//! thread-local (no lazy set-up, no borrow flag, no vector to grow).
//!
//! A push and a take used to cost a `RefCell` borrow of the thread's limbo, a search of its
//! ready lists by layout, and a `Vec` push. With them (and the task copied through calls that
//! were not inlined), chapter 4's push+pop took 11-13 ns on an AMD EPYC whose two swaps take
//! about 5 (`queue-ops`, 2026-12-03; `chapters/contention/profile-queue-amd-before.txt`). Now
//! each is a layout compare and a move or two of a pointer; the limbo behind its `RefCell` is
//! reached once per `BATCH` takes, to seal.

use std::alloc::Layout;
use std::cell::Cell;
use std::ptr::null_mut;

use crate::chain::Chain;

/// A thread's two chains for its main layout, in `Cell`s of their own so that the fast path
/// moves one pointer at a time: `ready` (pins cleared: `boxed` reuses them; a chain whose tail
/// is not kept) and `open` (taken since the last seal).
///
/// Invariant: both chains meet [`Chain`]'s invariant for `layout`; every box on `ready` is past
/// its pins (no thread can still compare against its address).
pub(crate) struct Fast {
    /// The layout both chains hold: the first layout at least a pointer long that this thread
    /// boxed or took. [`Fast::NONE`] before that, and after the thread's limbo is gone.
    layout: Cell<Layout>,
    /// `layout` as one word ([`key`]), for the fast path's check: one compare, not two.
    key: Cell<u64>,
    ready: Cell<*mut u8>,
    ready_len: Cell<usize>,
    open: Cell<*mut u8>,
    open_tail: Cell<*mut u8>,
    open_len: Cell<usize>,
    /// The boxes on `ready` at the last [`Fast::take_reused`], plus those put there since. A
    /// box leaves `ready` only when `boxed` reuses it (or when `close` frees them all), so the
    /// reuses since then are `entered - ready_len`: `pop_ready`, on every push, counts nothing.
    entered: Cell<u64>,
    /// Boxes reused outside `boxed` ([`super::note_reused`]) since the last count.
    pub(super) noted: Cell<u64>,
}

impl Fast {
    /// No layout: zero-sized, which `boxed` never asks for.
    pub(super) const NONE: Layout = Layout::new::<()>();

    const fn new() -> Fast {
        Fast {
            layout: Cell::new(Fast::NONE),
            key: Cell::new(key(Fast::NONE)),
            ready: Cell::new(null_mut()),
            ready_len: Cell::new(0),
            open: Cell::new(null_mut()),
            open_tail: Cell::new(null_mut()),
            open_len: Cell::new(0),
            entered: Cell::new(0),
            noted: Cell::new(0),
        }
    }

    /// Whether the chains hold boxes of `layout`.
    #[inline]
    pub(super) fn holds(&self, layout: Layout) -> bool {
        self.key.get() == key(layout)
    }

    /// Makes `layout` the chains' layout if none is chosen and a link fits in its boxes.
    pub(super) fn adopt(&self, layout: Layout) {
        let fits = (size_of::<*mut u8>()..=MAX_SIZE).contains(&layout.size());
        if self.layout.get() == Fast::NONE && fits {
            self.layout.set(layout);
            self.key.set(key(layout));
        }
    }

    /// A ready box, if the chains hold `layout` and one is there.
    #[inline]
    pub(super) fn pop_ready(&self, layout: Layout) -> Option<*mut u8> {
        let m = self.ready.get();
        if !self.holds(layout) || m.is_null() {
            return None;
        }
        // SAFETY: a box on the chain holds the next one's address (the invariant).
        self.ready.set(unsafe { m.cast::<*mut u8>().read_unaligned() });
        self.ready_len.set(self.ready_len.get() - 1); // a reuse: see `counted_len`
        Some(m)
    }

    /// Adds a just-taken box of the chains' layout to `open`; returns the open chain's length.
    ///
    /// # Safety
    /// `memory` is a box of the chains' layout (`self.holds`) that meets [`Chain`]'s invariant
    /// but for its link: from the global allocator, empty, and handed to the chain.
    #[inline]
    pub(super) unsafe fn keep(&self, memory: *mut u8) -> usize {
        let head = self.open.get();
        // SAFETY: the box is at least a pointer long (`adopt`) and empty (caller); unaligned,
        // since a layout of pointer size may have a smaller alignment.
        unsafe { memory.cast::<*mut u8>().write_unaligned(head) };
        if head.is_null() {
            self.open_tail.set(memory);
        }
        self.open.set(memory);
        let len = self.open_len.get() + 1;
        self.open_len.set(len);
        len
    }

    /// The open chain, for a seal, with its layout; `open` starts again empty.
    pub(super) fn take_open(&self) -> (Layout, Chain) {
        let chain = Chain {
            head: self.open.replace(null_mut()),
            tail: self.open_tail.replace(null_mut()),
            len: self.open_len.replace(0),
        };
        (self.layout.get(), chain)
    }

    /// The boxes reused since the last call: served from `ready`, and noted.
    pub(super) fn take_reused(&self) -> u64 {
        let now = self.ready_len.get() as u64;
        // `now <= entered`: see `entered`.
        self.entered.replace(now) - now + self.noted.replace(0)
    }

    /// How many boxes are ready.
    pub(super) fn ready_len(&self) -> usize {
        self.ready_len.get()
    }

    /// Puts a box whose pins have cleared on the ready chain.
    ///
    /// # Safety
    /// As [`Fast::keep`], and no thread may still compare against its address.
    pub(super) unsafe fn make_ready(&self, memory: *mut u8) {
        // SAFETY: the caller's contract; unaligned, as in `keep`.
        unsafe { memory.cast::<*mut u8>().write_unaligned(self.ready.get()) };
        self.ready.set(memory);
        self.ready_len.set(self.ready_len.get() + 1);
        self.entered.set(self.entered.get() + 1);
    }

    /// Puts a whole chain of `layout` whose pins have cleared on the ready chain, if that is the
    /// chains' layout and the ready chain stays within `keep` boxes; else hands it back.
    pub(super) fn make_all_ready(
        &self,
        layout: Layout,
        chain: Chain,
        keep: usize,
    ) -> Result<(), Chain> {
        if !self.holds(layout) || self.ready_len.get() + chain.len > keep {
            return Err(chain);
        }
        if chain.len > 0 {
            // SAFETY: `chain.tail` is its last box (the invariant), at least a pointer long.
            unsafe { chain.tail.cast::<*mut u8>().write_unaligned(self.ready.get()) };
            self.ready.set(chain.head);
            self.ready_len.set(self.ready_len.get() + chain.len);
            self.entered.set(self.entered.get() + chain.len as u64);
        }
        Ok(())
    }

    /// Puts the boxes of `memories`, all of `layout` and past their pins, on the ready chain,
    /// as many as fit within `keep` ready boxes, and returns how many it took (from the front;
    /// none if `layout` is not the chains'). One store per box, its link: the chain's head
    /// and counts are written once, so that the store buffer holds more of the link writes,
    /// which miss when a thief on another core last touched the box (a block that came home).
    ///
    /// # Safety
    /// Every box of `memories` meets [`Chain`]'s invariant but for its link, for `layout`, and
    /// no thread may still compare against its address.
    pub(super) unsafe fn make_block_ready(
        &self,
        layout: Layout,
        memories: &[*mut u8],
        keep: usize,
    ) -> usize {
        if !self.holds(layout) {
            return 0;
        }
        let n = memories.len().min(keep.saturating_sub(self.ready_len.get()));
        let mut head = self.ready.get();
        for &m in &memories[..n] {
            // SAFETY: at least a pointer long and empty (caller); unaligned, as in `keep`.
            unsafe { m.cast::<*mut u8>().write_unaligned(head) };
            head = m;
        }
        self.ready.set(head);
        self.ready_len.set(self.ready_len.get() + n);
        self.entered.set(self.entered.get() + n as u64);
        n
    }

    /// Stops the fast path (the thread's limbo is gone): frees the ready boxes and returns the
    /// layout and the open chain.
    pub(super) fn close(&self) -> (Layout, Chain) {
        let (layout, open) = self.take_open();
        let mut ready = self.ready.replace(null_mut());
        // Freed, not reused: the count starts again from none ready.
        self.ready_len.set(0);
        self.entered.set(0);
        while !ready.is_null() {
            // SAFETY: the invariant: a ready box holds the next one's address, is of `layout`,
            // from the global allocator, empty, the chain's alone, and past its pins.
            unsafe {
                let next = ready.cast::<*mut u8>().read_unaligned();
                std::alloc::dealloc(ready, layout);
                ready = next;
            }
        }
        self.layout.set(Fast::NONE);
        self.key.set(key(Fast::NONE));
        (layout, open)
    }
}

/// The largest box size the chains take: [`key`] keeps 58 bits for the size.
const MAX_SIZE: usize = (1 << 58) - 1;

/// A layout as one word: the size above, the alignment's power of two in the low 6 bits. One
/// layout, one key, for every size up to [`MAX_SIZE`]; a larger one gets a key that no chain
/// holds (its alignment bits would say 2^63), so no box of the chains' layout is ever handed
/// out for it. A compile-time constant for a `T`'s layout, once inlined.
#[inline(always)]
const fn key(layout: Layout) -> u64 {
    if layout.size() > MAX_SIZE {
        return u64::MAX;
    }
    ((layout.size() as u64) << 6) | layout.align().trailing_zeros() as u64
}

thread_local! {
    /// This thread's chains. `const` and without a destructor: the cheapest thread-local there
    /// is. The thread's limbo empties them when it drops (see `limbo`).
    pub(super) static FAST: Fast = const { Fast::new() };
}

#[cfg(test)]
mod tests {
    use std::alloc::Layout;

    use super::{MAX_SIZE, key};

    /// Two layouts share a key only when they are equal, and a layout too large for the chains
    /// matches none that a chain can hold.
    #[test]
    fn a_key_names_one_layout() {
        let layouts: Vec<Layout> = [(8, 8), (8, 4), (16, 8), (24, 8), (16, 16), (8, 1), (9, 1)]
            .into_iter()
            .map(|(size, align)| Layout::from_size_align(size, align).unwrap())
            .collect();
        for a in &layouts {
            for b in &layouts {
                assert_eq!(key(*a) == key(*b), a == b, "{a:?} and {b:?}");
            }
        }
        let huge = Layout::from_size_align(MAX_SIZE + 1 + 8, 8).unwrap();
        assert_eq!(key(huge), u64::MAX, "too large for a chain");
        assert_ne!(key(huge), key(Layout::new::<u64>()), "the shifted size would have matched");
    }
}
