//! The pool, one concern per file (rayon-core's layout, as `job.rs`, `latch.rs`, `join/`):
//!
//! - `mod.rs` (here): what the workers share ([`Shared`]), which pool the current thread
//!   works for, and the types the pool's methods return ([`Rejected`], [`Stats`]);
//! - `thread_pool.rs`: [`ThreadPool`] itself and its [`Builder`]: start, submit, join from
//!   outside, stats, close and shutdown;
//! - `worker.rs`: a worker's loop and its takes, and when it may exit;
//! - `signal.rs`: the push, and when a push or a steal wakes an idle worker;
//! - `join.rs`: `join_in_task`, `fork`, and how a thread waits for a forked task;
//! - `result.rs`: a task's closure and result slot ([`Pending`]);
//! - `handle.rs`: the [`Handle`] that waits for a task's result, and `spawn`, which makes both;
//! - `panics.rs`: a task's panic, caught where it runs, counted once, resumed in its joiner.
//!
//! The children see this module's items and imports through `use super::*`.

use std::cell::{Cell, UnsafeCell};
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::ptr::NonNull;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize};
use std::sync::{Arc, PoisonError};
use std::thread::JoinHandle;

use ch04_grow::WorkQueue;
use ch05_phase::{Queue, Queues, advance_probe, queues_len};
use ch06_nsteals::steals::{count_take, get_steal_count, retire};
use ch06_nsteals::{Job, join_workers, pop_own, push_job, push_own};
use crossbeam_utils::CachePadded;

use crate::done::Done;
use crate::scan::{Polled, scan};
use crate::sync::yield_now;
use crate::task::{HeapJob, Task, TaskOps};
use crate::{Reference, Sleep, WaitOps};

mod handle;
mod join;
mod panics;
mod result;
mod signal;
mod thread_pool;
mod worker;

// The children's items, for this module and (through `use super::*`) for each other.
use handle::*;
use join::*;
use panics::*;
use result::*;
use signal::*;
use worker::*;

pub use handle::Handle;
pub use join::{fib, fork, join_in_task};
pub use thread_pool::{Builder, ThreadPool, ThreadPoolWith};

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
    /// Panics in tasks on a worker, each counted once, where it started (each also reaches its
    /// joiner; the tasks it unwinds through on the way do not count it again: `panics::call`).
    panics: AtomicU64,
    /// Set when a worker thread dies of a panic outside any task (in the idle or join code):
    /// its queue's tasks may then never run, so waiters give up with an error, not a hang.
    broken: AtomicBool,
    /// The message of the panic that broke the pool, written before `broken` is set.
    broken_by: std::sync::Mutex<Option<String>>,
    parallelism: usize,
    /// When a worker's push or a steal wakes an idle worker: the pool's `WaitOps` (see
    /// [`Rule`]).
    rule: Rule,
}

impl Shared {
    /// Worker `own`'s queue. A fork looks it up once and passes it on: each lookup is a bounds
    /// check and two loads, which the compiler cannot reuse across the swaps between them.
    #[inline]
    fn own_queue(&self, own: usize) -> &Queue<Task> {
        self.queues.get(own).expect("a worker's queue")
    }
}

thread_local! {
    /// Where this thread's next helping scan starts (see `run_one`).
    static HELP_SEED: Cell<u32> = const { Cell::new(0x9e37_79b9) };
    /// The pool, queue index and waiting strategy of the worker running on this thread.
    static CURRENT: Cell<Option<(*const Shared, usize, Helps)>> = const { Cell::new(None) };
}

/// Why a task was not accepted: the pool is shut down. The task comes back unrun, as it was
/// given (`submit` and `fork`: the closure; `try_join`: both closures): nothing is lost.
pub struct Rejected<F = Job>(pub F);

impl<F> std::fmt::Debug for Rejected<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Rejected(the pool is shut down)")
    }
}

impl<F> std::fmt::Display for Rejected<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the pool is shut down: task rejected (and handed back)")
    }
}

impl<F> std::error::Error for Rejected<F> {}

/// How a thread waits for a task's result: the worker's `help_until` (the pool's `I`), or
/// park for a thread outside the pool (`crate::done`).
type Helps = fn(&Shared, &Done);

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
    /// Panics in tasks so far, each counted once, in the task where it started.
    pub panics: u64,
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
