//! A task's state (`reclaim::boxed_state`, `reclaim::free_state`): which frees reach the
//! allocator. A test binary of its own, for its allocator (`counting/`) counts what the test's
//! thread asks of the allocator, and nothing else.

#![cfg(not(loom))] // under loom a state is freed at once: nothing is kept

mod counting;
use counting::{counting, counts};

/// A freed state is kept by its thread for the next state of the same layout (no call to the
/// allocator either way), and only of that layout: a block kept whatever its layout would one
/// day hold a larger value than it was allocated for.
#[test]
fn a_freed_state_is_reused_for_its_layout_only() {
    #[repr(align(16))]
    struct Other(#[allow(dead_code)] [u64; 8]); // the size of `[u64; 8]`, another layout
    // A thread of its own: its list starts empty, with no layout kept yet.
    std::thread::spawn(|| {
        let kept = reclaim::boxed_state([1u64; 8]); // the first state: its layout is kept
        let other = reclaim::boxed_state(Other([2; 8]));
        counting(true);
        let before = counts();
        // SAFETY: from `boxed_state`, live, never in a slot, and not used again.
        unsafe { reclaim::free_state(other.as_ptr()) };
        assert_eq!(counts().1, before.1 + 1, "a block of another layout was kept, not freed");
        let at = kept.as_ptr();
        let before = counts();
        // SAFETY: as above.
        unsafe { reclaim::free_state(kept.as_ptr()) };
        let again = reclaim::boxed_state([5u64; 8]);
        let after = counts();
        counting(false);
        assert_eq!(after, before, "the freed state was not kept for the next one");
        assert_eq!(again.as_ptr(), at, "the next state is the kept block");
        // SAFETY: `again` is live, written by `boxed_state`.
        assert_eq!(unsafe { *again.as_ptr() }, [5u64; 8]);
        // SAFETY: as above.
        unsafe { reclaim::free_state(again.as_ptr()) };
    })
    .join()
    .expect("the thread");
}
