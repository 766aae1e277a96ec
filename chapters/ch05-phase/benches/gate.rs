//! The grader's benchmark gate for chapter 5: the reader's phase functions against the
//! reference, alternating, in the same run (see chapters/ch01-ring/benches/gate.rs). The
//! workload submits 1,000 tasks from one thread through `submission_queue` (a lock, a push
//! and an unlock each), takes a seqlock snapshot after each, and drains the queue.

use std::hint::black_box;

use ch05_phase::exercise::Exercise;
use ch05_phase::{PhaseOps, Queues, Reference, snapshot};
use criterion::BenchmarkGroup;
use criterion::measurement::WallTime;

fn workload<P: PhaseOps>(g: &mut BenchmarkGroup<'_, WallTime>, id: &str) {
    let queues: Queues<u64, P> = Queues::new(16, 0, 0);
    g.bench_function(id, |b| {
        b.iter(|| {
            let mut probe = 0x39b8;
            let mut sum = 0;
            for i in 0..1000 {
                let guard = queues.submission_queue(&mut probe);
                let q = guard.queue();
                guard.push(black_box(i)).unwrap();
                sum += snapshot::<u64, P>(q).len as u64;
            }
            let s = queues.get(8).unwrap().stealer();
            while let Some(t) = s.poll() {
                sum += t;
            }
            sum
        })
    });
}

seam::gate!();
