//! External submission throughput, measured, not assumed: 2,000 tasks submitted through
//! `submission_queue` into a 64-slot queues array while one thief drains every queue,
//! - by 1..4 fixed submitter threads, each with its own probe, each submitting its share;
//! - by one new thread per task (the article's ReportAggregator argument: a thread per
//!   request pays a thread's start and, with a fresh probe, often a queue of its own).
//!
//! Quick run: `cargo bench -p ch05-phase --bench submit -- --warm-up-time 1 --measurement-time 2`

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use ch05_phase::{Queues, new_probe};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const TASKS: usize = 2_000;

/// One run: `submit` starts the submitters (given the queues), a thief drains until every task
/// was taken; returns the time from the first submission to the last take.
fn run(submit: impl FnOnce(&Arc<Queues<usize>>) -> Vec<thread::JoinHandle<()>>) -> Duration {
    let queues: Arc<Queues<usize>> = Arc::new(Queues::new(64, 0, 0));
    let taken = Arc::new(AtomicUsize::new(0));
    let thief = {
        let (queues, taken) = (queues.clone(), taken.clone());
        thread::spawn(move || {
            // Relaxed: a counter that only this thread writes; read by the joiner after join.
            while taken.load(Ordering::Relaxed) < TASKS {
                for (_, q) in queues.iter() {
                    while q.stealer().poll().is_some() {
                        taken.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        })
    };
    let t0 = Instant::now();
    for h in submit(&queues) {
        h.join().unwrap();
    }
    thief.join().unwrap();
    t0.elapsed()
}

fn fixed_threads(queues: &Arc<Queues<usize>>, threads: usize) -> Vec<thread::JoinHandle<()>> {
    (0..threads)
        .map(|k| {
            let queues = queues.clone();
            thread::spawn(move || {
                let mut probe = new_probe();
                for t in (k..TASKS).step_by(threads) {
                    queues.submission_queue(&mut probe).push(t).unwrap();
                }
            })
        })
        .collect()
}

fn thread_per_task(queues: &Arc<Queues<usize>>) -> Vec<thread::JoinHandle<()>> {
    (0..TASKS)
        .map(|t| {
            let queues = queues.clone();
            thread::spawn(move || {
                let mut probe = new_probe();
                queues.submission_queue(&mut probe).push(t).unwrap();
            })
        })
        .collect()
}

fn submit(c: &mut Criterion) {
    let mut g = c.benchmark_group("submit");
    g.throughput(Throughput::Elements(TASKS as u64));
    g.sample_size(10);
    for threads in 1..=4 {
        g.bench_function(BenchmarkId::new("fixed threads", threads), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| run(|q| fixed_threads(q, threads))).sum())
        });
    }
    g.bench_function("thread per task", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| run(thread_per_task)).sum())
    });
    g.finish();
}

criterion_group!(benches, submit);
criterion_main!(benches);
