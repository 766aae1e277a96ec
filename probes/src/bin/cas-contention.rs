//! The article's CAS-contention experiment, rebuilt: 200,000 tasks in a ring, N thieves
//! draining it, counting CAS attempts and failures. Printed in the article's format,
//! `thieves=N attempts=A failures=F fail/attempt=R`, for 1, 2, 4, 8, 16 thieves.
//!
//! Two queues:
//! - `--model index`: the article's simplified replica, where a thief CASes the `base` index
//!   forward and then takes the slot (Chase-Lev style). Not the JDK's protocol.
//! - `--model slot`: chapter 2's real `poll()`, which CASes the slot itself and then moves
//!   `base` (the JDK's protocol).
//!
//! Two ways to start the thieves:
//! - `--start staggered`: as the article's program does, each thread starts polling as soon as
//!   it is created. On a machine with few cores the first thread can drain most of the ring
//!   before the others run, and the count measures thread start-up, not contention. Like the
//!   article's, the final "empty" check of each thief counts as an attempt.
//! - `--start barrier` (default): all thieves are released together, and polls that find the
//!   ring empty are counted apart from CAS attempts.
//!
//! Every run checks that each task was taken exactly once and that
//! attempts = successes + failures (+ empty checks when staggered); exit 1 if not.
//!
//! `cargo run --release -p probes --bin cas-contention -- [--model index|slot]
//!  [--start barrier|staggered] [--tasks N] [--thieves 1,2,4,8,16] [--runs R]`

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

use ch02_poll::PollStats;

#[derive(Clone, Copy, PartialEq)]
enum Model {
    Index,
    Slot,
}

struct Args {
    model: Model,
    barrier: bool,
    tasks: usize,
    thieves: Vec<usize>,
    runs: usize,
}

/// The article's replica: slots hold task ids + 1 (0 = empty); a thief wins the index by CAS.
struct IndexRing {
    slots: Vec<AtomicU32>,
    mask: usize,
    top: usize,
    base: AtomicUsize,
}

impl IndexRing {
    fn new(tasks: usize) -> Self {
        let cap = tasks.next_power_of_two();
        let slots: Vec<AtomicU32> = (0..cap).map(|_| AtomicU32::new(0)).collect();
        for (i, s) in slots.iter().enumerate().take(tasks) {
            s.store(i as u32 + 1, Ordering::Relaxed); // Relaxed: before the threads start
        }
        IndexRing { slots, mask: cap - 1, top: tasks, base: AtomicUsize::new(0) }
    }

    /// One take: `Some(task)`, or `None` when empty. Counts into `c` as the article does when
    /// `count_empty` (the final empty check is an attempt), else counts empties apart.
    fn poll(&self, c: &mut Counts, count_empty: bool) -> Option<usize> {
        loop {
            // Acquire: a CAS winner's later slot read must not move above this read.
            let b = self.base.load(Ordering::Acquire);
            if b >= self.top {
                if count_empty {
                    c.attempts += 1;
                } else {
                    c.empty += 1;
                }
                return None;
            }
            c.attempts += 1;
            // SeqCst: the replica's CAS on the index; whoever moves base from b owns slot b.
            if self.base.compare_exchange(b, b + 1, Ordering::SeqCst, Ordering::Relaxed).is_ok() {
                // AcqRel swap: takes the slot's task exactly once.
                let t = self.slots[b & self.mask].swap(0, Ordering::AcqRel);
                return Some(t as usize - 1);
            }
            c.failures += 1;
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Counts {
    attempts: u64,
    failures: u64,
    empty: u64,
    got: u64,
}

fn run(args: &Args, thieves: usize) -> Result<Counts, String> {
    let taken: Arc<Vec<AtomicU8>> = Arc::new((0..args.tasks).map(|_| AtomicU8::new(0)).collect());
    let consumed = Arc::new(AtomicU64::new(0));
    let start = Arc::new(Barrier::new(thieves));
    let index = Arc::new(IndexRing::new(if args.model == Model::Index { args.tasks } else { 0 }));
    let (owner, stealer) = ch02_poll::new::<usize>(args.tasks.next_power_of_two().max(2));
    if args.model == Model::Slot {
        for t in 0..args.tasks {
            owner.push(t).map_err(|_| "the ring is sized to hold every task".to_string())?;
        }
    }
    let go = Arc::new(AtomicBool::new(!args.barrier));
    let handles: Vec<_> = (0..thieves)
        .map(|_| {
            let (taken, consumed, start, index, stealer, go) = (
                taken.clone(),
                consumed.clone(),
                start.clone(),
                index.clone(),
                stealer.clone(),
                go.clone(),
            );
            let (model, barrier, tasks) = (args.model, args.barrier, args.tasks as u64);
            std::thread::spawn(move || {
                let mut c = Counts::default();
                if barrier {
                    start.wait();
                    go.store(true, Ordering::Relaxed); // Relaxed: only a start flag
                }
                // Relaxed: a progress counter; the exactly-once check reads `taken` after joins.
                while consumed.load(Ordering::Relaxed) < tasks {
                    let got = match model {
                        Model::Index => index.poll(&mut c, !barrier),
                        Model::Slot => {
                            let mut s = PollStats::default();
                            let t = stealer.poll_counted(&mut s);
                            c.attempts += s.attempts;
                            c.failures += s.failures;
                            if barrier {
                                c.empty += s.empty
                            } else {
                                c.attempts += s.empty
                            }
                            t
                        }
                    };
                    if let Some(t) = got {
                        taken[t].fetch_add(1, Ordering::Relaxed); // Relaxed: read after joins
                        consumed.fetch_add(1, Ordering::Relaxed);
                        c.got += 1;
                    }
                }
                c
            })
        })
        .collect();
    let mut total = Counts::default();
    for h in handles {
        let c = h.join().map_err(|_| "a thief panicked".to_string())?;
        total.attempts += c.attempts;
        total.failures += c.failures;
        total.empty += c.empty;
        total.got += c.got;
    }
    if let Some(i) = taken.iter().position(|c| c.load(Ordering::Relaxed) != 1) {
        return Err(format!("task {i} was taken {} times", taken[i].load(Ordering::Relaxed)));
    }
    let empties_in_attempts =
        if args.barrier { 0 } else { total.attempts - total.got - total.failures };
    if total.attempts != total.got + total.failures + empties_in_attempts {
        return Err("attempts != successes + failures".into());
    }
    Ok(total)
}

/// The command line, for `--help` and for errors.
const USAGE: &str = "cas-contention [--model index|slot] [--start barrier|staggered] [--tasks N] [--thieves 1,2,4] [--runs R]";

fn main() {
    let args = probes::start("cas-contention", USAGE, parse);
    println!(
        "# cas-contention: model={} start={} tasks={} runs={}, {}",
        if args.model == Model::Index {
            "index (the article's replica)"
        } else {
            "slot (chapter 2's poll)"
        },
        if args.barrier { "barrier" } else { "staggered (as the article's program)" },
        args.tasks,
        args.runs,
        probes::machine()
    );
    for &n in &args.thieves {
        let mut runs = Vec::new();
        for _ in 0..args.runs {
            match run(&args, n) {
                Ok(c) => {
                    let rate =
                        if c.attempts == 0 { 0.0 } else { c.failures as f64 / c.attempts as f64 };
                    runs.push((rate, c));
                }
                Err(e) => {
                    eprintln!("cas-contention: thieves={n}: {e}");
                    std::process::exit(1);
                }
            }
        }
        // The counts printed are the median run's, so they agree with its fail/attempt.
        let (mid, median, note) = probes::median_run(&runs);
        print!(
            "thieves={n} attempts={} failures={} fail/attempt={median:.3}",
            mid.attempts, mid.failures
        );
        if args.barrier {
            print!(" empty={}", mid.empty);
        }
        println!("{note}");
    }
    println!("check: every task taken exactly once; attempts add up");
}

fn parse() -> Result<Args, lexopt::Error> {
    use lexopt::prelude::*;
    let mut a = Args {
        model: Model::Index,
        barrier: true,
        tasks: 200_000,
        thieves: vec![1, 2, 4, 8, 16],
        runs: 1,
    };
    let mut p = lexopt::Parser::from_env();
    while let Some(arg) = p.next()? {
        match arg {
            Long("model") => match p.value()?.string()?.as_str() {
                "index" => a.model = Model::Index,
                "slot" => a.model = Model::Slot,
                v => return Err(format!("--model {v}: index or slot").into()),
            },
            Long("start") => match p.value()?.string()?.as_str() {
                "barrier" => a.barrier = true,
                "staggered" => a.barrier = false,
                v => return Err(format!("--start {v}: barrier or staggered").into()),
            },
            Long("tasks") => a.tasks = p.value()?.parse()?,
            Long("runs") => a.runs = p.value()?.parse::<usize>()?.max(1),
            Long("thieves") => a.thieves = probes::counts(&mut p, "--thieves")?,
            _ => return Err(arg.unexpected()),
        }
    }
    if a.tasks == 0 || a.tasks > u32::MAX as usize - 1 {
        return Err("--tasks must be in 1..2^32-1".into());
    }
    Ok(a)
}
