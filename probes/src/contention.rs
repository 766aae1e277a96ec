//! The contended run the article tabulates: one owner pushes tasks while N thieves, released
//! together by a barrier, poll until every task is taken. It counts CAS attempts and
//! failures per thief, and checks that each task was taken exactly once.
//!
//! Written against two small traits so that the same run drives our queues (chapter 2's and
//! chapter 4's, implemented here), crossbeam-deque's ([`Crossbeam`]) and the protocol alone
//! (`protocol.rs`): the measured difference is then the queue, not the harness. Used by the
//! probes' `benches/contended.rs` and by the `poll-contention` and `queue-ops` probes. (It lived
//! in chapter 2's crate, which made crossbeam-deque one of the chapter's dependencies.)

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use crossbeam_deque::{Steal, Worker};

use ch02_poll::{Owner, PollStats, Stealer};
use ch04_grow::GrowOps;

/// The owner's side of a queue under test. Tasks are ids `0..tasks`.
pub trait Contended {
    /// A thief's handle, moved to its thread.
    type Thief: ContendedThief;
    /// Pushes a task, or hands it back when the queue is full.
    fn push(&self, task: usize) -> Result<(), usize>;
    /// Takes a task at the owner's end.
    fn pop(&self) -> Option<usize>;
    /// A new thief's handle.
    fn thief(&self) -> Self::Thief;
}

/// A thief's side: one steal, counted into `stats`.
pub trait ContendedThief: Send + 'static {
    /// Takes a task, or returns `None` when the queue looked empty.
    fn take(&mut self, stats: &mut PollStats) -> Option<usize>;
}

impl Contended for (Owner<usize>, Stealer<usize>) {
    type Thief = Stealer<usize>;
    fn push(&self, task: usize) -> Result<(), usize> {
        self.0.push(task).map_err(|full| full.into_task())
    }
    fn pop(&self) -> Option<usize> {
        self.0.pop()
    }
    fn thief(&self) -> Stealer<usize> {
        self.1.clone()
    }
}

impl ContendedThief for Stealer<usize> {
    fn take(&mut self, stats: &mut PollStats) -> Option<usize> {
        self.poll_counted(stats)
    }
}

/// Chapter 4's growing queue in the same run.
impl<G: GrowOps> Contended for ch04_grow::Owner<usize, G> {
    type Thief = ch04_grow::Stealer<usize>;
    fn push(&self, task: usize) -> Result<(), usize> {
        ch04_grow::Owner::push(self, task).map_err(|full| full.into_task())
    }
    fn pop(&self) -> Option<usize> {
        ch04_grow::Owner::pop(self)
    }
    fn thief(&self) -> ch04_grow::Stealer<usize> {
        self.stealer()
    }
}

impl ContendedThief for ch04_grow::Stealer<usize> {
    fn take(&mut self, stats: &mut PollStats) -> Option<usize> {
        self.poll_counted(stats)
    }
}

/// crossbeam-deque's LIFO worker, the peer run beside ours (the same harness, its queue).
pub struct Crossbeam(Worker<usize>);

impl Crossbeam {
    /// A new, empty LIFO worker.
    pub fn new() -> Self {
        Crossbeam(Worker::new_lifo())
    }
}

impl Default for Crossbeam {
    fn default() -> Self {
        Self::new()
    }
}

impl Contended for Crossbeam {
    type Thief = CrossbeamThief;
    fn push(&self, task: usize) -> Result<(), usize> {
        self.0.push(task); // unbounded: never full
        Ok(())
    }
    fn pop(&self) -> Option<usize> {
        self.0.pop()
    }
    fn thief(&self) -> CrossbeamThief {
        CrossbeamThief(self.0.stealer())
    }
}

/// A crossbeam `Stealer`, counting `Steal::Retry` (its lost CAS) as a failed attempt.
pub struct CrossbeamThief(crossbeam_deque::Stealer<usize>);

impl ContendedThief for CrossbeamThief {
    fn take(&mut self, stats: &mut PollStats) -> Option<usize> {
        loop {
            match self.0.steal() {
                Steal::Success(t) => {
                    stats.attempts += 1;
                    return Some(t);
                }
                Steal::Retry => {
                    // crossbeam's CAS on `front` lost (or the buffer changed): a failed attempt
                    stats.attempts += 1;
                    stats.failures += 1;
                }
                Steal::Empty => {
                    stats.empty += 1;
                    return None;
                }
            }
        }
    }
}

/// What one contended run did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Race {
    /// The thieves' summed counters.
    pub stats: PollStats,
    /// Tasks the thieves took (the owner took the rest).
    pub stolen: u64,
    /// From the barrier's release to the last thief's exit.
    pub elapsed: Duration,
    /// From the barrier's release to the owner's last push. Near `elapsed`, the owner set the
    /// pace and the thieves waited for its pushes (`race-rounds`).
    pub pushed: Duration,
    /// The tasks the owner pushed.
    pub tasks: usize,
}

impl Race {
    /// Nanoseconds per task, from the release to the last thief's exit (the lab's figure).
    pub fn ns_per_task(&self) -> f64 {
        self.elapsed.as_nanos() as f64 / self.tasks as f64
    }

    /// The owner's nanoseconds per push, from the release to its last push.
    pub fn owner_ns_per_push(&self) -> f64 {
        self.pushed.as_nanos() as f64 / self.tasks as f64
    }

    /// `n` events per 1,000 tasks.
    pub fn per_thousand_tasks(&self, n: u64) -> f64 {
        n as f64 * 1_000.0 / self.tasks as f64
    }

    /// Failed CAS attempts per attempt, the article's `fail/attempt` column.
    pub fn fail_rate(&self) -> f64 {
        self.stats.fail_rate()
    }
}

/// Runs `tasks` tasks through `queue` with `thieves` thieves polling from the start. When
/// the queue is full the owner pops one task to make room, as a worker would run it.
///
/// Errors (never expected): a task taken twice or never, a thief that panicked, or
/// attempts that do not add up to successes plus failures.
pub fn race<C: Contended>(queue: &C, tasks: usize, thieves: usize) -> Result<Race, String> {
    race_paced(queue, tasks, thieves, 0)
}

/// The owner's work between two pushes in [`race_paced`]: `pace` rounds of a loop the
/// compiler cannot fold, touching no memory (so no cache line of the queue's).
#[inline(never)]
pub fn pace_work(pace: u64) -> u64 {
    (0..std::hint::black_box(pace)).fold(0u64, |s, i| s.rotate_left(3) ^ i)
}

/// Nanoseconds per task of the pace alone: `tasks` rounds of [`pace_work`], no queue (timed
/// by the caller beside each paced run: the host's speed drifts from minute to minute).
pub fn pace_ns(pace: u64, tasks: usize) -> f64 {
    let t0 = Instant::now();
    for _ in 0..tasks {
        std::hint::black_box(pace_work(pace));
    }
    t0.elapsed().as_nanos() as f64 / tasks as f64
}

/// [`race`] with the owner doing [`pace_work`]`(pace)` before each push, as a worker runs a
/// task between two forks. A pace slower than a steal keeps the thieves at the owner's heels:
/// each task is stolen as soon as it is pushed, and a thief's next poll finds the queue empty,
/// reading the lines that the owner's next push writes. The run's time per task, less the pace
/// alone ([`pace_ns`]), is what the contended push and steal cost the owner at that distance
/// (`queue-ops`' heels row).
pub fn race_paced<C: Contended>(
    queue: &C,
    tasks: usize,
    thieves: usize,
    pace: u64,
) -> Result<Race, String> {
    let taken: Arc<Vec<AtomicU8>> = Arc::new((0..tasks).map(|_| AtomicU8::new(0)).collect());
    let done = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(thieves + 1));
    let handles: Vec<_> = (0..thieves)
        .map(|_| {
            let mut thief = queue.thief();
            let (taken, done, start) = (taken.clone(), done.clone(), start.clone());
            std::thread::spawn(move || {
                let (mut stats, mut got) = (PollStats::default(), 0u64);
                start.wait();
                loop {
                    // Acquire: pairs with the owner's Release below; after it, a poll that
                    // finds the queue empty finds it empty for good.
                    let finished = done.load(Ordering::Acquire);
                    match thief.take(&mut stats) {
                        Some(id) => {
                            // Relaxed: a counter read only after every thread is joined.
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
    let t0 = Instant::now();
    for id in 0..tasks {
        if pace > 0 {
            std::hint::black_box(pace_work(pace));
        }
        let mut task = id;
        while let Err(back) = queue.push(task) {
            task = back;
            if let Some(mine) = queue.pop() {
                taken[mine].fetch_add(1, Ordering::Relaxed); // Relaxed: as above
            }
        }
    }
    let pushed = t0.elapsed();
    // Release: every push above happens before a thief that sees `done` polls for the last time.
    done.store(true, Ordering::Release);
    let mut race = Race { pushed, tasks, ..Race::default() };
    for h in handles {
        let (stats, got) = h.join().map_err(|_| "a thief panicked".to_string())?;
        if stats.attempts != got + stats.failures {
            return Err(format!(
                "attempts {} != successes {got} + failures {}",
                stats.attempts, stats.failures
            ));
        }
        race.stats.add(&stats);
        race.stolen += got;
    }
    race.elapsed = t0.elapsed();
    while let Some(mine) = queue.pop() {
        taken[mine].fetch_add(1, Ordering::Relaxed); // Relaxed: single-threaded by now
    }
    match taken.iter().position(|c| c.load(Ordering::Relaxed) != 1) {
        Some(id) => Err(format!("task {id} was taken {} times", taken[id].load(Ordering::Relaxed))),
        None => Ok(race),
    }
}

/// [`race`] for a probe: an error (a task lost or taken twice, a thief that panicked) ends the
/// process, after `probe` says what went wrong.
pub fn race_or_exit<C: Contended>(probe: &str, queue: &C, tasks: usize, thieves: usize) -> Race {
    paced_or_exit(probe, queue, tasks, thieves, 0)
}

/// [`race_paced`] for a probe, as [`race_or_exit`].
pub fn paced_or_exit<C: Contended>(
    probe: &str,
    queue: &C,
    tasks: usize,
    thieves: usize,
    pace: u64,
) -> Race {
    race_paced(queue, tasks, thieves, pace).unwrap_or_else(|e| {
        eprintln!("{probe}: {e}");
        std::process::exit(1);
    })
}

/// Tasks per batch in `queue-ops`' single-threaded rows (pushed, then all popped or stolen):
/// also [`our_queue`]'s first capacity, so that a batch fits without growing.
pub const BATCH: usize = 64;

/// Chapter 4's queue (the pool's) as `queue-ops` and `race-rounds` run it: first capacity
/// [`BATCH`]; it grows as a race's backlog does.
pub fn our_queue() -> ch04_grow::Owner<usize> {
    ch04_grow::new::<usize>(BATCH).0
}
