//! The grader's benchmark gate for chapter 4: the reader's `grow` against the reference,
//! alternating, in the same run (see chapters/ch01-ring/benches/gate.rs). The workload grows
//! a fresh 2-slot queue to 4,096 slots (eleven doublings) and empties it.

use std::hint::black_box;

use ch04_grow::exercise::Exercise;
use ch04_grow::{GrowOps, Reference, new_with};
use criterion::BenchmarkGroup;
use criterion::measurement::WallTime;

fn workload<G: GrowOps>(g: &mut BenchmarkGroup<'_, WallTime>, id: &str) {
    g.bench_function(id, |b| {
        b.iter(|| {
            let (owner, _stealer) = new_with::<u64, G>(2, 1 << 20);
            for i in 0..4000 {
                owner.push(black_box(i)).unwrap();
            }
            let mut sum = 0;
            while let Some(t) = owner.pop() {
                sum += t;
            }
            sum
        })
    });
}

seam::gate!();
