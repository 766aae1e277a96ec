//! The system allocator, counting the calls of the threads that asked it to: for the test
//! binaries that check what a thread asks of the allocator (`state.rs`, `blocks.rs`). Each is a
//! binary of its own, so that no other test's thread is counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static FREES: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

// SAFETY: every call goes to `System` unchanged; the counting touches no memory of its own.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCS.fetch_add(1, Relaxed); // Relaxed: read on the counting thread
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if COUNTING.with(Cell::get) {
            FREES.fetch_add(1, Relaxed); // as above
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Starts (`true`) or stops counting this thread's calls.
pub fn counting(on: bool) {
    COUNTING.with(|c| c.set(on));
}

/// (allocations, frees) the counting threads have asked for so far.
pub fn counts() -> (usize, usize) {
    (ALLOCS.load(Relaxed), FREES.load(Relaxed))
}
