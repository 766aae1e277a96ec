//! The article's workload, 64 root tasks each forking 256 leaves and joining them oldest
//! first, in each shape the probes and benchmarks run it: one place for the code that
//! `forkjoin-steals` times and `benches/fork_join.rs` gives criterion, so that the two measure
//! the same thing. Each function runs the workload once on a pool it is given and returns the
//! xor of the leaves' results (for `black_box`).
//!
//! - [`ours_submitted`]: the article's shape, which the JDK probe
//!   (`probes/jdk/StealExperiment.java`) runs too: the calling thread submits the 64 roots from
//!   outside the pool and joins each in turn, parking on each one not yet done.
//! - [`ours_inside`]: rayon's shape on our pool: one `ThreadPool::join` whose task forks the
//!   64 roots and joins them inside the pool, so that the calling thread blocks once.
//! - [`rayon_scoped`]: rayon, a scope of 64 roots, each a scope spawning one task per leaf
//!   (not a parallel iterator, which would split the leaves into a few chunks).
//!
//! The first shape differs from the other two by the calling thread's waits: up to 64 parks
//! and wake-ups against one. How much that weighs depends on the leaf and the machine, so it is
//! measured, not assumed: the lab's empty-leaf table and `benches/fork_join.rs` run both of
//! our shapes beside rayon's (their figures, labelled, are on the contention page and ch07's).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use ch07_pool::{ThreadPool, fork};

/// A leaf: its result from a work size. Generic (a function item, not a pointer), so that each
/// pool's code calls the same leaf directly.
pub trait Leaf: Fn(u64) -> u64 + Copy + Send + Sync + 'static {}
impl<L: Fn(u64) -> u64 + Copy + Send + Sync + 'static> Leaf for L {}

/// Root tasks.
pub const ROOTS: usize = 64;
/// Leaves per root.
pub const LEAVES: usize = 256;

/// One root on our pool: forks its leaves, then joins them oldest first (the article's order).
fn root<L: Leaf>(leaf: L, n: u64) -> u64 {
    let leaves: Vec<_> = (0..LEAVES).map(|_| fork(move || leaf(n)).unwrap()).collect();
    leaves.into_iter().map(|h| h.join().unwrap()).fold(0, |a, b| a ^ b)
}

/// The article's shape: the roots submitted from outside `pool` and joined from outside.
pub fn ours_submitted<L: Leaf>(pool: &ThreadPool, leaf: L, n: u64) -> u64 {
    let roots: Vec<_> = (0..ROOTS).map(|_| pool.submit(move || root(leaf, n)).unwrap()).collect();
    roots.into_iter().map(|h| h.join().unwrap()).fold(0, |a, b| a ^ b)
}

/// rayon's shape on our pool: the roots forked and joined inside one `pool.join`.
pub fn ours_inside<L: Leaf>(pool: &ThreadPool, leaf: L, n: u64) -> u64 {
    let (x, ()) = pool.join(
        move || {
            let roots: Vec<_> = (0..ROOTS).map(|_| fork(move || root(leaf, n)).unwrap()).collect();
            roots.into_iter().map(|h| h.join().unwrap()).fold(0, |a, b| a ^ b)
        },
        || (),
    );
    x
}

/// rayon: a scope of the roots, each a scope spawning one task per leaf.
pub fn rayon_scoped<L: Leaf>(pool: &rayon::ThreadPool, leaf: L, n: u64) -> u64 {
    let x = AtomicU64::new(0);
    pool.install(|| {
        rayon::scope(|roots| {
            for _ in 0..ROOTS {
                roots.spawn(|_| {
                    let mut leaves = vec![0u64; LEAVES];
                    rayon::scope(|s| {
                        for slot in leaves.iter_mut() {
                            s.spawn(move |_| *slot = leaf(n));
                        }
                    });
                    // Relaxed: a checksum, read after the scope has joined everything.
                    x.fetch_xor(leaves.into_iter().fold(0, |a, b| a ^ b), Ordering::Relaxed);
                });
            }
        })
    });
    x.into_inner()
}

/// fib(n) with no cutoff on rayon, one `rayon::join` per call: the peer of `ch07_pool::fib`.
pub fn fib_rayon(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

/// A rayon pool whose drop waits until its threads have exited, as our pool's `shutdown`
/// joins its workers. A dropped `rayon::ThreadPool` only tells its threads to stop: they
/// finish their idle rounds and exit on their own, while the next timed run (our pool's, when
/// the two alternate) already competes with them for the cores. (On the lab's 2-core Intel
/// Xeon, 2026-12-06, that left ours' fib(30) at two workers up to 11% slower by the median
/// than in runs with no rayon pool before them, with a slowest run up to twice its fastest.)
pub struct RayonPool {
    pool: Option<rayon::ThreadPool>,
    /// Threads that have exited, and a wake-up for the drop that waits for all of them.
    exited: Arc<(Mutex<usize>, Condvar)>,
}

impl RayonPool {
    /// A pool of `threads` threads.
    pub fn new(threads: usize) -> RayonPool {
        let exited = Arc::new((Mutex::new(0), Condvar::new()));
        let seen = exited.clone();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            // Named, as ours' workers are (`ch07-worker-N`): a profile tells the two apart.
            .thread_name(|i| format!("rayon-{i}"))
            .exit_handler(move |_| {
                let (count, cv) = &*seen;
                *count.lock().unwrap_or_else(PoisonError::into_inner) += 1;
                cv.notify_all();
            })
            .build()
            .expect("a rayon pool");
        RayonPool { pool: Some(pool), exited }
    }
}

impl std::ops::Deref for RayonPool {
    type Target = rayon::ThreadPool;
    fn deref(&self) -> &rayon::ThreadPool {
        self.pool.as_ref().expect("until dropped")
    }
}

impl Drop for RayonPool {
    fn drop(&mut self) {
        let Some(pool) = self.pool.take() else { return };
        let threads = pool.current_num_threads();
        drop(pool);
        let (count, cv) = &*self.exited;
        let all = cv.wait_timeout_while(
            count.lock().unwrap_or_else(PoisonError::into_inner),
            Duration::from_secs(10),
            |n| *n < threads,
        );
        if all.map_or(true, |(_, t)| t.timed_out()) {
            eprintln!("roots: a rayon pool's threads did not all exit within 10 s; going on");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The drop returns only once every thread of the pool has exited.
    #[test]
    fn a_dropped_rayon_pool_has_no_thread_left() {
        let pool = RayonPool::new(3);
        assert_eq!(pool.install(|| fib_rayon(10)), 55);
        let exited = pool.exited.clone();
        drop(pool);
        assert_eq!(*exited.0.lock().unwrap(), 3, "threads still running after the drop");
    }
}
