//! How many boxes were recycled, allocated and sent home: each thread's counts, added to the
//! process's totals every batch and when it exits.

#[cfg(not(loom))]
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// How many boxes [`boxed`](crate::boxed) and the owners' spares (chapter 4) have handed out
/// since the program started, recycled and from the allocator. Each thread adds its counts
/// every [`BATCH`](crate::BATCH) takes and when it exits, so the totals are exact once the
/// threads that pushed have exited (a pool after its shutdown), and lag behind before. (Under
/// loom, zeros: nothing is recycled there.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoxCounts {
    pub reused: u64,
    pub allocated: u64,
    /// Of the boxes taken, those a thief sent back to the thread that pushed them
    /// ([`take_sending_box_home`](crate::take_sending_box_home)).
    pub sent_home: u64,
}

impl BoxCounts {
    /// The totals now.
    pub fn now() -> BoxCounts {
        #[cfg(not(loom))]
        let (reused, allocated, sent_home) = totals();
        #[cfg(loom)]
        let (reused, allocated, sent_home) = (0, 0, 0);
        BoxCounts { reused, allocated, sent_home }
    }

    /// The boxes handed out since `earlier`.
    pub fn since(self, earlier: BoxCounts) -> BoxCounts {
        BoxCounts {
            reused: self.reused - earlier.reused,
            allocated: self.allocated - earlier.allocated,
            sent_home: self.sent_home - earlier.sent_home,
        }
    }

    /// The share of boxes that were recycled, 0 to 1 (0 when none were handed out).
    pub fn reuse_ratio(self) -> f64 {
        let all = self.reused + self.allocated;
        if all == 0 { 0.0 } else { self.reused as f64 / all as f64 }
    }
}

/// What every thread has added to its totals so far (see [`BoxCounts`]).
#[cfg(not(loom))]
static REUSED: AtomicU64 = AtomicU64::new(0);
#[cfg(not(loom))]
static ALLOCATED: AtomicU64 = AtomicU64::new(0);
#[cfg(not(loom))]
static SENT_HOME: AtomicU64 = AtomicU64::new(0);

#[cfg(not(loom))]
/// The totals: (reused, allocated, sent home).
fn totals() -> (u64, u64, u64) {
    // Relaxed: statistics; the threads that added them were joined by the caller.
    (REUSED.load(Relaxed), ALLOCATED.load(Relaxed), SENT_HOME.load(Relaxed))
}

/// Adds one thread's counts to the totals.
#[cfg(not(loom))]
pub(crate) fn add(reused: u64, allocated: u64, sent_home: u64) {
    // Relaxed: statistics.
    REUSED.fetch_add(reused, Relaxed);
    ALLOCATED.fetch_add(allocated, Relaxed);
    SENT_HOME.fetch_add(sent_home, Relaxed);
}
