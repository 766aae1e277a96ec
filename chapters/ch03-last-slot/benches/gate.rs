//! The grader's benchmark gate for chapter 3: the reader's owner take against the reference,
//! alternating, in the same run (see chapters/ch01-ring/benches/gate.rs). The workload
//! pushes a batch and takes it back, half FIFO and half LIFO, so both paths and the
//! last-slot branch run.

use std::hint::black_box;

use ch03_last_slot::exercise::Exercise;
use ch03_last_slot::{Reference, TakeOps, new_with};
use criterion::BenchmarkGroup;
use criterion::measurement::WallTime;

fn workload<O: TakeOps>(g: &mut BenchmarkGroup<'_, WallTime>, id: &str) {
    let (owner, _stealer) = new_with::<u64, O>(1024);
    g.bench_function(id, |b| {
        b.iter(|| {
            for i in 0..512 {
                owner.push(black_box(i)).unwrap();
            }
            let mut sum = 0;
            for _ in 0..256 {
                sum += owner.poll_fifo().unwrap();
            }
            while let Some(t) = owner.pop() {
                sum += t;
            }
            sum
        })
    });
}

seam::gate!();
