//! Loom models of the steal accounting (`LOOM_MAX_PREEMPTIONS=3`): a worker retires while
//! another thread reads the pool's count. Only the accounting is compiled under loom; the pool
//! around it is chapter 7's to model.
//!
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=3 cargo test -p ch06-nsteals --release --test loom`
#![cfg(loom)]

use ch06_nsteals::StealOps;
use ch06_nsteals::sync::{AtomicU32, AtomicU64};
use crossbeam_utils::CachePadded;
use loom::sync::Arc;
use loom::thread;

/// The counters of a pool of four queues (0 and 2 submission queues, 1 and 3 workers) and its
/// total, all zero, shared with the model's threads.
fn counters() -> (Arc<Vec<CachePadded<AtomicU32>>>, Arc<AtomicU64>) {
    let nsteals = (0..4).map(|_| CachePadded::new(AtomicU32::new(0))).collect();
    (Arc::new(nsteals), Arc::new(AtomicU64::new(0)))
}

/// Worker 1 has stolen twice and retires while another thread reads the pool's count. The
/// count may miss the two steals for a moment (an undercount, as the JDK's), but must never
/// hold them twice, from the pool's total and from the worker's counter, and after the
/// retirement it is exact. Adding before zeroing, reading the workers before the total, or a
/// Release on the zeroing instead of the add (so that a reader seeing the new total may still
/// read the old counter) each let a reader return 4.
fn a_retiring_count_is_never_seen_twice<S: StealOps + 'static>() {
    ch06_nsteals::sync::model(|| {
        let (nsteals, steal_count) = counters(); // worker 1 retires; worker 3 stays
        S::count_take(&nsteals[1], 3, 1); // two steals from worker 3's queue
        S::count_take(&nsteals[1], 3, 1);
        let worker = {
            let (nsteals, steal_count) = (nsteals.clone(), steal_count.clone());
            thread::spawn(move || S::retire(&nsteals[1], &steal_count))
        };
        let seen = S::get_steal_count(&steal_count, &nsteals);
        assert!(seen <= 2, "read {seen} while a worker with 2 steals retired: counted twice");
        worker.join().unwrap();
        let after = S::get_steal_count(&steal_count, &nsteals);
        assert_eq!(after, 2, "the count once the worker with 2 steals had retired");
    });
}

/// Workers 1 and 3 retire at once, as at shutdown, with two steals and one: the pool's total
/// has two writers, and must end at 3. A load and a store of the total (the single-writer
/// shortcut of `count_take`, copied) lets both read 0 before either writes: one count is lost.
fn two_workers_retiring_at_once_lose_nothing<S: StealOps + 'static>() {
    ch06_nsteals::sync::model(|| {
        let (nsteals, steal_count) = counters();
        S::count_take(&nsteals[1], 3, 1); // worker 1: two steals from worker 3's queue
        S::count_take(&nsteals[1], 3, 1);
        S::count_take(&nsteals[3], 1, 3); // worker 3: one from worker 1's
        let retiring: Vec<_> = [1, 3]
            .into_iter()
            .map(|w| {
                let (nsteals, steal_count) = (nsteals.clone(), steal_count.clone());
                thread::spawn(move || S::retire(&nsteals[w], &steal_count))
            })
            .collect();
        for r in retiring {
            r.join().unwrap();
        }
        let after = S::get_steal_count(&steal_count, &nsteals);
        assert_eq!(after, 3, "the count once both workers had retired (2 + 1 steals)");
    });
}

seam::tests!(
    ch06_nsteals;
    a_retiring_count_is_never_seen_twice,
    two_workers_retiring_at_once_lose_nothing,
);
