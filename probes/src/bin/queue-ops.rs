//! Our queue (chapter 4's `WorkQueue`, the one the pool uses) beside crossbeam-deque's LIFO
//! `Worker`, in the same run, through the same harness (`ch02_poll::contention`'s traits):
//!
//! - `push+pop`: the owner pushes a batch of 64 tasks and pops them back (LIFO), as a worker
//!   forking and joining does; nanoseconds per push+pop pair.
//! - `push+steal`: the owner pushes 64, and a stealer on the same thread takes them from the
//!   other end; nanoseconds per push+steal pair (the uncontended cost of a thief's take).
//!   Beside both, `protocol` (push+pop) and `protocol+pin` (push+steal): the same pairs on
//!   chapter 4's protocol with bare ids in the slots (`probes::protocol::Protocol`), the thief
//!   pinned as ours is: ours over it is what a task's box costs.
//! - `1+k thieves`: chapter 2's contended run (`race`): the owner pushes `--tasks` tasks while k
//!   thieves, released together, steal; nanoseconds per task, and every task checked taken once.
//!   Beside it the run's floor, `protocol`: chapter 4's protocol alone, on bare ids, with no
//!   task boxes and no reclamation (`probes::protocol::Protocol`); and `protocol+pin`, the same
//!   with chapter 2's pin around each poll, as ours has: ours over it is what the task boxes
//!   and their hand-back cost, it over the floor what the pins cost.
//! - `heels`: the same run with one thief and the owner paced (`race_paced`): before each push
//!   it runs `--pace` rounds of a loop (about 45 ns at 100 on the lab's AMD EPYC), slower than a
//!   steal, so that the thief takes each task as soon as it lands and its next poll reads the
//!   lines the owner's next push writes. Nanoseconds per task above the pace alone, timed beside
//!   each run. Beside ours and crossbeam: `protocol`, `protocol+pin`, and `protocol-unfenced`,
//!   the bare protocol whose push stores the slot instead of swapping it
//!   (`Protocol::unfenced`): the protocol over it is what the JDK's fenced push costs at the
//!   heels. The unpaced race falls into this regime when the thief catches up (`race-rounds`).
//!   `--pace 0` leaves the row out (the lab's profile of our queue alone does).
//!
//! Before the `1+k thieves` rows, each queue runs `--warm-up` races (4 by default) of `--tasks`
//! tasks with one thief, untimed. Ours needs them: the owner's thread recycles a task's box
//! only once it has come home from the thief, so a process's first races, with the owner far
//! ahead, take many boxes from `malloc` (`race-rounds`' malloc column shows it, round by round).
//! Crossbeam gets the same races, so the rows compare both queues warm, as the JDK's rows in
//! the lab come after a warm-up run. `--warm-up 0` times the cold races too.
//!
//! Each figure is the median of `--runs` runs (min-max beside it). `--rows` adds a
//! tab-separated line per run for `scripts/lab.py`, `qrun <queue> <op> <k> <ns>`: the lab pools
//! the runs of several processes and takes its own median, min and max.
//!
//! `cargo run --release -p probes --bin queue-ops [-- --runs 5 --tasks 200000 --thieves 1,2,4]`
//! (`--ours-only` skips crossbeam and the floor, and their columns: for profiling our queue
//! alone).
//!
//! `--count QUEUE:OP` (`ours` or `crossbeam`, `push+pop` or `push+steal`) runs that one
//! single-threaded operation over `--tasks` tasks, once, and prints nothing: for an instruction
//! count under valgrind, which `scripts/figures.sh lab` takes at two sizes and subtracts, so that
//! what is left is the cost per operation (machine-independent, where timings are noisy).

use std::hint::black_box;
use std::time::Instant;

use ch02_poll::PollStats;
use probes::contention::{
    BATCH, Contended, ContendedThief, Crossbeam, our_queue, pace_ns, paced_or_exit, race_or_exit,
};
use probes::protocol::Protocol;

/// Nanoseconds per push+pop pair, over `rounds` batches.
fn push_pop<C: Contended>(q: &C, rounds: usize) -> f64 {
    let t0 = Instant::now();
    for _ in 0..rounds {
        for i in 0..BATCH {
            q.push(i).expect("a batch fits");
        }
        for _ in 0..BATCH {
            black_box(q.pop().expect("pushed above"));
        }
    }
    t0.elapsed().as_nanos() as f64 / (rounds * BATCH) as f64
}

/// Nanoseconds per push+steal pair, the stealer on the owner's thread.
fn push_steal<C: Contended>(q: &C, rounds: usize) -> f64 {
    let mut thief = q.thief();
    let mut stats = PollStats::default();
    let t0 = Instant::now();
    for _ in 0..rounds {
        for i in 0..BATCH {
            q.push(i).expect("a batch fits");
        }
        for _ in 0..BATCH {
            black_box(thief.take(&mut stats).expect("pushed above, no one else takes"));
        }
    }
    t0.elapsed().as_nanos() as f64 / (rounds * BATCH) as f64
}

struct Opts {
    runs: usize,
    tasks: usize,
    thieves: Vec<usize>,
    rows: bool,
    /// `--ours-only`: skip crossbeam and the floor (for a profile of our queue alone).
    ours_only: bool,
    /// `--count QUEUE:OP`: run only that, once, silently (for valgrind).
    count: Option<String>,
    /// `--warm-up N`: untimed races per queue before the `1+k thieves` rows.
    warm_up: usize,
    /// `--pace N`: the owner's loop rounds before each push in the heels row.
    pace: u64,
}

/// The command line, for `--help` and for errors.
const USAGE: &str = "queue-ops [--runs N] [--tasks N] [--thieves 1,2,4] [--warm-up N] [--pace N] \
                     [--rows] [--ours-only] [--count QUEUE:OP]";

fn main() {
    let o = probes::start("queue-ops", USAGE, parse);
    if let Some(what) = &o.count {
        let rounds = (o.tasks / BATCH).max(1);
        black_box(match what.as_str() {
            "ours:push+pop" => push_pop(&our_queue(), rounds),
            "ours:push+steal" => push_steal(&our_queue(), rounds),
            "crossbeam:push+pop" => push_pop(&Crossbeam::new(), rounds),
            "crossbeam:push+steal" => push_steal(&Crossbeam::new(), rounds),
            other => {
                eprintln!(
                    "queue-ops: --count takes ours|crossbeam:push+pop|push+steal, not {other}"
                );
                std::process::exit(2);
            }
        });
        return;
    }
    println!(
        "# queue-ops: ours (ch04 WorkQueue, pin fence: {}) vs crossbeam-deque 0.8 \
         (Worker::new_lifo), {} run(s) each, the 1+k rows after {} untimed race(s) per queue, {}",
        reclaim::pin_fence(),
        o.runs,
        o.warm_up,
        probes::machine()
    );
    let rounds = (o.tasks / BATCH).max(1);
    // Beside each, the protocol alone on bare ids, no box (the owner never pins; the thief's
    // take is pinned, as ours is): what ours spends above it is the task's box.
    measure(
        &o,
        "push+pop",
        0,
        |_| push_pop(&our_queue(), rounds),
        |_| push_pop(&Crossbeam::new(), rounds),
        &[("protocol", &|_| push_pop(&Protocol::new(), rounds))],
    );
    measure(
        &o,
        "push+steal",
        0,
        |_| push_steal(&our_queue(), rounds),
        |_| push_steal(&Crossbeam::new(), rounds),
        &[("protocol+pin", &|_| push_steal(&Protocol::pinned(), rounds))],
    );
    for _ in 0..o.warm_up {
        race_or_exit("queue-ops", &our_queue(), o.tasks, 1);
        if !o.ours_only {
            race_or_exit("queue-ops", &Crossbeam::new(), o.tasks, 1);
        }
    }
    for &k in &o.thieves {
        measure(
            &o,
            "1+k thieves",
            k,
            |k| race_or_exit("queue-ops", &our_queue(), o.tasks, k).ns_per_task(),
            |k| race_or_exit("queue-ops", &Crossbeam::new(), o.tasks, k).ns_per_task(),
            &[
                ("protocol", &|k| {
                    race_or_exit("queue-ops", &Protocol::new(), o.tasks, k).ns_per_task()
                }),
                ("protocol+pin", &|k| {
                    race_or_exit("queue-ops", &Protocol::pinned(), o.tasks, k).ns_per_task()
                }),
            ],
        );
    }
    // One thief at the owner's heels: ns per task above the pace (`--pace 0`: no such row).
    let pace = o.pace;
    if pace > 0 {
        measure(
            &o,
            "heels",
            1,
            |_| heels(&our_queue(), o.tasks, pace),
            |_| heels(&Crossbeam::new(), o.tasks, pace),
            &[
                ("protocol", &|_| heels(&Protocol::new(), o.tasks, pace)),
                ("protocol+pin", &|_| heels(&Protocol::pinned(), o.tasks, pace)),
                ("protocol-unfenced", &|_| heels(&Protocol::unfenced(), o.tasks, pace)),
            ],
        );
    }
    println!("check: every task taken exactly once: yes");
}

/// Nanoseconds per task above the pace in one paced race with one thief (the heels row); the
/// pace alone is timed right after it, as the host's speed drifts from minute to minute.
fn heels<C: Contended>(q: &C, tasks: usize, pace: u64) -> f64 {
    paced_or_exit("queue-ops", q, tasks, 1, pace).ns_per_task() - pace_ns(pace, tasks)
}

/// A floor run beside ours: its name in the output, and the run.
type Floor<'a> = (&'a str, &'a dyn Fn(usize) -> f64);

/// Runs both sides (and the floors, where there are any) `runs` times, alternating, and prints
/// each median and the ratios.
fn measure(
    o: &Opts,
    op: &str,
    k: usize,
    ours: impl Fn(usize) -> f64,
    peer: impl Fn(usize) -> f64,
    floors: &[Floor],
) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut f = vec![Vec::new(); floors.len()];
    for _ in 0..o.runs {
        a.push(ours(k));
        if !o.ours_only {
            b.push(peer(k));
            for ((_, floor), runs) in floors.iter().zip(&mut f) {
                runs.push(floor(k));
            }
        }
    }
    let (am, alo, ahi) = probes::median_min_max(&mut a);
    let what = if k > 0 { format!("{op} k={k}") } else { op.to_string() };
    let mut line = format!("{what:<18} ours {am:8.1} ns ({alo:.1}-{ahi:.1})");
    if !b.is_empty() {
        let (bm, blo, bhi) = probes::median_min_max(&mut b);
        line += &format!(
            "   crossbeam {bm:8.1} ns ({blo:.1}-{bhi:.1})   ours/crossbeam {:.2}",
            am / bm
        );
    }
    for ((name, _), runs) in floors.iter().zip(&mut f).filter(|(_, runs)| !runs.is_empty()) {
        let (fm, flo, fhi) = probes::median_min_max(runs);
        line += &format!("   {name} {fm:.1} ns ({flo:.1}-{fhi:.1})   ours/{name} {:.2}", am / fm);
    }
    println!("{line}");
    if o.rows {
        let floors = floors.iter().zip(&f).map(|((name, _), runs)| (*name, runs));
        for (who, runs) in [("ours", &a), ("crossbeam", &b)].into_iter().chain(floors) {
            for ns in runs.iter() {
                println!("qrun\t{who}\t{op}\t{k}\t{ns:.2}");
            }
        }
    }
}
fn parse() -> Result<Opts, lexopt::Error> {
    use lexopt::prelude::*;
    let mut o = Opts {
        runs: 5,
        tasks: 200_000,
        thieves: vec![1, 2, 4],
        rows: false,
        ours_only: false,
        count: None,
        warm_up: 4,
        pace: 100,
    };
    let (tasks, thieves, count, warm_up, pace) =
        (&mut o.tasks, &mut o.thieves, &mut o.count, &mut o.warm_up, &mut o.pace);
    probes::lab_flags(&mut o.runs, &mut o.rows, &mut o.ours_only, |name, p| {
        match name {
            "tasks" => *tasks = p.value()?.parse::<usize>()?.max(1),
            "thieves" => *thieves = probes::counts(p, "--thieves")?,
            "count" => *count = Some(p.value()?.string()?),
            "warm-up" => *warm_up = p.value()?.parse::<usize>()?,
            "pace" => *pace = p.value()?.parse::<u64>()?,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(o)
}
