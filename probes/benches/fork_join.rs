//! Fork/join beside rayon, in the same run, on pools that live for the whole benchmark (the
//! lab's `forkjoin-steals` makes a new pool per run): fib(30) with no cutoff (one join per call,
//! 1.35 million joins), and the article's workload, 64 root tasks each forking 256 leaves of
//! about 1,000 iterations, in the shapes of `probes::roots`: ours as the article runs it (the
//! roots submitted and joined from outside the pool), ours in rayon's shape (inside one
//! `ThreadPool::join`), and rayon (a scope per root, one task per leaf).
//!
//! Quick run: `cargo bench -p probes --bench fork_join -- --warm-up-time 1 --measurement-time 5`

use std::hint::black_box;

use ch07_pool::{ThreadPool, fib};
use criterion::{Criterion, criterion_group, criterion_main};
use probes::roots::{self, fib_rayon};

/// One leaf: a loop whose bound the compiler cannot see, so it is not folded away.
fn leaf(n: u64) -> u64 {
    (0..black_box(n)).fold(0, |s, i| s ^ i.wrapping_mul(0x9e37_79b9))
}

/// The leaf's iterations.
const LEAF: u64 = 1000;

fn fib30(c: &mut Criterion) {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut g = c.benchmark_group("fib30_no_cutoff");
    g.sample_size(10);
    let pool: ThreadPool = ThreadPool::new(threads);
    g.bench_function("ch07 ThreadPool", |b| b.iter(|| pool.join(|| fib(black_box(30)), || 0)));
    let rayon = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    g.bench_function("rayon", |b| b.iter(|| rayon.install(|| fib_rayon(black_box(30)))));
    g.finish();
}

fn roots_and_leaves(c: &mut Criterion) {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut g = c.benchmark_group("64_roots_x_256_leaves");
    g.sample_size(10);
    let pool: ThreadPool = ThreadPool::new(threads);
    g.bench_function("ch07 ThreadPool", |b| b.iter(|| roots::ours_submitted(&pool, leaf, LEAF)));
    g.bench_function("ch07 ThreadPool, one join", |b| {
        b.iter(|| roots::ours_inside(&pool, leaf, LEAF))
    });
    let rayon = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    g.bench_function("rayon", |b| b.iter(|| roots::rayon_scoped(&rayon, leaf, LEAF)));
    g.finish();
}

criterion_group!(benches, fib30, roots_and_leaves);
criterion_main!(benches);
