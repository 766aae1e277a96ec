//! What the atomic operations the chapters use cost on this machine: the floor under every
//! protocol in the book. Each figure is nanoseconds per operation, the median of `--runs` runs
//! (min-max beside it):
//!
//! - `load` / `store`: a plain atomic load or Release store (the owner's `top`, say);
//! - `swap SeqCst`, `CAS SeqCst`: one uncontended read-modify-write (the slot swap of push and
//!   pop, the thief's slot CAS) on a line this core owns;
//! - `store + fence`: a Relaxed store then a SeqCst fence (the parking handshake's announce,
//!   `Sleep::signal`); subtract `store` for the fence alone;
//! - `CAS ping-pong`: two threads pass a counter back and forth by CAS, so every CAS finds the
//!   line in the other core's cache: the cost of a contended `base` or slot, one way;
//! - `Box new+drop`: one allocation and its free, as our queue pays per task;
//! - `seal fence`: the fence a seal of chapter 2's `reclaim` pays (`reclaim::seal_fence`), with
//!   one other thread of the process spinning: where it is `membarrier` (the header's `pin
//!   fence`), that thread's core is interrupted each time. Timed over fewer calls (`SEALS`).
//!
//! `cargo run --release -p probes --bin atomic-costs [-- --runs 5]`

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
use std::sync::atomic::{AtomicBool, AtomicU64, fence};
use std::time::Instant;

const OPS: u64 = 2_000_000;

/// One measurement: nanoseconds per operation.
type Measure<'a> = Box<dyn Fn() -> f64 + 'a>;

/// Calls of the seal's fence per run: each may interrupt another core.
const SEALS: u64 = 2_000;

/// Nanoseconds per call of `reclaim::seal_fence`, over SEALS calls, while another thread spins.
fn seal_fence() -> f64 {
    let stop = Arc::new(AtomicBool::new(false));
    let spinner = {
        let stop = stop.clone();
        // Relaxed: a flag to stop on, ordering nothing else.
        std::thread::spawn(move || {
            while !stop.load(Relaxed) {
                std::hint::spin_loop()
            }
        })
    };
    let t0 = Instant::now();
    for _ in 0..SEALS {
        reclaim::seal_fence();
    }
    let ns = t0.elapsed().as_nanos() as f64 / SEALS as f64;
    stop.store(true, Relaxed); // Relaxed: as above
    spinner.join().expect("the spinning thread");
    ns
}

/// Nanoseconds per call of `op`, over OPS calls.
fn per_op(mut op: impl FnMut(u64)) -> f64 {
    let t0 = Instant::now();
    for i in 0..OPS {
        op(i);
    }
    t0.elapsed().as_nanos() as f64 / OPS as f64
}

/// One way of a CAS ping-pong between two threads: each waits for the counter to reach its
/// turn and CASes it one further, `rounds` times each.
fn ping_pong(rounds: u64) -> f64 {
    let counter = Arc::new(AtomicU64::new(0));
    let other = {
        let counter = counter.clone();
        std::thread::spawn(move || {
            for r in 0..rounds {
                // SeqCst CAS: the operation under test; the loads spin until it is our turn.
                while counter.compare_exchange(2 * r + 1, 2 * r + 2, SeqCst, Relaxed).is_err() {
                    std::hint::spin_loop();
                }
            }
        })
    };
    let t0 = Instant::now();
    for r in 0..rounds {
        while counter.compare_exchange(2 * r, 2 * r + 1, SeqCst, Relaxed).is_err() {
            std::hint::spin_loop();
        }
    }
    other.join().expect("the other thread");
    t0.elapsed().as_nanos() as f64 / (2 * rounds) as f64
}

/// The command line, for `--help` and for errors.
const USAGE: &str = "atomic-costs [--runs N]";

/// `--runs N` (default 5).
fn parse() -> Result<usize, lexopt::Error> {
    use lexopt::prelude::*;
    let mut runs = 5;
    let mut p = lexopt::Parser::from_env();
    while let Some(arg) = p.next()? {
        match arg {
            Long("runs") => runs = p.value()?.parse::<usize>()?.max(1),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(runs)
}

fn main() {
    let runs = probes::start("atomic-costs", USAGE, parse);
    println!(
        "# atomic-costs: ns per operation, median of {runs} run(s) of {OPS} ops (min-max; \
         {SEALS} for the seal fence, pin fence: {}), {}",
        reclaim::pin_fence(),
        probes::machine()
    );
    let a = AtomicU64::new(0);
    let measures: Vec<(&str, Measure)> = vec![
        ("load Acquire", Box::new(|| per_op(|_| _ = black_box(a.load(Acquire))))),
        ("store Release", Box::new(|| per_op(|i| a.store(i, Release)))),
        ("swap SeqCst", Box::new(|| per_op(|i| _ = black_box(a.swap(i, SeqCst))))),
        (
            "CAS SeqCst",
            Box::new(|| per_op(|i| _ = black_box(a.compare_exchange(i, i + 1, SeqCst, Relaxed)))),
        ),
        // A fence alone may be folded away: store, then fence, as the parking handshake does.
        (
            "store + fence",
            Box::new(|| {
                per_op(|i| {
                    a.store(i, Relaxed);
                    fence(SeqCst);
                })
            }),
        ),
        ("Box new+drop", Box::new(|| per_op(|i| drop(black_box(Box::new(i)))))),
        ("CAS ping-pong", Box::new(|| ping_pong(OPS / 10))),
        ("seal fence", Box::new(seal_fence)),
    ];
    for (name, measure) in &measures {
        let mut v: Vec<f64> = (0..runs).map(|_| measure()).collect();
        let (m, lo, hi) = probes::median_min_max(&mut v);
        println!("{name:<14} {m:7.2} ns   ({lo:.2}-{hi:.2})");
    }
}
