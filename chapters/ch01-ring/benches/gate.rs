//! The grader's benchmark gate: the reader's mechanism timed against the reference
//! in the same run, on the same workload. `cargo grade ch01` reads the two means from
//! criterion's output and compares their ratio with the limit in `grader`.
//!
//! The workload starts from a 2-slot ring, so growth is part of it, and moves the
//! indices near `i32::MAX` so they wrap during the run.

use std::hint::black_box;

use ch01_ring::exercise::Exercise;
use ch01_ring::{Reference, Ring, RingOps};
use criterion::BenchmarkGroup;
use criterion::measurement::WallTime;

const TASKS: u64 = 4096;

fn workload<O: RingOps>(g: &mut BenchmarkGroup<'_, WallTime>, id: &str) {
    g.bench_function(id, |b| b.iter(run::<O>));
}

fn run<O: RingOps>() -> u64 {
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

seam::gate!();
