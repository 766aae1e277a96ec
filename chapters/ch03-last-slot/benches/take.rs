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
    g.bench_function("ch03 Owner", |b| {
        b.iter(|| {
            for i in 0..BATCH {
                owner.push(black_box(i)).unwrap();
            }
            while let Some(t) = owner.poll_fifo() {
                black_box(t);
            }
        })
    });
    let worker = Worker::new_fifo();
    g.bench_function("crossbeam Worker", |b| {
        b.iter(|| {
            for i in 0..BATCH {
                worker.push(black_box(i));
            }
            while let Some(t) = worker.pop() {
                black_box(t);
            }
        })
    });
    g.finish();
}

criterion_group!(benches, fifo_push_take);
criterion_main!(benches);
