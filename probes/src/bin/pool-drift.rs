//! Does a long-lived pool stay as fast as a new one? fib(N) with no cutoff, run again and again
//! on one pool per parallelism: `--rounds` rounds of `--runs` runs each, and per round the
//! median time (min-max) and the share of task boxes recycled (chapter 2's `reclaim`). With
//! `--fresh`, every round gets a new pool instead: the baseline a drift is measured against.
//!
//! Chapter 7's criterion benchmark runs on one pool for seconds; the contention lab makes a
//! pool per run. This probe is how the two were found to disagree, and why (chapter 7, "A
//! long-lived pool").
//!
//! `cargo run --release -p probes --bin pool-drift [-- --par 2,16 --rounds 8 --runs 20 --fib 30]`

use std::hint::black_box;
use std::time::Instant;

use ch07_pool::{ThreadPool, fib};
use reclaim::BoxCounts;

const USAGE: &str = "pool-drift [--par 2,16] [--rounds N] [--runs N] [--fib N] [--fresh]";

struct Opts {
    pars: Vec<usize>,
    rounds: usize,
    runs: usize,
    fib: u64,
    fresh: bool,
}

fn parse() -> Result<Opts, lexopt::Error> {
    use lexopt::prelude::*;
    let mut o = Opts { pars: vec![2, 16], rounds: 8, runs: 20, fib: 30, fresh: false };
    let mut p = lexopt::Parser::from_env();
    while let Some(arg) = p.next()? {
        match arg {
            Long("fresh") => o.fresh = true,
            Long("par") => o.pars = probes::counts(&mut p, "--par")?,
            Long("rounds") => o.rounds = p.value()?.parse::<usize>()?.max(1),
            Long("runs") => o.runs = p.value()?.parse::<usize>()?.max(1),
            Long("fib") => o.fib = p.value()?.parse()?,
            _ => return Err(arg.unexpected()),
        }
    }
    if o.fib > 35 {
        return Err(
            format!("--fib {}: at most 35 here (each round runs it --runs times)", o.fib).into()
        );
    }
    Ok(o)
}

fn main() {
    let o = probes::start("pool-drift", USAGE, parse);
    let want = probes::fib_plain(o.fib);
    let pool_kind = if o.fresh { "a new pool per round" } else { "one pool for all rounds" };
    println!(
        "# pool-drift: fib({}) with no cutoff, {} rounds of {} runs on {pool_kind}; {}",
        o.fib,
        o.rounds,
        o.runs,
        probes::machine()
    );
    println!(
        "# per round: median ms (min-max), task boxes recycled (a thread adds its counts every \
         batch of takes and when it exits: '-' where none arrived during the round)"
    );
    for &par in &o.pars {
        let mut pool: ThreadPool = ThreadPool::new(par);
        let mut medians = Vec::new();
        for round in 1..=o.rounds {
            let before = BoxCounts::now();
            let mut ms = Vec::with_capacity(o.runs);
            for _ in 0..o.runs {
                let t0 = Instant::now();
                let (got, ()) = pool.join(move || fib(black_box(o.fib)), || ());
                ms.push(t0.elapsed().as_secs_f64() * 1e3);
                if got != want {
                    eprintln!("pool-drift: fib({}) = {got}, expected {want}", o.fib);
                    std::process::exit(1);
                }
            }
            if o.fresh {
                // The round's pool shuts down when replaced: its workers exit and add their
                // counts, so a new pool's round is counted exactly.
                pool = ThreadPool::new(par);
            }
            let boxes = BoxCounts::now().since(before);
            let recycled = if boxes.reused + boxes.allocated == 0 {
                "-".to_string()
            } else {
                format!("{:.1}%", 100.0 * boxes.reuse_ratio())
            };
            let (median, min, max) = probes::median_min_max(&mut ms);
            medians.push(median);
            println!(
                "par={par:>3} round={round:>2} ms={median:>5.1} ({min:.1}-{max:.1})  recycled {recycled}"
            );
        }
        let (slowest, worst) = medians
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(i, &m)| (i + 1, m))
            .expect("at least one round");
        println!(
            "par={par:>3} first round {:.1} ms, slowest {worst:.1} (round {slowest}, {:.2}x the first), last {:.1}",
            medians[0],
            worst / medians[0],
            medians[medians.len() - 1]
        );
    }
}
