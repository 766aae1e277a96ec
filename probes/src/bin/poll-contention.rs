//! How often a thief's CAS loses, as thieves are added: one owner pushes `--tasks` tasks
//! into a chapter 2 queue while N thieves, released together by a barrier, poll until all
//! are taken. Prints, per thief count, the article's columns
//! (`thieves=N attempts=A failures=F fail/attempt=R`) plus what the article's replica
//! could not see: empty polls and stalls, counted apart from CAS attempts.
//!
//! `cargo run --release -p probes --bin poll-contention -- [--tasks N] [--thieves 1,2,4] [--runs R]`
//!
//! Every run checks that each task was taken exactly once and that
//! attempts = successes + failures; a violation exits with status 1.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Barrier};

use ch02_poll::PollStats;

struct Args {
    tasks: usize,
    thieves: Vec<usize>,
    runs: usize,
}

fn parse() -> Result<Args, String> {
    let mut args = Args { tasks: 200_000, thieves: vec![1, 2, 4], runs: 1 };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let number = |v: &str| v.parse::<usize>().map_err(|e| format!("{flag} {v:?}: {e}"));
        match flag.as_str() {
            "--tasks" => args.tasks = number(&value)?,
            "--runs" => args.runs = number(&value)?.max(1),
            "--thieves" => args.thieves = value.split(',').map(number).collect::<Result<_, _>>()?,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if args.thieves.contains(&0) || args.tasks == 0 {
        return Err("--tasks and every thief count must be at least 1".into());
    }
    Ok(args)
}

/// One run: returns the thieves' summed stats, and how many tasks they (not the owner) took.
fn run(tasks: usize, thieves: usize) -> Result<(PollStats, u64), String> {
    let (owner, stealer) = ch02_poll::new::<usize>(1 << 16);
    let taken: Arc<Vec<AtomicU8>> = Arc::new((0..tasks).map(|_| AtomicU8::new(0)).collect());
    let done = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(thieves + 1));
    let handles: Vec<_> = (0..thieves)
        .map(|_| {
            let (stealer, taken, done, start) =
                (stealer.clone(), taken.clone(), done.clone(), start.clone());
            std::thread::spawn(move || {
                let (mut stats, mut got) = (PollStats::default(), 0u64);
                start.wait();
                loop {
                    let finished = done.load(Ordering::Acquire);
                    match stealer.poll_counted(&mut stats) {
                        Some(id) => {
                            taken[id].fetch_add(1, Ordering::Relaxed);
                            got += 1;
                        }
                        None if finished => break,
                        None => std::hint::spin_loop(),
                    }
                }
                (stats, got)
            })
        })
        .collect();
    start.wait();
    for id in 0..tasks {
        let mut task = id;
        while let Err(full) = owner.push(task) {
            task = full.into_task();
            if let Some(mine) = owner.pop() {
                taken[mine].fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    done.store(true, Ordering::Release);
    let mut total = (PollStats::default(), 0);
    for h in handles {
        let (stats, got) = h.join().map_err(|_| "a thief panicked".to_string())?;
        if stats.attempts != got + stats.failures {
            return Err(format!(
                "attempts {} != successes {got} + failures {}",
                stats.attempts, stats.failures
            ));
        }
        total.0.add(&stats);
        total.1 += got;
    }
    while let Some(mine) = owner.pop() {
        taken[mine].fetch_add(1, Ordering::Relaxed);
    }
    if let Some(id) = taken.iter().position(|c| c.load(Ordering::Relaxed) != 1) {
        return Err(format!("task {id} was taken {} times", taken[id].load(Ordering::Relaxed)));
    }
    Ok(total)
}

fn main() {
    let args = parse().unwrap_or_else(|e| {
        eprintln!(
            "poll-contention: {e}\nusage: poll-contention [--tasks N] [--thieves 1,2,4] [--runs R]"
        );
        std::process::exit(2);
    });
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "# poll-contention: {} tasks, {} run(s) per row, {cores} cores, load average {}",
        args.tasks,
        args.runs,
        load.split_whitespace().next().unwrap_or("?")
    );
    for &n in &args.thieves {
        let mut rates = Vec::new();
        let mut last = None;
        for _ in 0..args.runs {
            match run(args.tasks, n) {
                Ok((stats, got)) => {
                    rates.push(if stats.attempts == 0 {
                        0.0
                    } else {
                        stats.failures as f64 / stats.attempts as f64
                    });
                    last = Some((stats, got));
                }
                Err(e) => {
                    eprintln!("poll-contention: thieves={n}: {e}");
                    std::process::exit(1);
                }
            }
        }
        let (stats, got) = last.expect("at least one run");
        rates.sort_by(f64::total_cmp);
        let median = rates[rates.len() / 2];
        print!(
            "thieves={n} attempts={} failures={} fail/attempt={median:.3} stolen={got} empty={} stalls={}",
            stats.attempts, stats.failures, stats.empty, stats.stalls
        );
        if args.runs > 1 {
            print!(
                " (median of {}; min {:.3}, max {:.3})",
                args.runs,
                rates[0],
                rates[rates.len() - 1]
            );
        }
        println!();
    }
    println!("check: every task taken exactly once; attempts = successes + failures");
}
