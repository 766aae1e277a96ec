//! Growth under load, beside crossbeam-deque in the same run.
//!
//! - `owner_push_pop_growing`: a fresh queue at the JDK's first capacity (64) takes 4,096
//!   pushes (six doublings) and gives them back; crossbeam's `Worker` does the same (it grows
//!   and also shrinks its buffer).
//! - (`ten_million`, this queue in the contended run with peak heap, is the probes'
//!   `benches/contended.rs`.)
//!
//! Quick run: `cargo bench -p ch04-grow --bench grow -- --warm-up-time 1 --measurement-time 2`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use crossbeam_deque::Worker;

const GROW_BATCH: u64 = 4096;

fn owner_push_pop_growing(c: &mut Criterion) {
    let mut g = c.benchmark_group("owner_push_pop_growing");
    g.throughput(Throughput::Elements(2 * GROW_BATCH));
    g.bench_function("ch04 Owner", |b| {
        b.iter(|| {
            let (owner, _stealer) = ch04_grow::new::<u64>(64);
            for i in 0..GROW_BATCH {
                owner.push(black_box(i)).unwrap();
            }
            while let Some(t) = owner.pop() {
                black_box(t);
            }
        })
    });
    g.bench_function("crossbeam Worker", |b| {
        b.iter(|| {
            let worker = Worker::new_lifo();
            for i in 0..GROW_BATCH {
                worker.push(black_box(i));
            }
            while let Some(t) = worker.pop() {
                black_box(t);
            }
        })
    });
    g.finish();
}

criterion_group!(benches, owner_push_pop_growing);
criterion_main!(benches);
