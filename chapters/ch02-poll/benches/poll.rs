//! Per-operation cost of the owner's push+pop and of a single thief's poll, beside
//! crossbeam-deque's `Worker` and `Stealer` in the same run; and the contended run, one
//! owner and 1..4 thieves, timed for both queues, printing each one's CAS failures per
//! attempt (crossbeam's `Steal::Retry` is its lost CAS).
//!
//! Quick run: `cargo bench -p ch02-poll --bench poll -- --warm-up-time 1 --measurement-time 2`

use std::hint::black_box;

use std::cell::RefCell;
use std::time::Duration;

use ch02_poll::PollStats;
use ch02_poll::contention::{Crossbeam, Race, race};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use crossbeam_deque::{Steal, Worker};

const BATCH: u64 = 256;

fn owner_push_pop(c: &mut Criterion) {
    let mut g = c.benchmark_group("owner_push_pop");
    g.throughput(Throughput::Elements(2 * BATCH));
    let (owner, _stealer) = ch02_poll::new::<u64>(1024);
    g.bench_function("ch02 Owner", |b| {
        b.iter(|| {
            for i in 0..BATCH {
                owner.push(black_box(i)).unwrap();
            }
            while let Some(t) = owner.pop() {
                black_box(t);
            }
        })
    });
    let worker = Worker::new_lifo();
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

fn push_then_poll(c: &mut Criterion) {
    let mut g = c.benchmark_group("push_then_poll");
    g.throughput(Throughput::Elements(2 * BATCH));
    let (owner, stealer) = ch02_poll::new::<u64>(1024);
    g.bench_function("ch02 Owner+Stealer", |b| {
        b.iter(|| {
            for i in 0..BATCH {
                owner.push(black_box(i)).unwrap();
            }
            while let Some(t) = stealer.poll() {
                black_box(t);
            }
        })
    });
    let worker = Worker::new_lifo();
    let stealer = worker.stealer();
    g.bench_function("crossbeam Worker+Stealer", |b| {
        b.iter(|| {
            for i in 0..BATCH {
                worker.push(black_box(i));
            }
            while let Steal::Success(t) = stealer.steal() {
                black_box(t);
            }
        })
    });
    g.finish();
}

const CONTENDED_TASKS: usize = 20_000;

/// Times `run` (one whole race per iteration, from the barrier's release to the last
/// thief's exit) and returns the failure rate over every race it ran.
fn time_races(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: BenchmarkId,
    run: impl Fn() -> Race,
) -> f64 {
    let total = RefCell::new(PollStats::default());
    g.bench_function(id, |b| {
        b.iter_custom(|iters| {
            let mut elapsed = Duration::ZERO;
            for _ in 0..iters {
                let r = run();
                total.borrow_mut().add(&r.stats);
                elapsed += r.elapsed;
            }
            elapsed
        })
    });
    total.into_inner().fail_rate()
}

fn contended(c: &mut Criterion) {
    let mut g = c.benchmark_group("contended");
    g.throughput(Throughput::Elements(CONTENDED_TASKS as u64));
    g.sample_size(10);
    let mut rates = Vec::new();
    for thieves in 1..=4 {
        let ours = time_races(&mut g, BenchmarkId::new("ch02", thieves), || {
            race(&ch02_poll::new::<usize>(1 << 12), CONTENDED_TASKS, thieves).unwrap()
        });
        let theirs = time_races(&mut g, BenchmarkId::new("crossbeam", thieves), || {
            race(&Crossbeam::new(), CONTENDED_TASKS, thieves).unwrap()
        });
        rates
            .push(format!("thieves={thieves} fail/attempt: ch02 {ours:.3}, crossbeam {theirs:.3}"));
    }
    g.finish();
    for line in rates {
        println!("contended: {line}");
    }
}

criterion_group!(benches, owner_push_pop, push_then_poll, contended);
criterion_main!(benches);
