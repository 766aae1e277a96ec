//! The owner's FIFO take beside crossbeam-deque's FIFO `Worker`, in the same run: push a
//! batch, take it all back oldest first (the last task through the last-slot branch).
//!
//! Quick run: `cargo bench -p ch03-last-slot --bench take -- --warm-up-time 1 --measurement-time 2`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use crossbeam_deque::Worker;

const BATCH: u64 = 256;

fn fifo_push_take(c: &mut Criterion) {
    let mut g = c.benchmark_group("owner_fifo_push_take");
    g.throughput(Throughput::Elements(2 * BATCH));
    let (owner, _stealer) = ch03_last_slot::new::<u64>(1024);
    seam::batch_bench!(g, "ch03 Owner", BATCH, |i| owner.push(black_box(i)).unwrap(), || owner
        .poll_fifo());
    let worker = Worker::new_fifo();
    seam::batch_bench!(g, "crossbeam Worker", BATCH, |i| worker.push(black_box(i)), || worker
        .pop());
    g.finish();
}

criterion_group!(benches, fifo_push_take);
criterion_main!(benches);
