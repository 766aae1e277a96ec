//! What the pool's queues hold: a [`Task`], the address of a task's state and a table of the
//! functions that run or drop it.
//!
//! Chapter 6 queued boxed closures, `Box<dyn FnOnce()>`; the queue boxes each task again to give
//! its slot a thin pointer (chapter 2), so every fork cost two allocations. A `Task` is two
//! words with no owner of its own: a submitted or forked task's closure and result slot are one
//! heap allocation, shared with its handle (`Task::heap`; whichever of the two is done with it
//! last frees it, as its `Done` decides, with no reference count), and a task forked by
//! `join_in_task` lives in the joiner's frame (`Task::on_stack`), which does not return before
//! the task has run. Both the heap allocation and the queue's box are reused from earlier
//! tasks of the same thread (`reclaim::boxed_state`; the queue's, once its pins have cleared).
//! [JDK: the queues hold `ForkJoinTask` references; the garbage collector frees them]

use std::mem::ManuallyDrop;
use std::ptr::NonNull;

/// A job on the heap that a [`Task`] shares with whoever waits for its result, and that frees
/// itself when the task is the last one done with it.
pub(crate) trait HeapJob: Send + Sync {
    /// Runs the job, then frees it if no one waits for it any more.
    ///
    /// # Safety
    /// `this` is live (its waiter frees it only after the run or the drop below) and this is
    /// the one call of the two, once.
    unsafe fn run_shared(this: *const Self);
    /// Disposes of the job unrun (its waiter is told so), freeing it if no one waits.
    ///
    /// # Safety
    /// As `run`.
    unsafe fn drop_shared(this: *const Self);
}

/// A task to run once: `run(data)` runs it, `drop(data)` disposes of it unrun.
///
/// Invariant: `data` stays valid until `run` or `drop` has been called on it, exactly one of
/// the two is called, once, and either may be called from any thread.
///
/// Two words, the state's address and a static table of the two functions: a push writes two
/// words into its box, not three, and the box is 16 bytes.
pub(crate) struct Task {
    data: *const (),
    ops: &'static TaskOps,
}

/// What runs a [`Task`], or disposes of it unrun: one static table per kind of task.
pub(crate) struct TaskOps {
    pub(crate) run: unsafe fn(*const ()),
    pub(crate) drop: unsafe fn(*const ()),
}

// SAFETY: both constructors require state that may move to and run on another thread
// (`J: Send + Sync`; `on_stack`'s caller vouches the same), and the invariant makes one call,
// once.
unsafe impl Send for Task {}

/// The table of a heap job `J` (a constant, promoted to a static by the reference to it).
struct HeapOps<J>(std::marker::PhantomData<J>);

impl<J: HeapJob> HeapOps<J> {
    const OPS: TaskOps = TaskOps { run: Self::run, drop: Self::drop };

    /// # Safety
    /// `data` is the `J` given to `Task::heap`, and this is the one call on it.
    unsafe fn run(data: *const ()) {
        // SAFETY: as above: live, and the one call.
        unsafe { J::run_shared(data.cast()) }
    }

    /// # Safety
    /// As `run`.
    unsafe fn drop(data: *const ()) {
        // SAFETY: as `run`.
        unsafe { J::drop_shared(data.cast()) }
    }
}

impl Task {
    /// A task that runs (or drops) the heap job `job`, which it shares with whoever waits for
    /// its result.
    ///
    /// # Safety
    /// `job` stays live until the task has run or dropped it, as `J`'s `HeapJob` contract
    /// says; this is the one task made of it.
    pub(crate) unsafe fn heap<J: HeapJob + 'static>(job: NonNull<J>) -> Task {
        Task { data: job.as_ptr() as *const (), ops: &HeapOps::<J>::OPS }
    }

    /// A task whose state lives elsewhere (in `join_in_task`'s frame): `ops.run(data)` runs
    /// it. Its `ops.drop` is to do nothing ([`forget`]): dropping such a task unrun leaves
    /// whoever waits for it waiting forever, so it is run, never dropped (`join_in_task` runs
    /// a rejected fork itself).
    ///
    /// # Safety
    /// `data` stays valid until the task has run; `ops.run(data)` may be called once, from
    /// any thread; and whoever owns `data` waits for that run before freeing it.
    pub(crate) unsafe fn on_stack(data: *const (), ops: &'static TaskOps) -> Task {
        Task { data, ops }
    }

    /// The address of the task's state: which task this is (`join_in_task` knows its own).
    pub(crate) fn data(&self) -> *const () {
        self.data
    }

    /// Runs the task (a task wrapped by the pool catches its own panic).
    pub(crate) fn run(self) {
        let this = ManuallyDrop::new(self); // `run` takes the place of `drop`
        // SAFETY: the invariant: `data` is valid, and this is the one call (`self` is consumed).
        unsafe { (this.ops.run)(this.data) }
    }
}

impl Drop for Task {
    fn drop(&mut self) {
        // SAFETY: the invariant: the task has not run (`run` forgets `self`), so this is the
        // one call on `data`.
        unsafe { (self.ops.drop)(self.data) }
    }
}

/// The `drop` of a task in a frame ([`Task::on_stack`]): nothing to do.
pub(crate) unsafe fn forget(_: *const ()) {}
