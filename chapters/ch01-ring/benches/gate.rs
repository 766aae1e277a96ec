//! The grader's benchmark gate: the reader's mechanism timed against the reference
//! in the same run, on the same workload. `cargo grade ch01` reads the two means from
//! criterion's output and compares their ratio with the limit in `grader`.
//!
//! The workload starts from a 2-slot ring, so growth is part of it, and moves the
//! indices near `i32::MAX` so they wrap during the run.

use std::hint::black_box;

use ch01_ring::exercise::Exercise;
use ch01_ring::{Reference, Ring, RingOps};
use criterion::{Criterion, criterion_group, criterion_main};

const TASKS: u64 = 4096;

fn workload<O: RingOps>() -> u64 {
    let mut ring: Ring<u64, O> = Ring::with_ops(2, 1 << 16).starting_at(i32::MAX - 1000);
    let mut sum = 0;
    for round in 0..4 {
        for i in 0..TASKS {
            ring.push(black_box(i)).unwrap();
        }
        for _ in 0..TASKS / 2 {
            sum += ring.next_local_task(round % 2 == 0).unwrap();
        }
        while let Some(t) = ring.pop() {
            sum += t;
        }
    }
    sum
}

fn gate(c: &mut Criterion) {
    // Each side runs twice, alternating, and the grader keeps the faster run of each:
    // whichever goes first on a busy machine otherwise pays for the warm-up of both.
    let mut g = c.benchmark_group("gate");
    for round in 1..=2 {
        g.bench_function(format!("reference-{round}"), |b| b.iter(workload::<Reference>));
        g.bench_function(format!("exercise-{round}"), |b| b.iter(workload::<Exercise>));
    }
    g.finish();
}

criterion_group!(benches, gate);
criterion_main!(benches);
