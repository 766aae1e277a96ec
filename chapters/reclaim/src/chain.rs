//! A list of empty boxes threaded through the boxes themselves: each holds the address of the
//! next in its first word, so that a list costs no memory of its own and joins another in one
//! step. The thread's fast path keeps two of them (`fast.rs`); a sealed batch is one
//! (`batch.rs`).

use std::alloc::Layout;
use std::ptr::null_mut;

/// Boxes of one layout, linked through their first word, newest first.
///
/// Invariant: every box on the chain came from the global allocator, holds no value (its task
/// was moved out), is at least a pointer long (see `Fast::adopt`), belongs to no one but the
/// chain, and holds the address of the next box (null after the last) in its first bytes.
/// The fields are the crate's, for the thread's fast path (`fast.rs`), which keeps its two
/// lists in `Cell`s of their own and makes or joins a whole chain from them; whoever writes
/// them keeps the invariant.
pub(crate) struct Chain {
    pub(crate) head: *mut u8,
    /// The last box, so that a whole chain joins another in one step (`Fast::make_all_ready`).
    pub(crate) tail: *mut u8,
    pub(crate) len: usize,
}

impl Chain {
    pub(crate) const EMPTY: Chain = Chain { head: null_mut(), tail: null_mut(), len: 0 };

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Takes the newest box off the chain.
    pub(crate) fn pop(&mut self) -> Option<*mut u8> {
        let m = self.head;
        if m.is_null() {
            return None;
        }
        // SAFETY: the invariant: a box on the chain holds the next one's address.
        self.head = unsafe { m.cast::<*mut u8>().read_unaligned() };
        if self.head.is_null() {
            self.tail = null_mut();
        }
        self.len -= 1;
        Some(m)
    }

    /// Puts a box on the chain, newest first.
    ///
    /// # Safety
    /// `memory` meets the chain's invariant but for its link: from the global allocator with
    /// the chain's layout, at least a pointer long, empty, and handed to the chain.
    pub(crate) unsafe fn push(&mut self, memory: *mut u8) {
        // SAFETY: at least a pointer long and empty (caller); unaligned, since a layout of
        // pointer size may have a smaller alignment.
        unsafe { memory.cast::<*mut u8>().write_unaligned(self.head) };
        if self.head.is_null() {
            self.tail = memory;
        }
        self.head = memory;
        self.len += 1;
    }

    /// Gives every box back to the allocator.
    ///
    /// # Safety
    /// The chain's boxes are of `layout`, and no thread may still compare against their addresses
    /// (their pins have cleared, or they were never in a slot since).
    pub(crate) unsafe fn free(mut self, layout: Layout) {
        while let Some(m) = self.pop() {
            // SAFETY: from the global allocator with `layout` (caller), empty, the chain's alone.
            unsafe { std::alloc::dealloc(m, layout) };
        }
    }
}
