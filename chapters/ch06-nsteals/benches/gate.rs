//! The grader's benchmark gate for chapter 6: the reader's accounting against the reference,
//! alternating, in the same run (see chapters/ch01-ring/benches/gate.rs). The workload counts
//! 1,000 takes (three quarters of them steals) and sums a 64-slot counter array 100 times.

use std::hint::black_box;
use std::sync::atomic::{AtomicU32, AtomicU64};

use ch06_nsteals::exercise::Exercise;
use ch06_nsteals::{Reference, StealOps};
use criterion::BenchmarkGroup;
use criterion::measurement::WallTime;
use crossbeam_utils::CachePadded;

fn workload<S: StealOps>(g: &mut BenchmarkGroup<'_, WallTime>, id: &str) {
    let nsteals: Vec<CachePadded<AtomicU32>> =
        (0..64).map(|_| CachePadded::new(AtomicU32::new(0))).collect();
    let pool_count = AtomicU64::new(0);
    g.bench_function(id, |b| {
        b.iter(|| {
            for i in 0..1000 {
                S::count_take(&nsteals[3], black_box(i % 4), 3);
            }
            let mut sum = 0;
            for _ in 0..100 {
                sum += S::get_steal_count(&pool_count, black_box(&nsteals));
            }
            S::retire(&nsteals[3], &pool_count);
            sum
        })
    });
}

seam::gate!();
