//! Fork/join beside rayon, in the same run: fib(30) with no cutoff (one join per call,
//! 1.35 million joins), and the article's workload, 64 root tasks each forking 256 leaves.
//!
//! Quick run: `cargo bench -p ch07-pool --bench fork_join -- --warm-up-time 1 --measurement-time 5`

use std::hint::black_box;

use ch07_pool::{ThreadPool, fib, fork};
use criterion::{Criterion, criterion_group, criterion_main};

fn fib_rayon(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

/// One leaf: a loop whose bound the compiler cannot see, so it is not folded away.
fn leaf() -> u64 {
    (0..black_box(1000u64)).fold(0, |s, i| s ^ i.wrapping_mul(0x9e37_79b9))
}

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
    g.bench_function("ch07 ThreadPool", |b| {
        b.iter(|| {
            let roots: Vec<_> = (0..64)
                .map(|_| {
                    pool.submit(|| {
                        let leaves: Vec<_> = (0..256).map(|_| fork(leaf).unwrap()).collect();
                        leaves.into_iter().map(|h| h.join().unwrap()).fold(0, |a, b| a ^ b)
                    })
                    .unwrap()
                })
                .collect();
            roots.into_iter().map(|h| h.join().unwrap()).fold(0, |a, b| a ^ b)
        })
    });
    let rayon = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    g.bench_function("rayon", |b| {
        b.iter(|| {
            rayon.install(|| {
                use rayon::prelude::*;
                (0..64)
                    .into_par_iter()
                    .map(|_| (0..256).into_par_iter().map(|_| leaf()).reduce(|| 0, |a, b| a ^ b))
                    .reduce(|| 0, |a, b| a ^ b)
            })
        })
    });
    g.finish();
}

criterion_group!(benches, fib30, roots_and_leaves);
criterion_main!(benches);
