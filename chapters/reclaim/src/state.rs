//! A task's state: memory that no slot holds. Chapter 7's pool queues a small `Task` in a box
//! of the queue's (the slot's pointer, the one thieves compare), and that `Task` points to the
//! task's state elsewhere: its closure and result slot, shared with the task's handle. No
//! thief ever compares the state's address, so it needs no pin: once its last user is done
//! with it, it may be reused at once.
//!
//! Each thread keeps the states it frees, of one layout (the first it boxes), on a list
//! threaded through the free memory itself, as `chain.rs` keeps the queue's boxes: a fork with
//! a handle then stops calling `malloc` and `free` for its state, as it already had for its
//! queue box. (With glibc 2.36's allocator, a root that forks 256 leaves and then joins them spent
//! about 350 instructions per leaf in `malloc` and `free`, counted by callgrind on 2026-12-05:
//! glibc's per-thread cache keeps 7 blocks of a size, and 256 were in flight.)
//!
//! Not counted in [`crate::BoxCounts`], whose counts are the queue's boxes'.

use std::alloc::Layout;
use std::ptr::NonNull;

/// Moves `value` into memory of its own: a free state of this thread's kept layout when there
/// is one, else a new allocation. Either way the memory is the global allocator's with `T`'s
/// layout, so it may be freed as a `Box<T>`, or handed to [`free_state`].
#[inline]
pub fn boxed_state<T>(value: T) -> NonNull<T> {
    const { assert!(size_of::<T>() > 0, "a task's state is never zero-sized") };
    #[cfg(not(loom))]
    if let Some(m) = cache::reuse(Layout::new::<T>()) {
        let p = m.cast::<T>();
        // SAFETY: a free block of `T`'s layout, this thread's alone, holding no value.
        unsafe { p.write(value) };
        // SAFETY: a block on the list is never null.
        return unsafe { NonNull::new_unchecked(p) };
    }
    NonNull::from(Box::leak(Box::new(value)))
}

/// Drops the value at `p`, then keeps its memory for [`boxed_state`] on this thread, or gives
/// it back to the allocator (another layout, `KEEP` reached, or the thread exiting).
///
/// # Safety
/// `p` came from [`boxed_state`] (or `Box::new`) and holds a live value, no slot has ever held
/// its address, and no one will use it again.
#[inline]
pub unsafe fn free_state<T: ?Sized>(p: *mut T) {
    // SAFETY: live until the drop below (caller).
    let layout = unsafe { Layout::for_value(&*p) };
    // SAFETY: live, and no one else will use it (caller).
    unsafe { std::ptr::drop_in_place(p) };
    #[cfg(not(loom))]
    // SAFETY: from the global allocator with `layout` (caller), emptied above, ours alone.
    if unsafe { cache::keep(p.cast(), layout) } {
        return;
    }
    // SAFETY: as above.
    unsafe { std::alloc::dealloc(p.cast(), layout) };
}

/// The per-thread list (none under loom, whose models free a state at once).
#[cfg(not(loom))]
mod cache {
    use std::alloc::Layout;
    use std::cell::Cell;

    use crate::chain::Chain;

    /// Free states kept per thread; past this many, the allocator gets them back. Enough for the
    /// forks one thread has in flight at once in this course's workloads (a root of 256 leaves).
    const KEEP: usize = 1024;

    /// One thread's free states: a [`Chain`] of the kept layout, as the queue's boxes are kept.
    /// No slot ever held their addresses, so no pin is waited for: a freed state is ready at once.
    struct Spare {
        /// The layout kept: the first one at least a pointer long that this thread boxed, or
        /// `Layout::new::<()>()` before that.
        layout: Cell<Layout>,
        /// Invariant: [`Chain`]'s, for `layout`.
        free: Cell<Chain>,
    }

    /// No layout chosen yet: zero-sized, which `boxed_state` never asks for.
    const NONE: Layout = Layout::new::<()>();

    thread_local! {
        static SPARE: Spare = const {
            Spare { layout: Cell::new(NONE), free: Cell::new(Chain::EMPTY) }
        };
    }

    impl Spare {
        /// Runs `f` on the chain (a `Cell` holds it: moved out and back, no borrow flag).
        #[inline]
        fn with<R>(&self, f: impl FnOnce(&mut Chain) -> R) -> R {
            let mut free = self.free.replace(Chain::EMPTY);
            let r = f(&mut free);
            self.free.set(free);
            r
        }
    }

    impl Drop for Spare {
        /// A thread that exits gives its free states back to the allocator.
        fn drop(&mut self) {
            // SAFETY: the chain's blocks are of `layout`, and no slot ever held their addresses.
            unsafe { self.free.replace(Chain::EMPTY).free(self.layout.get()) };
        }
    }

    /// A free block of `layout`, if this thread keeps that layout and has one. The first layout
    /// asked for that can hold a link becomes the one kept.
    #[inline]
    pub(super) fn reuse(layout: Layout) -> Option<*mut u8> {
        SPARE
            .try_with(|s| {
                if s.layout.get() != layout {
                    if s.layout.get() != NONE || layout.size() < size_of::<*mut u8>() {
                        return None;
                    }
                    s.layout.set(layout);
                }
                s.with(Chain::pop)
            })
            .ok()
            .flatten()
    }

    /// Puts `memory` on this thread's list if it is of the kept layout and there is room; false
    /// when the caller must free it.
    ///
    /// # Safety
    /// `memory` came from the global allocator with `layout`, holds no value, and is the caller's
    /// alone.
    #[inline]
    pub(super) unsafe fn keep(memory: *mut u8, layout: Layout) -> bool {
        SPARE
            .try_with(|s| {
                s.with(|free| {
                    if s.layout.get() != layout || free.len() >= KEEP {
                        return false;
                    }
                    // SAFETY: of the kept layout, at least a pointer long (`reuse` chose it),
                    // empty and ours (caller).
                    unsafe { free.push(memory) };
                    true
                })
            })
            .unwrap_or(false)
    }
}
