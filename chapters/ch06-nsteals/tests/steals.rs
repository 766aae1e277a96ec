//! Tests of the steal accounting, run against the reference (`reference::`) and, with the
//! grader's `--features exercise`, the reader's (`exercise::`). The pool keeps a ground truth
//! (one shared SeqCst counter, bumped at every steal before the worker's own count) to compare
//! `get_steal_count` with.
#![cfg(not(loom))]

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize};
use std::time::{Duration, Instant};

use ch06_nsteals::{Pool, StealOps, fork};
use crossbeam_utils::CachePadded;

fn counters(values: &[u32]) -> Vec<CachePadded<AtomicU32>> {
    values.iter().map(|&v| CachePadded::new(AtomicU32::new(v))).collect()
}

fn the_sum_is_over_workers_only<S: StealOps>() {
    // Index 0, 2, 4: submission queues (nothing to count); 1, 3, 5: workers.
    let nsteals = counters(&[100, 1, 200, 2, 300, 3]);
    let pool_count = AtomicU64::new(10);
    assert_eq!(S::get_steal_count(&pool_count, &nsteals), 16, "10 + 1 + 2 + 3, odd indices only");
    let big = counters(&[0, u32::MAX, 0, u32::MAX]);
    assert_eq!(
        S::get_steal_count(&AtomicU64::new(0), &big),
        2 * u64::from(u32::MAX),
        "each count is read unsigned, and the sum does not wrap"
    );
}

fn count_take_counts_other_queues_only<S: StealOps>() {
    let nsteals = AtomicU32::new(0);
    S::count_take(&nsteals, 3, 3);
    assert_eq!(nsteals.load(Relaxed), 0, "a task from the worker's own queue is not a steal");
    S::count_take(&nsteals, 0, 3); // a submission queue
    S::count_take(&nsteals, 5, 3); // another worker
    assert_eq!(nsteals.load(Relaxed), 2);
}

fn retire_moves_the_count<S: StealOps>() {
    let (nsteals, pool_count) = (AtomicU32::new(7), AtomicU64::new(5));
    S::retire(&nsteals, &pool_count);
    assert_eq!((nsteals.load(Relaxed), pool_count.load(Relaxed)), (0, 12), "moved, not copied");
}

fn own_pops_are_not_steals<S: StealOps>() {
    // One worker: the root is taken from a submission queue (a steal); the 100 tasks it forks
    // go to the worker's own queue, and nobody else can take them.
    let pool: Pool<S> = Pool::with_ground_truth(1);
    pool.submit(|| {
        for _ in 0..100 {
            fork(|| {}).unwrap_or_else(|_| panic!("inside a task, fork reaches the worker"));
        }
    });
    pool.wait_quiescent();
    assert_eq!(pool.ground_truth(), Some(1));
    assert_eq!(
        pool.get_steal_count(),
        1,
        "the root was stolen; its forks were popped by the owner"
    );
}

fn exact_when_quiescent_and_after_shutdown<S: StealOps>() {
    let pool: Pool<S> = Pool::with_ground_truth(2);
    for _ in 0..500 {
        pool.submit(|| {
            for _ in 0..20 {
                let _ = fork(|| {
                    std::hint::black_box((0..200).sum::<u64>());
                });
            }
        });
    }
    pool.wait_quiescent();
    let truth = pool.ground_truth().unwrap();
    assert!(truth >= 500, "every root came from a submission queue: {truth}");
    assert_eq!(pool.get_steal_count(), truth, "quiescent: exact");
    assert_eq!(
        pool.shutdown(),
        truth,
        "after the workers exit, their counts live on in the pool's"
    );
}

/// While the pool is busy, `get_steal_count` reads each worker's counter at a different moment
/// while they keep counting: it lags the ground truth, never leads it. Sampled 20,000 times
/// during 200,000 steals, it must never exceed the truth read right after it, and must fall
/// short at least once; once quiescent, it is exact.
fn underestimates_while_busy<S: StealOps + 'static>() {
    let pool: Arc<Pool<S>> = Arc::new(Pool::with_ground_truth(2));
    let submitting = Arc::new(AtomicBool::new(true));
    let submitter = {
        let (pool, submitting) = (pool.clone(), submitting.clone());
        std::thread::spawn(move || {
            for _ in 0..200_000 {
                pool.submit(|| {
                    let _ = fork(|| {}); // popped by its owner, or stolen
                });
            }
            submitting.store(false, Relaxed); // Relaxed: only ends the sampling loop
        })
    };
    let (mut samples, mut short) = (0, 0);
    let t0 = Instant::now();
    while (submitting.load(Relaxed) || samples < 20_000) && t0.elapsed() < Duration::from_secs(30) {
        let counted = pool.get_steal_count();
        let truth = pool.ground_truth().unwrap();
        assert!(counted <= truth, "counted {counted} steals, but only {truth} happened");
        short += usize::from(counted < truth);
        samples += 1;
    }
    submitter.join().unwrap();
    pool.wait_quiescent();
    assert_eq!(pool.get_steal_count(), pool.ground_truth().unwrap(), "quiescent: exact");
    assert!(short > 0, "in {samples} samples taken while busy, the count never lagged");
}

fn a_panicking_task_leaves_the_pool_working<S: StealOps>() {
    let pool: Pool<S> = Pool::with_ground_truth(2);
    let ran = Arc::new(AtomicUsize::new(0));
    pool.submit(|| panic!("a task that fails (this message is expected in the test output)"));
    for _ in 0..100 {
        let ran = ran.clone();
        pool.submit(move || {
            ran.fetch_add(1, Relaxed);
        });
    }
    pool.wait_quiescent();
    assert_eq!((pool.panics(), ran.load(Relaxed)), (1, 100));
    assert_eq!(pool.get_steal_count(), pool.ground_truth().unwrap());
}

seam::tests!(
    ch06_nsteals;
    the_sum_is_over_workers_only,
    count_take_counts_other_queues_only,
    retire_moves_the_count,
    own_pops_are_not_steals,
    exact_when_quiescent_and_after_shutdown,
    underestimates_while_busy,
    a_panicking_task_leaves_the_pool_working,
);
