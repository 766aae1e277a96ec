use std::cell::Cell;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize};
use std::thread::JoinHandle;
use std::time::Duration;

use ch02_poll::{Full, PollStats};
use ch05_phase::{Queue, Queues, advance_probe, new_probe, queues_len};
use crossbeam_utils::CachePadded;
use reclaim::{pin, take_keeping_box};

use crate::{Reference, StealOps};

/// A task: any closure that can be sent to a worker.
pub type Job = Box<dyn FnOnce() + Send>;

/// What the workers and the submitters share. [JDK: the `ForkJoinPool` object itself]
struct Shared {
    /// Submission queues at even indices, worker queues at odd ones (chapter 5).
    queues: Queues<Job>,
    /// One counter per slot of `queues`; only the odd ones (workers) are ever written, each by
    /// its own worker. [JDK: `WorkQueue.nsteals`]
    nsteals: Box<[CachePadded<AtomicU32>]>,
    /// The counts of workers that have exited. [JDK: `ForkJoinPool.stealCount`]
    steal_count: AtomicU64,
    /// When asked for: every steal counted again, exactly (SeqCst, one shared counter), at the
    /// take and before the worker's own counter: the ground truth the tests compare against.
    truth: Option<AtomicU64>,
    /// Tasks submitted or forked and not yet finished: zero means quiescent.
    pending: AtomicUsize,
    /// Set by `shutdown`: workers exit once nothing is pending.
    shutdown: AtomicBool,
    /// Tasks that panicked (caught; the worker goes on).
    panics: AtomicU64,
}

impl Shared {
    fn run(&self, job: Job) {
        if catch_unwind(AssertUnwindSafe(job)).is_err() {
            self.panics.fetch_add(1, Relaxed); // Relaxed: a statistic
        }
        // Release: the task's effects and the worker's counts (stored before it ran) are
        // visible to whoever sees `pending` reach zero with an Acquire load.
        self.pending.fetch_sub(1, Release);
    }
}

thread_local! {
    /// The pool and queue index of the worker running on this thread, if any.
    static CURRENT: Cell<Option<(*const Shared, usize)>> = const { Cell::new(None) };
    /// This thread's submission probe (0 until its first submission). [JDK: the
    /// `ThreadLocalRandom` probe]
    static PROBE: Cell<u32> = const { Cell::new(0) };
}

/// A minimal pool: `workers` threads, each owning the queue at index `2w + 1`, taking its own
/// tasks LIFO and otherwise scanning every other queue from a random start with an odd stride,
/// as JDK 25's `runWorker` does (it visits its own slot too, empty by then). Idle workers spin, yield and then sleep briefly; chapter 7
/// replaces that with signalling and parking. Generic over the steal accounting `S`.
pub struct Pool<S: StealOps = Reference> {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    accounting: PhantomData<fn() -> S>,
}

impl<S: StealOps> Pool<S> {
    /// A pool of `workers` threads.
    pub fn new(workers: usize) -> Self {
        Self::build(workers, false)
    }

    /// A pool that also keeps the ground truth of its steals (a shared counter, for tests and
    /// the notebook; see [`Pool::ground_truth`]).
    pub fn with_ground_truth(workers: usize) -> Self {
        Self::build(workers, true)
    }

    fn build(workers: usize, truth: bool) -> Self {
        assert!(workers >= 1, "a pool needs a worker");
        let len = queues_len(workers);
        let shared = Arc::new(Shared {
            queues: Queues::new(len, workers, 0),
            nsteals: (0..len).map(|_| CachePadded::new(AtomicU32::new(0))).collect(),
            steal_count: AtomicU64::new(0),
            truth: truth.then(|| AtomicU64::new(0)),
            pending: AtomicUsize::new(0),
            shutdown: AtomicBool::new(false),
            panics: AtomicU64::new(0),
        });
        let workers = (0..workers)
            .map(|w| {
                let shared = shared.clone();
                std::thread::Builder::new()
                    .name(format!("ch06-worker-{w}"))
                    .spawn(move || run_worker::<S>(&shared, 2 * w + 1))
                    .expect("spawn a worker thread")
            })
            .collect();
        Pool { shared, workers, accounting: PhantomData }
    }

    /// Runs `f` on the pool. From a thread outside the pool it goes to a submission queue
    /// (chapter 5); from one of this pool's workers, to that worker's own queue.
    pub fn submit(&self, f: impl FnOnce() + Send + 'static) {
        submit_to(&self.shared, Box::new(f));
    }

    /// The pool's steal count, with `S`'s accounting. [JDK: `getStealCount`]
    pub fn get_steal_count(&self) -> u64 {
        S::get_steal_count(&self.shared.steal_count, &self.shared.nsteals)
    }

    /// The exact number of steals so far, if the pool keeps it ([`Pool::with_ground_truth`]).
    pub fn ground_truth(&self) -> Option<u64> {
        self.shared.truth.as_ref().map(|t| t.load(SeqCst))
    }

    /// Waits until every task submitted so far (and every task they forked) has finished.
    ///
    /// # Panics
    /// If a worker thread has died: a panic outside any task (in the steal accounting, say)
    /// ends the worker, and waiting for its tasks could then last forever.
    pub fn wait_quiescent(&self) {
        while self.shared.pending.load(Acquire) != 0 {
            if self.workers.iter().any(|w| w.is_finished()) {
                panic!(
                    "a worker thread of the pool died while tasks were pending: a panic outside \
                     any task (its message is above), e.g. in the steal accounting"
                );
            }
            std::thread::sleep(Duration::from_micros(50));
        }
    }

    /// Tasks that panicked so far.
    pub fn panics(&self) -> u64 {
        self.shared.panics.load(Relaxed)
    }

    /// Finishes every pending task, stops the workers and joins them. Their counts move to the
    /// pool's `steal_count` as they exit.
    pub fn shutdown(mut self) -> u64 {
        self.stop();
        self.get_steal_count()
    }

    fn stop(&mut self) {
        self.shared.shutdown.store(true, Release); // Release: pairs with the workers' Acquire
        join_workers(&mut self.workers);
    }
}

impl<S: StealOps> Drop for Pool<S> {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Joins every worker thread; panics if one died of a panic outside any task, unless the caller
/// is already unwinding (from `wait_quiescent`, say), where a second panic would abort.
pub fn join_workers(workers: &mut Vec<JoinHandle<()>>) {
    let died = workers.drain(..).filter_map(|w| w.join().err()).count();
    if died > 0 && !std::thread::panicking() {
        panic!("{died} worker thread(s) panicked outside a task (messages above)");
    }
}

/// Pushes `job` into the current worker's own queue, when called from inside a task; returns
/// the job back when this thread is not a pool worker. [JDK: `ForkJoinTask.fork`, which off a
/// worker submits to the common pool instead]
pub fn fork(f: impl FnOnce() + Send + 'static) -> Result<(), Job> {
    let job: Job = Box::new(f);
    match CURRENT.get() {
        Some((shared, _)) => {
            // SAFETY: CURRENT is set only while `run_worker` runs on this thread, and that
            // frame holds an `Arc<Shared>`: the pointer is alive.
            submit_to(unsafe { &*shared }, job);
            Ok(())
        }
        None => Err(job),
    }
}

fn submit_to(shared: &Shared, job: Job) {
    // Counted before it can run: `pending` never reads 0 while this job exists.
    shared.pending.fetch_add(1, Relaxed); // Relaxed: the push below publishes the job itself
    let own = match CURRENT.get() {
        Some((current, own)) if std::ptr::eq(current, shared) => Some(own),
        _ => None,
    };
    if let Err(full) = push_job(&shared.queues, own, job) {
        // The queues grow to 2^30 slots: a full one means the process is out of memory soon.
        shared.pending.fetch_sub(1, Relaxed);
        panic!("ch06 pool: a queue reached its maximum capacity {}", full.capacity);
    }
}

/// Pushes `job` into `queues`: by the owner's path (chapter 5's push, no lock) into the queue at
/// `own` when the caller is that queue's worker, otherwise through a submission queue found with
/// this thread's probe. A full queue hands the job back. Chapter 7's pool pushes through this too.
///
/// Inlined, with the submission path out of line: a worker's fork then writes its job straight
/// into the queue's box instead of copying it through two calls.
#[inline(always)]
pub fn push_job<T>(queues: &Queues<T>, own: Option<usize>, job: T) -> Result<(), Full<T>> {
    match own {
        Some(own) => push_own(queues.get(own).expect("a worker's queue"), job),
        None => submit_job(queues, job),
    }
}

/// The owner's push into its own queue `q` (chapter 5's push, no lock): `push_job`'s path for
/// a worker that has its queue at hand. Only the worker that owns `q` may call it.
#[inline(always)]
pub fn push_own<T>(q: &Queue<T>, job: T) -> Result<(), Full<T>> {
    ch05_phase::lock::push(q.work(), &q.phase, job, true)
}

/// `push_job` from outside the pool: into a submission queue found with this thread's probe.
#[inline(never)]
fn submit_job<T>(queues: &Queues<T>, job: T) -> Result<(), Full<T>> {
    let mut probe = PROBE.get();
    if probe == 0 {
        probe = new_probe();
    }
    let pushed = queues.submission_queue(&mut probe).push(job);
    PROBE.set(probe);
    pushed
}

/// One scan of every queue but `own`, from a start and an odd stride drawn from `r` (an odd
/// stride over a power-of-two array visits every slot): the first task stolen, and the index of
/// the queue it came from. [JDK: the scan loop of `runWorker`, which does not skip its own
/// slot: that queue is empty by then]
pub fn scan<T>(queues: &Queues<T>, own: usize, r: u32) -> Option<(usize, T)> {
    let n = queues.len();
    let (mut i, step) = (r as usize, ((r >> 16) | 1) as usize);
    for _ in 0..n {
        let j = i & (n - 1);
        i = i.wrapping_add(step);
        if j != own
            && let Some(job) = queues.get(j).and_then(steal)
        {
            return Some((j, job));
        }
    }
    None
}

/// The owner's LIFO take from its own queue. Only the worker that owns `q` may call it.
#[inline]
pub fn pop_own<T>(q: &Queue<T>) -> Option<T> {
    // SAFETY: only the worker that owns `q` calls this: the owner's pop (chapter 4's, whose
    // box waits for the worker's next push at the same index).
    unsafe { ch04_grow::pop(q.work()) }
}

/// A thief's take from any queue.
pub fn steal<T>(q: &Queue<T>) -> Option<T> {
    // An empty queue costs two loads, not a pin: a scan passes over many empty queues, and a
    // task pushed just after this look is found by the next scan (or by the idle worker's
    // recheck). [JDK: `runWorker`'s scan never reads `top`: on a null slot at `b` it moves on
    // to the next queue when the slots at `b + 1` and `b + 2` are null too, or, once this
    // pass has taken a task, ends the pass and starts a new scan]
    if q.work().is_empty() {
        return None;
    }
    let pin = pin();
    // SAFETY: `poll` returns null or a pointer its CAS took, under `pin`.
    unsafe { take_keeping_box(ch04_grow::take::poll(q.work(), &mut PollStats::default()), &pin) }
}

// ANCHOR: run_worker
/// A worker's life: its own tasks first, then a scan of the others; every take goes through
/// `S::count_take`, and the count moves to the pool when the worker exits.
/// [JDK: `runWorker`, `deregisterWorker`]
fn run_worker<S: StealOps>(shared: &Arc<Shared>, own: usize) {
    CURRENT.set(Some((Arc::as_ptr(shared), own)));
    let me = shared.queues.get(own).expect("the worker's queue is registered");
    let mut r = (own as u32).wrapping_mul(0x9e37_79b9) | 1; // seed of the scan order
    let mut idle = 0u32;
    loop {
        if let Some(job) = pop_own(me) {
            S::count_take(&shared.nsteals[own], own, own);
            shared.run(job);
            idle = 0;
            continue;
        }
        r = advance_probe(r);
        if let Some((from, job)) = scan(&shared.queues, own, r) {
            if let Some(truth) = &shared.truth {
                truth.fetch_add(1, SeqCst); // before the worker's count: truth >= the count
            }
            S::count_take(&shared.nsteals[own], from, own);
            shared.run(job);
            idle = 0;
        } else if shared.shutdown.load(Acquire) && shared.pending.load(Acquire) == 0 {
            break;
        } else {
            idle += 1;
            if idle < 64 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(100)); // chapter 7 parks instead
            }
        }
    }
    S::retire(&shared.nsteals[own], &shared.steal_count);
    CURRENT.set(None);
}
// ANCHOR_END: run_worker
