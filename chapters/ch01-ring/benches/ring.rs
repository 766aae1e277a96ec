//! Owner-side cost per operation: our ring beside `VecDeque` and crossbeam-deque's
//! `Worker`, in the same run. Each iteration pushes a batch and takes it all back, on a
//! queue already grown to fit, so what is timed is the steady-state push and pop.
//!
//! Quick run: `cargo bench -p ch01-ring --bench ring -- --warm-up-time 1 --measurement-time 2`

use std::collections::VecDeque;
use std::hint::black_box;

use ch01_ring::Ring;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use crossbeam_deque::Worker;

const BATCH: u64 = 256;

/// One group: `BATCH` pushes then takes until empty, LIFO (`pop`) or FIFO (`poll_fifo`),
/// for the three queues. The mode is fixed per group, so the branch on it predicts perfectly.
fn push_then_take(c: &mut Criterion, fifo: bool) {
    let mut g = c.benchmark_group(if fifo { "push_pop_fifo" } else { "push_pop_lifo" });
    g.throughput(Throughput::Elements(2 * BATCH)); // one push and one take per task
    let mut ring = Ring::new();
    seam::batch_bench!(g, "ch01 Ring", BATCH, |i| ring.push(black_box(i)).unwrap(), || ring
        .next_local_task(fifo));
    let mut deque = VecDeque::with_capacity(BATCH as usize);
    g.bench_function("VecDeque", |b| {
        b.iter(|| {
            for i in 0..BATCH {
                deque.push_back(black_box(i));
            }
            while let Some(t) = if fifo { deque.pop_front() } else { deque.pop_back() } {
                black_box(t);
            }
        })
    });
    let worker = if fifo { Worker::new_fifo() } else { Worker::new_lifo() };
    seam::batch_bench!(g, "crossbeam Worker", BATCH, |i| worker.push(black_box(i)), || worker
        .pop());
    g.finish();
}

fn push_pop(c: &mut Criterion) {
    push_then_take(c, false);
}

fn push_poll_fifo(c: &mut Criterion) {
    push_then_take(c, true);
}

criterion_group!(benches, push_pop, push_poll_fifo);
criterion_main!(benches);
