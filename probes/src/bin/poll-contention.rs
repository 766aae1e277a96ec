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

use probes::contention::race_or_exit;

struct Args {
    tasks: usize,
    thieves: Vec<usize>,
    runs: usize,
}

fn parse() -> Result<Args, lexopt::Error> {
    use lexopt::prelude::*;
    let mut args = Args { tasks: 200_000, thieves: vec![1, 2, 4], runs: 1 };
    let mut p = lexopt::Parser::from_env();
    while let Some(arg) = p.next()? {
        match arg {
            Long("tasks") => args.tasks = p.value()?.parse()?,
            Long("runs") => args.runs = p.value()?.parse::<usize>()?.max(1),
            Long("thieves") => args.thieves = probes::counts(&mut p, "--thieves")?,
            _ => return Err(arg.unexpected()),
        }
    }
    if args.tasks == 0 {
        return Err("--tasks must be at least 1".into());
    }
    Ok(args)
}

/// The command line, for `--help` and for errors.
const USAGE: &str = "poll-contention [--tasks N] [--thieves 1,2,4] [--runs R]";

fn main() {
    let args = probes::start("poll-contention", USAGE, parse);
    println!(
        "# poll-contention: {} tasks, {} run(s) per row, {}",
        args.tasks,
        args.runs,
        probes::machine()
    );
    for &n in &args.thieves {
        let mut runs = Vec::new();
        for _ in 0..args.runs {
            let probe = format!("poll-contention: thieves={n}");
            let race = race_or_exit(&probe, &ch02_poll::new::<usize>(1 << 16), args.tasks, n);
            runs.push((race.fail_rate(), (race.stats, race.stolen)));
        }
        // The counts printed are the median run's, so they agree with its fail/attempt.
        let ((stats, got), median, note) = probes::median_run(&runs);
        println!(
            "thieves={n} attempts={} failures={} fail/attempt={median:.3} stolen={got} empty={} stalls={}{note}",
            stats.attempts, stats.failures, stats.empty, stats.stalls
        );
    }
    println!("check: every task taken exactly once; attempts = successes + failures");
}
