//! Joins that borrow: `join_in_task` and `ThreadPool::join` take closures that borrow from the
//! caller's frame (no `'static`), as `rayon::join` does. Sound because neither returns nor
//! unwinds before both sides have run (the argument is on `join_in_task`); these tests would
//! see a frame that escaped: a sum read before its half was written, a panic that reached the
//! caller while the other half was still writing. Run with the reference waiting and waking
//! (`reference::`) and, under the grader, the reader's (`exercise::`).
#![cfg(not(loom))]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::{Acquire, Release};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use ch07_pool::{ThreadPoolWith, WaitOps, join_in_task};

/// Runs `f` on another thread and fails the test if it takes longer than `secs`: a pool that
/// deadlocks must fail, not hang the suite.
fn within(secs: u64, what: &str, f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    rx.recv_timeout(Duration::from_secs(secs)).unwrap_or_else(|_| {
        panic!("{what}: not done after {secs} s (a deadlock, or a panic above)")
    })
}

/// In-place quicksort, the canonical fork/join program: the two halves of one slice, split
/// with `split_at_mut`, sorted in parallel.
pub fn quicksort<T: Ord + Send>(v: &mut [T]) {
    if v.len() <= 64 {
        v.sort_unstable();
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    join_in_task(|| quicksort(lo), || quicksort(&mut hi[1..]));
}

/// Lomuto's partition around the middle element; returns where that element ends up.
fn partition<T: Ord>(v: &mut [T]) -> usize {
    let last = v.len() - 1;
    v.swap(v.len() / 2, last);
    let mut store = 0;
    for i in 0..last {
        if v[i] < v[last] {
            v.swap(i, store);
            store += 1;
        }
    }
    v.swap(store, last);
    store
}

/// 200,000 random `u32`s sorted in place through borrowed joins, at parallelism 1, 2 and 4.
fn a_borrowed_slice_sorts_in_place<I: WaitOps + 'static>() {
    within(60, "quicksort", || {
        let mut rng = 0x9e37_79b9_7f4a_7c15_u64; // xorshift: reproducible, no dependency
        let v: Vec<u32> = (0..200_000)
            .map(|_| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                rng as u32
            })
            .collect();
        let mut expected = v.clone();
        expected.sort_unstable();
        for p in [1, 2, 4] {
            let pool: ThreadPoolWith<I> = ThreadPoolWith::new(p);
            let mut mine = v.clone();
            pool.join(|| quicksort(&mut mine), || ());
            assert!(mine == expected, "parallelism {p}: not sorted");
            pool.shutdown();
        }
    });
}

/// Counts the nodes of a binary tree `depth` levels deep into `out`, each level's two halves
/// writing into slots of their caller's frame.
fn count_into(depth: u32, out: &mut u64) {
    if depth == 0 {
        *out = 1;
        return;
    }
    let (mut left, mut right) = (0, 0);
    join_in_task(|| count_into(depth - 1, &mut left), || count_into(depth - 1, &mut right));
    *out = left + right + 1;
}

/// 2^17 - 1 joins, each reading two sums its halves wrote into its own frame: a join that
/// returned before a stolen half had run would read a 0 there (or crash on a write into a dead
/// frame).
fn nested_borrowed_joins_count_every_node<I: WaitOps + 'static>() {
    within(60, "nested borrowed joins", || {
        for p in [1, 2, 4] {
            let pool: ThreadPoolWith<I> = ThreadPoolWith::new(p);
            let mut nodes = 0;
            pool.join(|| count_into(16, &mut nodes), || ());
            assert_eq!(nodes, (1 << 17) - 1, "parallelism {p}");
            pool.shutdown();
        }
    });
}

/// A join whose forked half was stolen and is still running waits for it: `a` returns only
/// once another worker has started `b` (a handshake, not a hope that a steal happens), and `b`
/// then takes 50 ms before it writes into the caller's frame and returns. A join that returned
/// early would read an empty result slot (or the write would land in a dead frame).
fn a_join_waits_for_its_stolen_half_still_running<I: WaitOps + 'static>() {
    within(60, "a join with a stolen half", || {
        let pool: ThreadPoolWith<I> = ThreadPoolWith::new(2);
        let started = AtomicBool::new(false);
        let mut written = 0u64;
        let ((), rb) = pool
            .join(
                || {
                    join_in_task(
                        || {
                            // Only the other worker can start `b`: it sits in this worker's queue.
                            let deadline = Instant::now() + Duration::from_secs(30);
                            // Acquire: pairs with `b`'s Release (a flag; nothing else is read).
                            while !started.load(Acquire) {
                                assert!(
                                    Instant::now() < deadline,
                                    "no worker stole the forked half"
                                );
                                std::thread::yield_now();
                            }
                        },
                        || {
                            started.store(true, Release); // Release: pairs with `a`'s Acquire
                            std::thread::sleep(Duration::from_millis(50));
                            written = 7;
                            7u64
                        },
                    )
                },
                || (),
            )
            .0;
        assert_eq!(rb, 7, "the stolen half's result");
        assert_eq!(written, 7, "the stolen half's write into the caller's frame");
        pool.shutdown();
    });
}

/// A panic on one side of a borrowed join reaches the caller only after the other side is done
/// with the borrowed data: here the side that does not panic sleeps, then writes. On two
/// workers the forked side is stolen while the other sleeps, so the wait is a real one. The
/// data is intact and the pool works afterwards.
fn a_panic_unwinds_only_after_the_other_side_finished<I: WaitOps + 'static>() {
    within(60, "a panicking borrowed join", || {
        let pool: ThreadPoolWith<I> = ThreadPoolWith::new(2);
        let nap = |ms| std::thread::sleep(Duration::from_millis(ms));
        for forked_panics in [false, true] {
            let mut data = [0u64; 2];
            let (mine, forked) = data.split_at_mut(1);
            let got = catch_unwind(AssertUnwindSafe(|| {
                pool.join(
                    || {
                        join_in_task(
                            || {
                                nap(if forked_panics { 100 } else { 20 });
                                assert!(forked_panics, "expected: the panic of this test");
                                mine[0] = 1;
                            },
                            || {
                                nap(if forked_panics { 20 } else { 100 });
                                assert!(!forked_panics, "expected: the panic of this test");
                                forked[0] = 2;
                            },
                        )
                    },
                    || (),
                )
            }));
            assert!(got.is_err(), "the panic reaches the caller");
            let (wrote, side) = if forked_panics { (data[0], 1) } else { (data[1], 2) };
            assert_eq!(wrote, side, "the other side finished before the panic reached the caller");
        }
        assert_eq!(pool.join(|| 1, || 2), (1, 2), "the pool works afterwards");
        pool.shutdown();
    });
}

seam::tests!(
    ch07_pool;
    a_borrowed_slice_sorts_in_place,
    nested_borrowed_joins_count_every_node,
    a_join_waits_for_its_stolen_half_still_running,
    a_panic_unwinds_only_after_the_other_side_finished,
);
