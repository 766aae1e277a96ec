//! What a thread's limbo (`limbo/`) holds: the memory of taken tasks, one [`Garbage`] each,
//! or a [`Block`] of them as a thief sent them home, sealed into batches that wait for their
//! pins ([`Sealed`]); and the batches left by threads that exited before those pins cleared
//! ([`ORPHANS`]), which any later seal frees.

use std::alloc::Layout;
use std::sync::Mutex;

use crate::chain::Chain;
use crate::pins::Pinned;

/// Memory of a taken task (the task moved out): an address and its layout.
pub(crate) struct Garbage {
    /// From the global allocator (through `boxed`); holds no value.
    pub(crate) memory: *mut u8,
    /// Its task's layout: never zero-sized (`boxed` refuses those).
    pub(crate) layout: Layout,
}

// SAFETY: a `Garbage` is an address and a layout; the memory it names is owned by no one
// else (its task was moved out), so it may move to another thread (a batch left by an
// exited thread, a box sent home), which reuses or frees it once.
unsafe impl Send for Garbage {}

impl Garbage {
    /// # Safety
    /// The memory came from the global allocator with `layout`, holds no value, and no one
    /// else holds it.
    pub(crate) unsafe fn free(self) {
        // SAFETY: as above; the layout is not zero-sized, so this is a real allocation.
        unsafe { std::alloc::dealloc(self.memory, self.layout) }
    }
}

/// Boxes of one layout that a thief took from one home and sends there together (`outbox.rs`):
/// a vector of addresses moves from the thief's outbox to the home's inbox, and on into a batch,
/// without being copied.
pub(crate) struct Block {
    /// The boxes' layout: never zero-sized.
    pub(crate) layout: Layout,
    /// Each from the global allocator with `layout`, holding no value, owned by this block.
    pub(crate) boxes: Vec<*mut u8>,
}

// SAFETY: as `Garbage`, for each address.
unsafe impl Send for Block {}

impl Block {
    /// # Safety
    /// As [`Garbage::free`], for every box of the block.
    pub(crate) unsafe fn free(self) {
        for memory in self.boxes {
            // SAFETY: the caller's contract, box by box.
            unsafe { Garbage { memory, layout: self.layout }.free() };
        }
    }
}

/// A sealed batch and the pins it waits for: boxes of the thread's main layout in a chain
/// (`chain.rs`), the blocks that came home, and any others in a vector.
pub(crate) struct Sealed {
    pub(crate) pinned: Pinned,
    pub(crate) boxes: Vec<Garbage>,
    pub(crate) blocks: Vec<Block>,
    pub(crate) chain: (Layout, Chain),
}

// SAFETY: as `Garbage`: the boxes a batch names are owned by no one else and hold no value, so
// the batch may move to another thread (an exited thread's orphans), which frees them once.
unsafe impl Send for Sealed {}

/// Batches left by threads that exited before their pins cleared; any later seal frees the
/// ones that have.
pub(crate) static ORPHANS: Mutex<Vec<Sealed>> = Mutex::new(Vec::new());

/// Frees the orphaned batches whose pins have cleared (skipped when another thread is
/// at it: the next seal will look again).
pub(crate) fn free_orphans() {
    let Ok(mut orphans) = ORPHANS.try_lock() else { return };
    orphans.retain_mut(|b| {
        if !b.pinned.passed() {
            return true;
        }
        for g in b.boxes.drain(..) {
            // SAFETY: its pins have cleared, it holds no value, and only this batch had it.
            unsafe { g.free() };
        }
        for block in b.blocks.drain(..) {
            // SAFETY: as above, for each box of the block.
            unsafe { block.free() };
        }
        let (layout, chain) = std::mem::replace(&mut b.chain, (Layout::new::<()>(), Chain::EMPTY));
        // SAFETY: as above, for each box of the chain, all of `layout`.
        unsafe { chain.free(layout) };
        false
    });
}
