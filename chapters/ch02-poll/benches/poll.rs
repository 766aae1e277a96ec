//! Per-operation cost of the owner's push+pop and of a single thief's poll, beside
//! crossbeam-deque's `Worker` and `Stealer` in the same run. (The contended run, one owner and
//! 1..4 thieves, is timed by the probes' `benches/contended.rs`.)
//!
//! Quick run: `cargo bench -p ch02-poll --bench poll -- --warm-up-time 1 --measurement-time 2`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use crossbeam_deque::Worker;

const BATCH: u64 = 256;

fn owner_push_pop(c: &mut Criterion) {
    let mut g = c.benchmark_group("owner_push_pop");
    g.throughput(Throughput::Elements(2 * BATCH));
    let (owner, _stealer) = ch02_poll::new::<u64>(1024);
    seam::batch_bench!(g, "ch02 Owner", BATCH, |i| owner.push(black_box(i)).unwrap(), || owner
        .pop());
    let worker = Worker::new_lifo();
    seam::batch_bench!(g, "crossbeam Worker", BATCH, |i| worker.push(black_box(i)), || worker
        .pop());
    g.finish();
}

fn push_then_poll(c: &mut Criterion) {
    let mut g = c.benchmark_group("push_then_poll");
    g.throughput(Throughput::Elements(2 * BATCH));
    let (owner, stealer) = ch02_poll::new::<u64>(1024);
    seam::batch_bench!(
        g,
        "ch02 Owner+Stealer",
        BATCH,
        |i| owner.push(black_box(i)).unwrap(),
        || stealer.poll()
    );
    let worker = Worker::new_lifo();
    let stealer = worker.stealer();
    seam::batch_bench!(g, "crossbeam Worker+Stealer", BATCH, |i| worker.push(black_box(i)), || {
        stealer.steal().success()
    });
    g.finish();
}

criterion_group!(benches, owner_push_pop, push_then_poll);
criterion_main!(benches);
