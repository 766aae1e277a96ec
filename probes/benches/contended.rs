//! The contended runs, timed by criterion beside crossbeam-deque in the same run (the harness
//! is `probes::contention`):
//!
//! - `contended`: chapter 2's queue, one owner and 1..4 thieves, 20,000 tasks per race,
//!   printing each queue's CAS failures per attempt (crossbeam's `Steal::Retry` is its lost CAS);
//! - `ten_million`: 10,000,000 tasks in 100 rounds of 100,000, each round on a fresh chapter 4
//!   queue growing from 64 while two thieves poll. Every task is checked taken exactly once.
//!   Prints the peak heap held during the run, for both queues, measured by a counting
//!   allocator (not asserted: memory is reported, chapter 4's page discusses it).
//!
//! Quick run: `cargo bench -p probes --bench contended -- --warm-up-time 1 --measurement-time 2`

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ch02_poll::PollStats;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use probes::contention::{Contended, Crossbeam, Race, race};

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

criterion_group!(benches, contended, ten_million);
criterion_main!(benches);
