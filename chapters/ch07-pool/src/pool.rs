use std::cell::{Cell, UnsafeCell};
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Arc;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize};
use std::thread::JoinHandle;

use ch02_poll::reclaim;
use ch05_phase::{Queues, advance_probe};
use ch06_nsteals::steals::{count_take, get_steal_count, retire};
use ch06_nsteals::{Job, join_workers, pop_own, push_job};
use crossbeam_utils::CachePadded;

use crate::scan::{Polled, scan};
use crate::sync::yield_now;
use crate::task::{RunOnce, Task};
use crate::{IdleOps, Reference, Sleep};

/// What the workers, the submitters and the handles share.
struct Shared {
    /// Submission queues at even indices, workers' at odd ones (chapter 5).
    queues: Queues<Task>,
    /// Chapter 6's per-worker steal counts (odd indices) and the exited workers' total.
    nsteals: Box<[CachePadded<AtomicU32>]>,
    steal_count: AtomicU64,
    /// Idle workers and how to wake them. Padded, as `submitting`: workers going idle and
    /// submitters write these, and every fork reads `shutdown`, which must not share their line.
    sleep: CachePadded<Sleep>,
    /// Threads from outside the pool between "not shut down" and "task visible in a queue"
    /// (see `push`). Tasks pushed by workers are not counted: a worker exits only after a scan
    /// finds every queue empty, and only a worker pushes to its own queue, so a task a worker
    /// pushed is run before that worker exits. Nothing is counted per task.
    submitting: CachePadded<AtomicUsize>,
    /// Set by `close`: no new tasks are accepted; workers exit once every queue is empty and
    /// no submitter is between its check and its push.
    shutdown: AtomicBool,
    /// Tasks that panicked on a worker (each panic also reaches its joiner).
    panics: AtomicU64,
    /// Set when a worker thread dies of a panic outside any task (in the idle or join code):
    /// its queue's tasks may then never run, so waiters give up with an error, not a hang.
    broken: AtomicBool,
    parallelism: usize,
}

thread_local! {
    /// Where this thread's next helping scan starts (see `run_one`).
    static HELP_SEED: Cell<u32> = const { Cell::new(0x9e37_79b9) };
    /// The pool, queue index and waiting strategy of the worker running on this thread.
    static CURRENT: Cell<Option<(*const Shared, usize, Helps)>> = const { Cell::new(None) };
}

/// Why a task was not accepted. The task comes back: nothing is lost.
pub struct Rejected(pub Job);

impl std::fmt::Debug for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Rejected(the pool is shut down)")
    }
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the pool is shut down: task rejected (and handed back)")
    }
}

impl std::error::Error for Rejected {}

impl From<Task> for Rejected {
    /// The task, runnable again as a closure; dropped unrun, it frees what it holds. Only for
    /// tasks from `Task::shared` (`submit`, `fork`): an `on_stack` task points into a frame and
    /// must never become a `'static` closure; `join_in_task` runs a rejected fork at once.
    fn from(task: Task) -> Self {
        Rejected(Box::new(move || task.run()))
    }
}

/// How a thread waits for a task's result: the worker's `help_until` (the pool's `I`), or
/// sleep for a thread outside the pool.
type Helps = fn(&Shared, &dyn Fn() -> bool);

/// The result of one task: written once by the task, then published by `done`; read once by
/// whoever waits for it, after `done`. It lives in an `Arc` shared with a [`Handle`] (`submit`,
/// `fork`), or in the frame of `join_in_task`, which does not return before the task has run.
struct ResultSlot<R> {
    /// Set (Release) once `value` is written; after that the task never touches the slot.
    done: AtomicBool,
    /// Written once by the task, before `done`; read once by the waiter, after `done`.
    value: UnsafeCell<Option<std::thread::Result<R>>>,
}

// SAFETY: `value` is written by one task, once, before the Release store of `done`, and read by
// one waiter (`join` consumes its handle), once, after an Acquire load of `done` saw true: the
// two accesses never overlap. `R: Send` because the value moves from the task's thread.
unsafe impl<R: Send> Sync for ResultSlot<R> {}

impl<R> ResultSlot<R> {
    fn new() -> Self {
        ResultSlot { done: AtomicBool::new(false), value: UnsafeCell::new(None) }
    }

    /// Runs `f` and stores its result (or its panic, also counted in the pool's stats), then
    /// publishes it. Takes a raw pointer: the waiter may free the slot as soon as `done` is
    /// true, so no reference to it may outlive that store.
    ///
    /// # Safety
    /// `this` points to a live slot until `done` is set, and `run` is called once per slot.
    unsafe fn run(this: *const Self, f: impl FnOnce() -> R) {
        let result = call(f);
        // SAFETY: the slot is alive (caller), and no one reads `value` before `done`.
        unsafe {
            *(*this).value.get() = Some(result);
            // Release: the value above is written before `done` reads true. Nothing after this
            // store may touch the slot: the waiter can free it at once.
            (*this).done.store(true, Release);
        }
    }

    fn is_done(&self) -> bool {
        self.done.load(Acquire) // Acquire: pairs with `run`'s Release
    }

    /// # Safety
    /// Only after `is_done()` returned true, and once.
    unsafe fn take(&self) -> std::thread::Result<R> {
        // SAFETY: the caller saw `done`: the task has written `value` and is gone.
        unsafe { (*self.value.get()).take().expect("taken once, after done") }
    }
}

/// A task not yet run: its closure and the slot for its result. In `join_in_task`'s frame for a
/// forked half, or in one `Arc` that the queued task and the [`Handle`] share for `submit` and
/// `fork`.
struct Pending<F, R> {
    /// Taken once, by the run.
    f: UnsafeCell<Option<F>>,
    /// Its result, read by whoever waits, after `done`.
    slot: ResultSlot<R>,
}

// SAFETY: `f` is taken by the one run (on one thread) and never touched again; `slot` is
// `ResultSlot`'s own protocol. F and R move between threads: both Send.
unsafe impl<F: Send, R: Send> Sync for Pending<F, R> {}

impl<F: FnOnce() -> R, R> Pending<F, R> {
    fn new(f: F) -> Self {
        Pending { f: UnsafeCell::new(Some(f)), slot: ResultSlot::new() }
    }

    /// Runs the closure into the slot. A raw pointer, as `ResultSlot::run` takes: the waiter
    /// may free a frame-held task as soon as `done` is set.
    ///
    /// # Safety
    /// `this` points to a live `Pending` until its slot is done, and this is called once.
    unsafe fn run(this: *const Self) {
        // SAFETY: live (caller); the one call, so no one else touches `f`.
        let f = unsafe { (*(*this).f.get()).take() }.expect("a task runs once");
        // SAFETY: `slot` is live until it is done, and is run once; nothing here touches
        // `this` after `ResultSlot::run` publishes the result.
        unsafe { ResultSlot::run(&raw const (*this).slot, f) }
    }

    /// Runs the closure on this thread and returns its result, leaving the slot alone: for a
    /// task taken back out of the queue by the one who forked it (`join_in_task`).
    ///
    /// # Safety
    /// The task is no longer queued (its queued `Task` was taken by the caller), so no one else
    /// can run it; and it has not run.
    unsafe fn run_here(&self) -> std::thread::Result<R> {
        // SAFETY: the caller's contract: the one run, on this thread.
        let f = unsafe { (*self.f.get()).take() }.expect("a task runs once");
        call(f)
    }

    /// `run` for `Task::on_stack`, which erases the type.
    ///
    /// # Safety
    /// As `run`, for `data` pointing to a `Pending<F, R>`.
    unsafe fn run_erased(data: *const ()) {
        // SAFETY: as above.
        unsafe { Self::run(data.cast()) }
    }
}

impl<F: FnOnce() -> R + Send, R: Send> RunOnce for Pending<F, R> {
    fn run_once(&self) {
        // SAFETY: the task's Arc keeps `self` alive through the run, and a task runs once
        // (`Task::run` consumes it).
        unsafe { Pending::run(self) }
    }
}

/// What a [`Handle`] needs of its task: the result slot (the closure's type is erased).
trait HasSlot<R>: Send + Sync {
    fn slot(&self) -> &ResultSlot<R>;
}

impl<F: Send, R: Send> HasSlot<R> for Pending<F, R> {
    fn slot(&self) -> &ResultSlot<R> {
        &self.slot
    }
}

/// A submitted or forked task's result. [JDK: the `ForkJoinTask` returned by `submit`/`fork`]
pub struct Handle<R> {
    task: Arc<dyn HasSlot<R>>,
    /// For a handle from `submit`: the pool and its waiting strategy. `None` for one from
    /// `fork`, which would otherwise bump the pool's one shared reference count on every fork
    /// and every join (the contended line that was a third of a fork's time): its `join` helps
    /// whichever pool the joining thread works for, if any. The pool need not be kept alive for
    /// it: a pool runs every task it accepted before its workers exit.
    pool: Option<(Arc<Shared>, Helps)>,
}

impl<R> Handle<R> {
    /// Waits for the task and returns its value, or the payload of its panic. From a worker of
    /// a pool, the wait helps (runs other tasks of that pool); elsewhere it sleeps.
    pub fn join(self) -> std::thread::Result<R> {
        let done = || self.task.slot().is_done();
        // A loop: the helping wait may be the reader's code (it must not return early).
        while !done() {
            match self
                .pool
                .as_ref()
                .map(|(shared, helps)| (&**shared, *helps))
                .or_else(|| current())
            {
                Some((shared, helps)) => helps(shared, &done),
                None => wait_outside(None, &done),
            }
        }
        // SAFETY: `done` returned true, and `join` consumes the only handle to this slot.
        unsafe { self.task.slot().take() }
    }

    /// Whether the task has finished.
    pub fn is_done(&self) -> bool {
        self.task.slot().is_done()
    }
}

/// What `stats` reports. [JDK: `getParallelism`, `getStealCount`, `getQueuedTaskCount`]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Worker threads.
    pub parallelism: usize,
    /// Chapter 6's count: exact when quiescent.
    pub steal_count: u64,
    /// Tasks sitting in queues (not yet taken), summed without a lock.
    pub queued_task_count: usize,
    /// Workers parked right now.
    pub sleeping: usize,
    /// Tasks that panicked so far.
    pub panics: u64,
}

/// A work-stealing pool built from chapters 1-6: `parallelism` workers, each owning a queue at
/// an odd index; external submission through chapter 5's submission queues; fork/join with
/// helping; idle workers park and are signalled. Generic over the idle and join mechanism `I`
/// (the reference or the reader's exercise).
pub struct ThreadPool<I: IdleOps = Reference> {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    ops: PhantomData<fn() -> I>,
}

impl<I: IdleOps> ThreadPool<I> {
    /// A pool of `parallelism` (at least 1) worker threads.
    pub fn new(parallelism: usize) -> Self {
        assert!(parallelism >= 1, "a pool needs at least one worker");
        let len = (4 * parallelism).next_power_of_two().max(16);
        let shared = Arc::new(Shared {
            queues: Queues::new(len, parallelism, 0),
            nsteals: (0..len).map(|_| CachePadded::new(AtomicU32::new(0))).collect(),
            steal_count: AtomicU64::new(0),
            sleep: CachePadded::new(Sleep::new(parallelism)),
            submitting: CachePadded::new(AtomicUsize::new(0)),
            shutdown: AtomicBool::new(false),
            panics: AtomicU64::new(0),
            broken: AtomicBool::new(false),
            parallelism,
        });
        let workers = (0..parallelism)
            .map(|w| {
                let shared = shared.clone();
                std::thread::Builder::new()
                    .name(format!("ch07-worker-{w}"))
                    .spawn(move || run_worker::<I>(&shared, w))
                    .expect("spawn a worker thread")
            })
            .collect();
        ThreadPool { shared, workers, ops: PhantomData }
    }

    /// Runs `f` on the pool and returns a handle to its result. From outside the pool the task
    /// goes to a submission queue, from a worker to its own queue. After `shutdown` the task is
    /// rejected and handed back inside the error.
    pub fn submit<R: Send + 'static>(
        &self,
        f: impl FnOnce() -> R + Send + 'static,
    ) -> Result<Handle<R>, Rejected> {
        submit_to::<I, R>(&self.shared, f)
    }

    /// Runs `a` and `b`, possibly in parallel, and returns both results. Called from a worker of
    /// this pool it forks `b` and runs `a` itself; from outside it submits the whole join and
    /// waits. A panic in either reaches the caller (after both have finished).
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send + 'static,
        B: FnOnce() -> RB + Send + 'static,
        RA: Send + 'static,
        RB: Send + 'static,
    {
        if on_worker_of(&self.shared).is_some() {
            return join_in_task(a, b);
        }
        let h = self.submit(move || join_in_task(a, b)).expect("the pool is running");
        h.join().unwrap_or_else(|p| resume_unwind(p))
    }

    /// Parallelism, steal count, queued tasks, sleepers and panics, read without stopping anyone.
    pub fn stats(&self) -> Stats {
        let s = &self.shared;
        Stats {
            parallelism: s.parallelism,
            steal_count: get_steal_count(&s.steal_count, &s.nsteals),
            queued_task_count: s.queues.iter().map(|(_, q)| q.work().len()).sum(),
            sleeping: s.sleep.sleeping(),
            panics: s.panics.load(Relaxed),
        }
    }

    /// Stops accepting tasks; runs every task already accepted; stops and joins the workers.
    /// Returns the final stats (the steal count is exact). [JDK: `shutdown` + `awaitTermination`]
    pub fn shutdown(mut self) -> Stats {
        self.stop();
        self.stats()
    }

    /// Stops accepting tasks: every later `submit` (and every `fork` inside a task) is rejected
    /// with its task handed back. Tasks already accepted still run. [JDK: `shutdown`]
    pub fn close(&self) {
        // SeqCst: pairs with `push`'s announce-then-check and with `may_exit`.
        self.shared.shutdown.store(true, SeqCst);
        self.shared.sleep.signal_all();
    }

    fn stop(&mut self) {
        self.close();
        join_workers(&mut self.workers);
    }
}

impl<I: IdleOps> Drop for ThreadPool<I> {
    fn drop(&mut self) {
        self.stop();
    }
}

/// `Some(own queue index)` when this thread is a worker of `shared`.
#[inline]
fn on_worker_of(shared: &Shared) -> Option<usize> {
    match CURRENT.get() {
        Some((p, own, _)) if std::ptr::eq(p, shared) => Some(own),
        _ => None,
    }
}

/// The pool the current thread works for, if any, with its waiting strategy.
fn current() -> Option<(&'static Shared, Helps)> {
    current_worker().map(|(shared, _, helps)| (shared, helps))
}

/// The pool the current thread works for, if any, its queue's index and its waiting strategy.
#[inline]
fn current_worker() -> Option<(&'static Shared, usize, Helps)> {
    // SAFETY: CURRENT is set only while `run_worker` runs on this thread, and that frame holds
    // an `Arc<Shared>`; tasks run inside that frame, so the reference does not outlive it.
    CURRENT.get().map(|(p, own, helps)| (unsafe { &*p }, own, helps))
}

fn submit_to<I: IdleOps, R: Send + 'static>(
    shared: &Arc<Shared>,
    f: impl FnOnce() -> R + Send + 'static,
) -> Result<Handle<R>, Rejected> {
    let (task, job) = spawn(f);
    push(shared, on_worker_of(shared), job)?;
    Ok(Handle { task, pool: Some((shared.clone(), wait_or_help::<I>)) })
}

/// `f` as a task that stores its result (or its panic) in a slot, and the handle's side of it.
fn spawn<F, R>(f: F) -> (Arc<dyn HasSlot<R>>, Task)
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let spawned = Arc::new(Pending::new(f));
    let job = Task::shared(spawned.clone());
    (spawned, job)
}

/// Runs a task's closure, catching its panic (counted in the pool's stats).
fn call<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    let result = catch_unwind(AssertUnwindSafe(f));
    count_panic(&result);
    result
}

/// Counts a task's panic in the stats of the pool whose worker ran it.
fn count_panic<R>(result: &std::thread::Result<R>) {
    if result.is_err()
        && let Some((shared, _)) = current()
    {
        shared.panics.fetch_add(1, Relaxed); // Relaxed: a statistic
    }
}

// ANCHOR: push
/// Accepts `task` unless the pool is shut down, pushes it (a worker to its own queue `own`,
/// anyone else to a submission queue), then signals an idle worker (a worker's push only when
/// its queue looked empty). `own`: `on_worker_of(shared)`, which the caller often knows.
///
/// Inlined: called out of line, it reloaded the task its caller had just written through a
/// failed store forward, a tenth of a fork's time in the profile.
#[inline(always)]
fn push(shared: &Shared, own: Option<usize>, task: Task) -> Result<(), Task> {
    let pushed = if let Some(w) = own {
        // A worker's fork: the worker is alive, and scans its own queue before it exits.
        if shared.shutdown.load(Relaxed) {
            return Err(task); // Relaxed: only whether to accept; nothing is lost
        }
        let pushed = push_job(&shared.queues, own, task);
        if pushed.is_ok() && !looked_empty(shared, w) {
            return Ok(()); // a task below is still queued: the thief that takes it signals on
        }
        pushed
    } else {
        // From outside: announce, then check. SeqCst on both sides (here and in `close` and
        // `may_exit`): either the worker's exit check sees us, or we see the shutdown.
        shared.submitting.fetch_add(1, SeqCst);
        if shared.shutdown.load(SeqCst) {
            shared.submitting.fetch_sub(1, Relaxed); // Relaxed: nothing was pushed
            return Err(task);
        }
        let pushed = push_job(&shared.queues, None, task);
        // Release: a worker that reads our decrement then sees the task in its queue.
        shared.submitting.fetch_sub(1, Release);
        pushed
    };
    pushed.map_err(|full| full.into_task())?;
    shared.sleep.signal(); // the producer's half of the handshake
    Ok(())
}
// ANCHOR_END: push

// ANCHOR: looked_empty
/// After the owner's push into its queue `own`: whether the slot below the new task is empty,
/// so that the queue may have looked empty to a worker that then went idle. Only then does the
/// push signal. When the slot below holds a task, the push that put it there (or one below)
/// found an empty slot and signalled, and a woken thief that leaves tasks behind wakes the next
/// worker (`propagate`). Most forks land on a non-empty queue and skip the fence and the
/// sleepers' lock. Skipping can cost parallelism, never a task: a worker runs every task of its
/// own queue before it goes idle or exits. [JDK 25: `WorkQueue.push` calls `signalWork` only
/// when the slot at `s - 1` is null]
#[inline]
fn looked_empty(shared: &Shared, own: usize) -> bool {
    let q = shared.queues.get(own).expect("a worker's queue").work();
    let s = q.top.load(Relaxed).wrapping_sub(1); // Relaxed: the owner's own field
    // SeqCst, after the push's SeqCst swap: with the thief's SeqCst CAS and its SeqCst look at
    // the next slot (`propagate`), one of the two sees the other, so one of them signals.
    // (The JDK reads with getReferenceAcquire after a full fence; free on x86 either way.)
    q.array().at(s.wrapping_sub(1)).load(SeqCst).is_null()
}
// ANCHOR_END: looked_empty

// ANCHOR: join_in_task
/// Forks `b` and runs `a` on the current worker, then waits for `b` while helping; returns both
/// results. A panic in either reaches the caller, after both have finished. Panics when not
/// called from a task. [JDK: `ForkJoinTask.invokeAll(a, b)`: fork, compute, join]
///
/// The forked task, `b` and the slot for its result, lives in this frame, not in an
/// allocation: this call does not return before `b` has run, so the frame outlives the task
/// (rayon's `StackJob` makes the same argument). The queue's box is the fork's one allocation.
pub fn join_in_task<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send + 'static,
    B: FnOnce() -> RB + Send + 'static,
    RA: Send + 'static,
    RB: Send + 'static,
{
    let (shared, own, helps) =
        current_worker().expect("join_in_task runs inside a task of a ThreadPool");
    let forked = Pending::new(b);
    // SAFETY: `forked` stays in this frame until `done` (below, and the guard when unwinding);
    // `Pending::run` is sound once from any thread (B and RB are Send).
    let task = unsafe {
        Task::on_stack(&forked as *const Pending<B, RB> as *const (), Pending::<B, RB>::run_erased)
    };
    // If anything below unwinds before `b` has run, the queued task would write into a dead
    // frame: abort instead. (`a` and every helped task catch their own panics, so only a bug
    // in the waiting code itself can get here.)
    let guard = AbortOnUnwind;
    // After a shutdown the fork is rejected: run `b` here instead (nothing is lost).
    push(shared, Some(own), task).unwrap_or_else(Task::run);
    let ra = catch_unwind(AssertUnwindSafe(a));
    // Most often no one has stolen `b`: it is still on top of this worker's queue. Take it back
    // and call it here, like `a`, with no result slot and no helping loop. Anything else on top
    // (a task `a` forked and did not join) is run as the helping wait would run it first.
    // [JDK 25: `awaitDone` -> `helpJoin` -> `tryRemoveAndExec`, which takes the task back
    // only if it finds it, scanning down from the top]
    if let Some(top) = shared.queues.get(own).and_then(pop_own) {
        if top.data() == &raw const forked as *const () {
            std::mem::forget(top); // ours, run below (dropping an `on_stack` task does nothing)
            std::mem::forget(guard); // nothing queued points into this frame any more
            // SAFETY: we took the task out of the queue with its owner's swap, so no one else
            // can run it, and it has not run.
            let rb = unsafe { forked.run_here() };
            return both(ra, rb);
        }
        top.run(); // a wrapped task catches its own panic
    }
    let done = || forked.slot.is_done();
    // A loop, not one call: `help_until` may be the reader's code, and returning before `done`
    // would free this frame under the queued task. A panic there aborts, saying which.
    let waited = catch_unwind(AssertUnwindSafe(|| {
        while !done() {
            helps(shared, &done);
        }
    }));
    if let Err(panic) = waited {
        abort_in_join(Some(&*panic));
    }
    std::mem::forget(guard);
    // SAFETY: `done` returned true: the task has stored its result and will not touch `forked`.
    let rb = unsafe { forked.slot.take() };
    both(ra, rb)
}

/// Both results of a join, or the first side's panic (`a`'s before `b`'s).
fn both<RA, RB>(ra: std::thread::Result<RA>, rb: std::thread::Result<RB>) -> (RA, RB) {
    match (ra, rb) {
        (Ok(ra), Ok(rb)) => (ra, rb),
        (Err(p), _) | (_, Err(p)) => resume_unwind(p),
    }
}
// ANCHOR_END: join_in_task

/// fib(n) with one fork and one join per call and no cutoff: the smallest possible task,
/// so a run of it measures the pool's own cost per fork (the benchmarks, the lab and the
/// tests use it). Must run inside a task of a [`ThreadPool`].
pub fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = join_in_task(move || fib(n - 1), move || fib(n - 2));
    a + b
}

/// Aborts the process if dropped while unwinding (see `join_in_task`).
struct AbortOnUnwind;

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        if std::thread::panicking() {
            abort_in_join(None);
        }
    }
}

/// Aborts from `join_in_task`, whose queued task may still write into its frame, after saying
/// why on stderr: written directly, since a test harness captures `eprintln!` and would lose it
/// with the process.
fn abort_in_join(panic: Option<&(dyn std::any::Any + Send)>) -> ! {
    use std::io::Write;
    let message = panic
        .and_then(|p| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .or_else(|| panic.and_then(|p| p.downcast_ref::<String>().cloned()))
        .unwrap_or_else(|| "a panic".into());
    let _ = writeln!(
        std::io::stderr(),
        "ch07-pool: join_in_task's wait panicked ({message}) while its forked task could still \
         run and write into the frame; aborting"
    );
    std::process::abort()
}

/// Waits until `done`: a worker of this pool helps (the exercise's `help_until`); any other
/// thread yields and sleeps.
fn wait_or_help<I: IdleOps>(shared: &Shared, done: &dyn Fn() -> bool) {
    match on_worker_of(shared) {
        Some(own) => I::help_until(done, || run_one(shared, own)),
        None => wait_outside(Some(shared), done),
    }
}

/// A thread that cannot help (not a worker of the task's pool) yields, then sleeps, until
/// `done`; with the pool at hand, it gives up if a worker died outside any task.
fn wait_outside(shared: Option<&Shared>, done: &dyn Fn() -> bool) {
    let mut spins = 0u32;
    while !done() {
        assert!(
            !shared.is_some_and(|s| s.broken.load(Relaxed)),
            "a worker thread of the pool died of a panic outside any task (its message is \
             above): the task waited for may never run"
        );
        spins += 1;
        if spins < 100 {
            std::thread::yield_now();
        } else {
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
    }
}

/// Takes one task (own queue first, then a scan of the others) and runs it; false if none.
/// A helping take is not counted as a steal, as in the JDK, whose `helpJoin` leaves `nsteals`
/// alone: only the worker loop's scan counts (`count_take`).
fn run_one(shared: &Shared, own: usize) -> bool {
    // Each help starts its scan somewhere else: a fixed start would send every helping
    // joiner to the same queue first.
    let seed = advance_probe(HELP_SEED.get());
    HELP_SEED.set(seed);
    match take(shared, own, seed) {
        Polled::Task((_, task)) => {
            task.run(); // a wrapped task catches its own panic
            true
        }
        Polled::Empty | Polled::Stalled => false,
    }
}

/// Own queue first, then a scan of the others from `seed`: the task and the queue it came from.
fn take(shared: &Shared, own: usize, seed: u32) -> Polled<(usize, Task)> {
    if let Some(task) = shared.queues.get(own).and_then(pop_own) {
        return Polled::Task((own, task));
    }
    let found = scan(&shared.queues, own, advance_probe(seed));
    if let Polled::Task((from, _)) = found {
        propagate(shared, from);
    }
    found
}

// ANCHOR: propagate
/// After a steal from queue `from`: if a task waits at the new `base`, wake another worker for
/// it. The owner's pushes signal only when the slot below looked empty (`looked_empty`), so a
/// thief that takes the first of many tasks passes the signal on. Either the pushing owner sees
/// the slot below still full (and skips), and then this thief's look comes later in the SeqCst
/// order and sees the new task; or the owner sees it emptied and signals itself. [JDK 25: the
/// scan in `runWorker` calls `signalWork` when the slot after the one it took is not null]
fn propagate(shared: &Shared, from: usize) {
    let Some(q) = shared.queues.get(from).map(|q| q.work()) else { return };
    let b = q.base.load(Acquire); // at least one past the task we took (our own store, or later)
    if !q.array().at(b).load(SeqCst).is_null() {
        // SeqCst: see above
        shared.sleep.signal();
    }
}
// ANCHOR_END: propagate

/// A worker whose scan found nothing may exit: the pool is shut down, no submitter is between
/// its check and its push, and every queue is empty. (A task pushed after this check can only
/// come from a worker that is still running, which will find it in its own queue.)
fn may_exit(shared: &Shared) -> bool {
    // SeqCst: pairs with `push`'s announce-then-check (Dekker); the queues are read after it.
    shared.shutdown.load(SeqCst)
        && shared.submitting.load(SeqCst) == 0
        && shared.queues.iter().all(|(_, q)| q.work().is_empty())
}

/// Whether any queue holds a task (the idle worker's recheck), or the pool is shutting down.
fn has_work(shared: &Shared) -> bool {
    shared.shutdown.load(Acquire) || shared.queues.iter().any(|(_, q)| !q.work().is_empty())
}

// ANCHOR: run_worker
/// A worker: take and run tasks; when a full scan finds none, go idle with the exercise's
/// `await_work` (announce, recheck, park); exit once shut down and every queue is empty.
/// [JDK: `runWorker`, `deactivate`, `awaitWork`]
fn run_worker<I: IdleOps>(shared: &Arc<Shared>, w: usize) {
    /// Marks the pool broken if the worker unwinds (a panic outside any task).
    struct Alive<'a>(&'a Shared);
    impl Drop for Alive<'_> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                self.0.broken.store(true, Relaxed); // Relaxed: a flag polled by waiters
                self.0.sleep.signal_all(); // let the others see it too
            }
        }
    }
    let _alive = Alive(shared);
    let own = 2 * w + 1;
    // Only this worker pushes to its queue: a thief hands the boxes it takes back here.
    shared.queues.get(own).expect("a worker's queue").work().bind_home(Some(reclaim::home()));
    CURRENT.set(Some((Arc::as_ptr(shared), own, wait_or_help::<I>)));
    let mut r = (own as u32).wrapping_mul(0x9e37_79b9) | 1;
    loop {
        r = advance_probe(r);
        match take(shared, own, r) {
            Polled::Task((from, task)) => {
                count_take(&shared.nsteals[own], from, own); // [JDK: `w.nsteals = ++nsteals`]
                task.run(); // a wrapped task catches its own panic
                continue;
            }
            Polled::Stalled => {
                // Someone is between two stores: scan again, not idle. The yield lets it
                // finish when it is the thread that was descheduled. [JDK: `rescan`]
                yield_now();
                continue;
            }
            Polled::Empty => {}
        }
        if may_exit(shared) {
            break;
        }
        I::await_work(&shared.sleep, w, || has_work(shared));
    }
    retire(&shared.nsteals[own], &shared.steal_count);
    shared.sleep.signal_all(); // the last ones out must not leave others asleep
    CURRENT.set(None);
}
// ANCHOR_END: run_worker

/// Forks `f` from inside a task: it goes to this worker's queue. Returns its handle, or the
/// task back (as a runnable job) when not called on a worker, or after shutdown.
/// [JDK: `ForkJoinTask.fork`]
pub fn fork<R: Send + 'static>(
    f: impl FnOnce() -> R + Send + 'static,
) -> Result<Handle<R>, Rejected> {
    let Some((shared, _)) = current() else {
        return Err(Rejected(Box::new(move || drop(f()))));
    };
    let (task, job) = spawn(f);
    push(shared, on_worker_of(shared), job)?;
    Ok(Handle { task, pool: None })
}
