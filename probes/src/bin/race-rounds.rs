//! One owner and one thief, round after round: why that row of the lab swings.
//!
//! `queue-ops` gives "1 owner + 1 thief" as one median; across processes ours has taken from
//! 0.8 to more than 5 times crossbeam-deque's time on the same machine, where crossbeam's stays
//! within a third. This probe runs the same race (`probes::contention::race`) `--rounds` times
//! on our chapter 4 queue, each round beside a crossbeam round, and prints per round what the
//! median hides:
//!
//! - `ns/task`: from the release to the thief's exit, per task (the lab's figure);
//! - `owner ns/push`: from the release to the owner's last push. When it is most of `ns/task`,
//!   the owner set the pace and the thief waited for its pushes; when it is well below, the
//!   owner ran ahead and the thief worked through a backlog;
//! - the thief's `stalls` (a null slot below `top`: the owner has moved `top` and not yet
//!   swapped its task in, chapter 2's `pb == b` spin) and `empty` polls, per 1,000 tasks. Many
//!   of either mean that the thief was at the owner's heels, reading the lines of the slot and
//!   of `top` that the owner's next push writes (`queue-ops`' heels row times that regime
//!   alone, the owner paced so that the thief stays there);
//! - `malloc`: the boxes our owner's pushes took from the allocator, per 1,000 tasks
//!   (`reclaim::BoxCounts`, which a thread adds to every batch, so a round's count may fall
//!   partly in the next). Many mean that the owner ran ahead of the boxes coming home: a
//!   process's first rounds, before its thread has recycled a race's worth.
//!
//! The rounds are then sorted by ours' `ns/task`, so that the two kinds of round stand apart.
//!
//! `cargo run --release -p probes --bin race-rounds [-- --rounds 12 --tasks 200000]`

use probes::contention::{Crossbeam, Race, our_queue, race_or_exit};
use reclaim::BoxCounts;

const USAGE: &str = "race-rounds [--rounds N] [--tasks N]";

struct Opts {
    rounds: usize,
    tasks: usize,
}

fn parse() -> Result<Opts, lexopt::Error> {
    use lexopt::prelude::*;
    let mut o = Opts { rounds: 12, tasks: 200_000 };
    let mut p = lexopt::Parser::from_env();
    while let Some(arg) = p.next()? {
        match arg {
            Long("rounds") => o.rounds = p.value()?.parse::<usize>()?.max(1),
            Long("tasks") => match p.value()?.parse::<usize>()? {
                n if n < 1_000 => return Err(format!("--tasks {n}: at least 1000").into()),
                n => o.tasks = n,
            },
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(o)
}

fn main() {
    let o = probes::start("race-rounds", USAGE, parse);
    println!(
        "# race-rounds: 1 owner + 1 thief, {} tasks per round, {} rounds, ours (ch04 WorkQueue, \
         pin fence: {}) then crossbeam-deque in each; {}",
        o.tasks,
        o.rounds,
        reclaim::pin_fence(),
        probes::machine()
    );
    println!(
        "# ns/task: release to the thief's exit; owner: release to the last push, per push; \
         stalls and empty polls: the thief's, per 1,000 tasks"
    );
    let mut rows = Vec::with_capacity(o.rounds);
    for i in 1..=o.rounds {
        let before = BoxCounts::now();
        let ours = race_or_exit("race-rounds", &our_queue(), o.tasks, 1);
        let boxes = BoxCounts::now().since(before);
        let theirs = race_or_exit("race-rounds", &Crossbeam::new(), o.tasks, 1);
        rows.push((i, ours, boxes, theirs));
    }
    rows.sort_by(|a, b| a.1.ns_per_task().total_cmp(&b.1.ns_per_task()));
    println!(
        "{:>5}  {:>12} {:>12} {:>9} {:>9} {:>9}  {:>16} {:>12}",
        "round",
        "ours ns/task",
        "owner ns/push",
        "stalls",
        "empty",
        "malloc",
        "crossbeam ns/task",
        "owner ns/push"
    );
    for (i, ours, boxes, theirs) in &rows {
        println!(
            "{i:>5}  {:>12.1} {:>13.1} {:>9.1} {:>9.1} {:>9.1}  {:>17.1} {:>13.1}",
            ours.ns_per_task(),
            ours.owner_ns_per_push(),
            ours.per_thousand_tasks(ours.stats.stalls),
            ours.per_thousand_tasks(ours.stats.empty),
            ours.per_thousand_tasks(boxes.allocated),
            theirs.ns_per_task(),
            theirs.owner_ns_per_push()
        );
    }
    // The owner set the pace where its pushes took most of the round.
    let owner_paced = |r: &Race| r.owner_ns_per_push() >= 0.9 * r.ns_per_task();
    let paced = rows.iter().filter(|(_, o, _, _)| owner_paced(o)).count();
    let theirs_paced = rows.iter().filter(|(_, _, _, t)| owner_paced(t)).count();
    println!(
        "# rounds where the owner's pushes took at least 90% of the round: ours {paced} of {}, \
         crossbeam {theirs_paced} of {}",
        rows.len(),
        rows.len()
    );
}
