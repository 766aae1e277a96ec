//! The grader's benchmark gate for chapter 7: the reader's waiting and waking against the
//! reference, alternating, in the same run (see `seam::gate!`). The workload is
//! fib(18) with no cutoff on a 2-worker pool: joins that help, forks that ask the signal rule,
//! and workers that go idle and are woken between runs.

use std::hint::black_box;

use ch07_pool::exercise::Exercise;
use ch07_pool::{Reference, ThreadPoolWith, WaitOps, join_in_task};
use criterion::BenchmarkGroup;
use criterion::measurement::WallTime;

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = join_in_task(move || fib(n - 1), move || fib(n - 2));
    a + b
}

fn workload<I: WaitOps>(g: &mut BenchmarkGroup<'_, WallTime>, id: &str) {
    let pool: ThreadPoolWith<I> = ThreadPoolWith::new(2);
    g.bench_function(id, |b| b.iter(|| pool.join(|| fib(black_box(18)), || 0)));
}

seam::gate!();
