//! Chapter 7: the pool, built from chapters 1-6, after JDK 25's `ForkJoinPool`.
//!
//! Workers each own a queue at an odd index of chapter 5's `queues` array and run chapter 4's
//! growing queue; they take their own tasks, steal from the others in a pseudo-random scan
//! (xorshift start, odd stride) and count steals as chapter 6 does. What this chapter adds:
//!
//! - [`Sleep`] and [`wait::await_work`]: a worker that finds nothing announces itself idle,
//!   rechecks the queues, and only then parks; a producer signals after its push (a worker's
//!   push only when its queue looked empty, and a thief that leaves tasks behind signals on,
//!   as the JDK's do: [`wait::looked_empty`], [`wait::leaves_work`]). The Dekker-style pair
//!   of fences means no wake-up is lost, and the signal rule that no fork waits for a worker
//!   that sleeps (a push that grows the array signals too, as the JDK's does: the page, "When
//!   a push wakes a worker"; loom models of both, and tests that every waiting fork gets a
//!   worker and that a growing push wakes one).
//! - [`ThreadPool::submit`], [`Handle::join`], [`fork`], [`join_in_task`]: tasks with results;
//!   a worker that waits for a forked task helps by running other tasks
//!   ([`wait::help_until`]) instead of blocking, so even one worker never deadlocks.
//! - Panics reach the joiner; the pool goes on. `shutdown` runs what was accepted, rejects
//!   what comes after (handing the task back), and joins the threads.
//! - [`ThreadPool::stats`]: parallelism, steal count, queued tasks, sleepers, panics.

mod sleep;
pub use ch02_poll::sync;

/// How a thread outside the pool waits for a task: it parks, and the task wakes it.
pub mod done;
#[cfg(not(loom))]
mod task;

/// Waiting and waking: going idle, the signal rule (when a push or a steal wakes an idle
/// worker), and waiting for a joined task. The reference solution of the chapter 7 exercise.
pub mod wait;

#[cfg(not(loom))]
mod pool;
#[cfg(not(loom))]
pub mod scan;

pub use sleep::Sleep;

#[cfg(not(loom))]
pub use pool::{
    Builder, Handle, Rejected, Stats, ThreadPool, ThreadPoolWith, fib, fork, join_in_task,
};

/// The seam between the pool and the waiting and waking it runs (the reference or the
/// reader's). See [`wait`] for each function.
pub trait WaitOps {
    /// See [`wait::await_work`].
    fn await_work(sleep: &Sleep, me: usize, has_work: impl Fn() -> bool);
    /// See [`wait::looked_empty`].
    fn looked_empty<T>(q: &ch04_grow::WorkQueue<T>) -> bool;
    /// See [`wait::leaves_work`].
    fn leaves_work<T>(q: &ch04_grow::WorkQueue<T>) -> bool;
    /// See [`wait::help_until`].
    fn help_until(done: impl Fn() -> bool, run_one: impl FnMut() -> bool);
}

macro_rules! impl_wait_ops {
    ($ty:ident) => {
        impl $crate::WaitOps for $ty {
            fn await_work(sleep: &$crate::Sleep, me: usize, has_work: impl Fn() -> bool) {
                await_work(sleep, me, has_work)
            }
            fn looked_empty<T>(q: &ch04_grow::WorkQueue<T>) -> bool {
                looked_empty(q)
            }
            fn leaves_work<T>(q: &ch04_grow::WorkQueue<T>) -> bool {
                leaves_work(q)
            }
            fn help_until(done: impl Fn() -> bool, run_one: impl FnMut() -> bool) {
                help_until(done, run_one)
            }
        }
    };
}

/// The reference mechanism, [`wait`].
pub struct Reference;
mod reference {
    use super::Reference;
    use crate::wait::{await_work, help_until, leaves_work, looked_empty};
    impl_wait_ops!(Reference);
}

/// The reader's exercise, compiled only with `--features exercise` (the grader's switch).
#[cfg(feature = "exercise")]
pub mod exercise {
    include!(env!("EXERCISE_FILE"));

    /// The exercise's waiting and waking, plugged into [`ThreadPoolWith`](crate::ThreadPoolWith).
    pub struct Exercise;
    impl_wait_ops!(Exercise);
}
