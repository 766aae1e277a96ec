//! Growth under load, beside crossbeam-deque in the same run.
//!
//! - `owner_push_pop_growing`: a fresh queue at the JDK's first capacity (64) takes 4,096
//!   pushes (six doublings) and gives them back; crossbeam's `Worker` does the same (it grows
//!   and also shrinks its buffer).
//! - `ten_million`: 10,000,000 tasks in 100 rounds of 100,000, each round on a fresh queue
//!   growing from 64 while two thieves poll (chapter 2's contended run). Every task is checked
//!   taken exactly once. Prints the peak heap held during the run, for both queues, measured
//!   by a counting allocator (not asserted: memory is reported, the book discusses it).
//!
//! Quick run: `cargo bench -p ch04-grow --bench grow -- --warm-up-time 1 --measurement-time 2`

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ch02_poll::contention::{Contended, Crossbeam, race};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use crossbeam_deque::Worker;

/// The system allocator, counting the bytes it holds and the most it held.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // Relaxed: statistics, read after the threads that allocate are joined.
        let now = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed); // Relaxed: as above
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size(), Ordering::Relaxed); // Relaxed: as above
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

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

const ROUNDS: usize = 100;
const ROUND_TASKS: usize = 100_000;

/// 100 rounds of 100,000 tasks, each on a fresh queue with two thieves; returns the time
/// spent racing, and the peak heap over the whole run (above what was held at its start).
fn ten_million_once<C: Contended>(make: impl Fn() -> C) -> (Duration, usize) {
    let base = HELD.load(Ordering::Relaxed); // Relaxed: statistics
    PEAK.store(base, Ordering::Relaxed);
    let mut elapsed = Duration::ZERO;
    for _ in 0..ROUNDS {
        elapsed += race(&make(), ROUND_TASKS, 2).expect("every task taken exactly once").elapsed;
    }
    (elapsed, PEAK.load(Ordering::Relaxed) - base)
}

fn ten_million(c: &mut Criterion) {
    let mut g = c.benchmark_group("ten_million");
    g.throughput(Throughput::Elements((ROUNDS * ROUND_TASKS) as u64));
    g.sample_size(10);
    let mut peaks = Vec::new();
    let mut bench = |name: &str, run: &dyn Fn() -> (Duration, usize)| {
        let mut peak = 0;
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let (t, p) = run();
                    total += t;
                    peak = peak.max(p);
                }
                total
            })
        });
        peaks.push(format!("{name}: peak heap {:.1} MiB", peak as f64 / (1 << 20) as f64));
    };
    bench("ch04", &|| ten_million_once(|| ch04_grow::new::<usize>(64).0));
    bench("crossbeam", &|| ten_million_once(Crossbeam::new));
    g.finish();
    for line in peaks {
        println!(
            "ten_million: {line} (100 rounds x 100,000 tasks, 2 thieves, fresh queue per round)"
        );
    }
}

criterion_group!(benches, owner_push_pop_growing, ten_million);
criterion_main!(benches);
