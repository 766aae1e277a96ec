//! The grader's benchmark gate for chapter 2: the reader's `poll` against the reference,
//! alternating, in the same run (see chapters/ch01-ring/benches/gate.rs). The workload is
//! the uncontended path a thief takes most often: push a batch, poll it all back.

use std::hint::black_box;

use ch02_poll::exercise::Exercise;
use ch02_poll::{PollOps, Reference, new_with};
use criterion::BenchmarkGroup;
use criterion::measurement::WallTime;

fn workload<P: PollOps>(g: &mut BenchmarkGroup<'_, WallTime>, id: &str) {
    let (owner, stealer) = new_with::<u64, P>(1024);
    g.bench_function(id, |b| {
        b.iter(|| {
            for i in 0..512 {
                owner.push(black_box(i)).unwrap();
            }
            let mut sum = 0;
            while let Some(t) = stealer.poll() {
                sum += t;
            }
            sum
        })
    });
}

seam::gate!();
