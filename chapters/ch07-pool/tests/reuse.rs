//! The task boxes come back with more workers than cores. A test binary of its own: the box
//! counts are process-wide, and no other test may push meanwhile.
#![cfg(not(loom))]

use ch07_pool::{ThreadPool, fib};
use reclaim::BoxCounts;

/// 16 workers on however few cores, fib(30) (1.3 million forks): at least nine boxes in ten are
/// recycled (each new worker allocates its first few batches; the rest come back). With one
/// global epoch, which a worker descheduled while pinned holds for everyone, most came from
/// `malloc` on 2 cores; a `seal` that never recycles fails this (tried). And the boxes that
/// thieves take from a worker's queue go back to that worker (the queue's home, chapter 2's
/// `take_sending_box_home`): a scan that steals without the queue's home fails this (a mutant).
#[test]
fn boxes_are_recycled_with_more_workers_than_cores() {
    let before = BoxCounts::now();
    let pool: ThreadPool = ThreadPool::new(16);
    let (v, _) = pool.join(|| fib(30), || ());
    assert_eq!(v, 832_040);
    pool.shutdown(); // the workers exit: their counts are in the totals
    let boxes = BoxCounts::now().since(before);
    assert!(boxes.reused + boxes.allocated >= 1_300_000, "every fork pushes a box: {boxes:?}");
    assert!(boxes.reuse_ratio() >= 0.9, "too few boxes recycled: {boxes:?}");
    // About a hundred steals from the workers' queues per run here; each sends a box home.
    assert!(boxes.sent_home > 0, "no stolen box was sent back to its worker: {boxes:?}");
}
