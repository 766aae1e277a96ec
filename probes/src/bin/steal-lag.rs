//! How far `get_steal_count()` lags the truth while a pool is busy: a chapter 6 pool of
//! `--workers` workers (default 2) runs `--tasks` external tasks (default 200,000), each
//! forking one more, while this thread samples the count and the pool's ground truth (an
//! exact shared counter bumped before each worker's own count). Prints how many samples
//! lagged and by how much, then the count once quiescent and after shutdown, which must be
//! exact (exit 1 otherwise).
//!
//! `cargo run --release -p probes --bin steal-lag [-- --workers N --tasks N]`

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ch06_nsteals::{Pool, fork};

/// The command line, for `--help` and for errors.
const USAGE: &str = "steal-lag [--workers N] [--tasks N]";

fn main() {
    let (workers, tasks) = probes::start("steal-lag", USAGE, parse);
    let pool: Arc<Pool> = Arc::new(Pool::with_ground_truth(workers));
    let busy = Arc::new(AtomicBool::new(true));
    let submitter = {
        let (pool, busy) = (pool.clone(), busy.clone());
        std::thread::spawn(move || {
            for _ in 0..tasks {
                pool.submit(|| {
                    let _ = fork(|| {});
                });
            }
            busy.store(false, Ordering::Relaxed); // Relaxed: only ends the sampling
        })
    };
    let (mut samples, mut lagging, mut max_lag, mut over) = (0u64, 0u64, 0u64, 0u64);
    while busy.load(Ordering::Relaxed) {
        let counted = pool.get_steal_count();
        let truth = pool.ground_truth().expect("kept");
        samples += 1;
        if counted < truth {
            lagging += 1;
            max_lag = max_lag.max(truth - counted);
        } else if counted > truth {
            over += 1;
        }
    }
    submitter.join().expect("the submitter");
    pool.wait_quiescent();
    let (quiet, truth) = (pool.get_steal_count(), pool.ground_truth().expect("kept"));
    let pool = Arc::into_inner(pool).expect("the only handle left");
    let after = pool.shutdown();
    println!("workers={workers} tasks={tasks} (each forks one more)");
    println!("while busy: samples={samples} lagging={lagging} max_lag={max_lag} over={over}");
    println!("quiescent: getStealCount={quiet} truth={truth}");
    println!("after shutdown: getStealCount={after} truth={truth}");
    let exact = quiet == truth && after == truth && over == 0;
    println!(
        "check: never over, exact when quiescent and after shutdown: {}",
        if exact { "yes" } else { "NO" }
    );
    if !exact {
        std::process::exit(1);
    }
}

fn parse() -> Result<(usize, usize), lexopt::Error> {
    use lexopt::prelude::*;
    let (mut workers, mut tasks) = (2, 200_000);
    let mut p = lexopt::Parser::from_env();
    while let Some(arg) = p.next()? {
        match arg {
            Long("workers") => workers = p.value()?.parse::<usize>()?,
            Long("tasks") => tasks = p.value()?.parse()?,
            _ => return Err(arg.unexpected()),
        }
    }
    if workers == 0 {
        return Err("--workers must be at least 1".into());
    }
    Ok((workers, tasks))
}
