//! What the pool's queues hold: a [`Task`], the address of a task's state and the functions
//! that run or drop it.
//!
//! Chapter 6 queued boxed closures, `Box<dyn FnOnce()>`; the queue boxes each task again to give
//! its slot a thin pointer (chapter 2), so every fork cost two allocations. A `Task` is three
//! words with no owner of its own: a submitted or forked task's closure and result slot are one
//! `Arc`, shared with its handle (`Task::shared`), and a task forked by `join_in_task` lives in
//! the joiner's frame (`Task::on_stack`), which does not return before the task has run. That
//! leaves the queue's box, reused from earlier takes, as the only other allocation.
//! [JDK: the queues hold `ForkJoinTask` references; the garbage collector frees them]

use std::mem::ManuallyDrop;
use std::sync::Arc;

/// A job a [`Task`] can share: run once, from any thread.
pub(crate) trait RunOnce: Send + Sync {
    /// Runs the job; called once per job.
    fn run_once(&self);
}

/// A task to run once: `run(data)` runs it, `drop(data)` disposes of it unrun.
///
/// Invariant: `data` stays valid until `run` or `drop` has been called on it, exactly one of
/// the two is called, once, and either may be called from any thread.
pub(crate) struct Task {
    data: *const (),
    run: unsafe fn(*const ()),
    drop: unsafe fn(*const ()),
}

// SAFETY: both constructors require state that may move to and run on another thread
// (`J: Send + Sync`; `on_stack`'s caller vouches the same), and the invariant makes one call,
// once.
unsafe impl Send for Task {}

impl Task {
    /// `job` behind an `Arc` (shared with whoever waits for its result); running the task runs
    /// `job` once and drops the task's reference.
    pub(crate) fn shared<J: RunOnce + 'static>(job: Arc<J>) -> Task {
        /// # Safety
        /// `data` came from `Arc::<J>::into_raw` in `shared`, and this is the one call on it.
        unsafe fn run<J: RunOnce>(data: *const ()) {
            // SAFETY: as above: the task's own reference, given back here.
            let job = unsafe { Arc::from_raw(data as *const J) };
            job.run_once();
        }
        /// # Safety
        /// As `run`.
        unsafe fn drop<J>(data: *const ()) {
            // SAFETY: as `run`.
            std::mem::drop(unsafe { Arc::from_raw(data as *const J) })
        }
        Task { data: Arc::into_raw(job) as *const (), run: run::<J>, drop: drop::<J> }
    }

    /// A task whose state lives elsewhere (in `join_in_task`'s frame): `run(data)` runs it.
    /// Dropping it unrun does nothing, and leaves whoever waits for it waiting forever: such a
    /// task is run, never dropped (`join_in_task` runs a rejected fork itself).
    ///
    /// # Safety
    /// `data` stays valid until the task has run; `run(data)` may be called once, from any
    /// thread; and whoever owns `data` waits for that run before freeing it.
    pub(crate) unsafe fn on_stack(data: *const (), run: unsafe fn(*const ())) -> Task {
        unsafe fn forget(_: *const ()) {}
        Task { data, run, drop: forget }
    }

    /// The address of the task's state: which task this is (`join_in_task` knows its own).
    pub(crate) fn data(&self) -> *const () {
        self.data
    }

    /// Runs the task (a task wrapped by the pool catches its own panic).
    pub(crate) fn run(self) {
        let this = ManuallyDrop::new(self); // `run` takes the place of `drop`
        // SAFETY: the invariant: `data` is valid, and this is the one call (`self` is consumed).
        unsafe { (this.run)(this.data) }
    }
}

impl Drop for Task {
    fn drop(&mut self) {
        // SAFETY: the invariant: the task has not run (`run` forgets `self`), so this is the
        // one call on `data`.
        unsafe { (self.drop)(self.data) }
    }
}
