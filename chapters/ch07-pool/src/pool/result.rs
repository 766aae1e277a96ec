//! A task's closure and the slot for its result.

use super::*;

/// The result of one task: written once by the task, then published by `done`; read once by
/// whoever waits for it, after `done`. It lives in a heap allocation shared with a [`Handle`]
/// (`submit`, `fork`), or in the frame of `join_in_task`, which does not return before the task
/// has run.
pub(super) struct ResultSlot<R> {
    /// Set once `value` is written (and the waiter woken, if one parked: `crate::done`);
    /// after that the task never touches the slot.
    pub(super) done: Done,
    /// Written once by the task, before `done`; read once by the waiter, after `done`.
    value: UnsafeCell<Option<std::thread::Result<R>>>,
}

// SAFETY: `value` is written by one task, once, before `Done::set` publishes DONE (a Release
// CAS, or an AcqRel swap), and read by one waiter (`join` consumes its handle), once, after an
// Acquire load of `done` saw true: the two accesses never overlap. `R: Send` because the value
// moves from the task's thread.
unsafe impl<R: Send> Sync for ResultSlot<R> {}

impl<R> ResultSlot<R> {
    fn new() -> Self {
        ResultSlot { done: Done::new(), value: UnsafeCell::new(None) }
    }

    /// Stores `result` (a value, or a panic) and publishes it. Takes a raw pointer: the waiter
    /// may free the slot as soon as `done` is true, so no reference to it may outlive that
    /// store. Returns true when the waiter let go first: the caller then frees the memory.
    ///
    /// # Safety
    /// `this` points to a live slot until `done` is set, and this is called once per slot.
    unsafe fn finish(this: *const Self, result: std::thread::Result<R>) -> bool {
        // SAFETY: the slot is alive (caller), and no one reads `value` before `done`. `set`
        // publishes the value above (Release) and touches nothing after it says done: the
        // waiter can free the slot at once.
        unsafe {
            *(*this).value.get() = Some(result);
            Done::set(&raw const (*this).done)
        }
    }

    /// # Safety
    /// Only after `done.is_done()` returned true, and once.
    pub(super) unsafe fn take(&self) -> std::thread::Result<R> {
        // SAFETY: the caller saw `done`: the task has written `value` and is gone.
        unsafe { (*self.value.get()).take().expect("taken once, after done") }
    }
}

/// A task not yet run: its closure and the slot for its result. In `join_in_task`'s frame for a
/// forked half, or in one heap allocation that the queued task and the [`Handle`] share for
/// `submit` and `fork` (freed by the last one done with it, as `done` decides: `HeapJob`).
pub(super) struct Pending<F, R> {
    /// Taken once, by the run.
    f: UnsafeCell<Option<F>>,
    /// Its result, read by whoever waits, after `done`.
    pub(super) slot: ResultSlot<R>,
}

// SAFETY: `f` is taken by the one run (on one thread) and never touched again; `slot` is
// `ResultSlot`'s own protocol. F and R move between threads: both Send.
unsafe impl<F: Send, R: Send> Sync for Pending<F, R> {}

impl<F: FnOnce() -> R, R> Pending<F, R> {
    pub(super) fn new(f: F) -> Self {
        Pending { f: UnsafeCell::new(Some(f)), slot: ResultSlot::new() }
    }

    /// Runs the closure into the slot (its panic too, counted in the pool's stats). A raw
    /// pointer, as `ResultSlot::finish` takes: the waiter may free the task as soon as `done`
    /// is set. Returns true when the waiter let go first: the caller frees the memory.
    ///
    /// # Safety
    /// `this` points to a live `Pending` until its slot is done, and this is called once.
    unsafe fn run(this: *const Self) -> bool {
        // SAFETY: live (caller); the one call, so no one else touches `f`.
        let f = unsafe { (*(*this).f.get()).take() }.expect("a task runs once");
        let result = call(f);
        // SAFETY: `slot` is live until it is done, and is finished once; nothing here touches
        // `this` after `finish` publishes the result.
        unsafe { ResultSlot::finish(&raw const (*this).slot, result) }
    }

    /// Runs the closure on this thread and returns its result, leaving the slot alone: for a
    /// task taken back out of the queue by the one who forked it (`join_in_task`).
    ///
    /// # Safety
    /// The task is no longer queued (its queued `Task` was taken by the caller), so no one else
    /// can run it; and it has not run.
    #[inline(always)] // on every fork taken back: see `join_in_task`
    pub(super) unsafe fn run_here(&self) -> std::thread::Result<R> {
        // SAFETY: the caller's contract: the one run, on this thread.
        let f = unsafe { (*self.f.get()).take() }.expect("a task runs once");
        call(f)
    }

    /// The closure of a task that never ran (a rejected one).
    pub(super) fn into_closure(self) -> F {
        self.f.into_inner().expect("a rejected task never ran")
    }

    /// This task as a queue's `Task` that points into the frame holding `self`.
    ///
    /// # Safety
    /// `self` is not moved or freed until its slot is done or the `Task` is taken back unrun;
    /// nothing may unwind out of its frame meanwhile (see `join_in_task`).
    pub(super) unsafe fn on_stack(&self) -> Task
    where
        F: Send,
        R: Send,
    {
        // SAFETY: the caller keeps `self` live until the run; `run_erased` is sound once from
        // any thread, the closure and its result being `Send`.
        unsafe { Task::on_stack(self as *const Self as *const (), &Self::ON_STACK) }
    }

    /// The functions of `on_stack`'s task.
    const ON_STACK: TaskOps = TaskOps { run: Self::run_erased, drop: crate::task::forget };

    /// `run` for `Task::on_stack`, which erases the type.
    ///
    /// # Safety
    /// As `run`, for `data` pointing to a `Pending<F, R>`.
    pub(super) unsafe fn run_erased(data: *const ()) {
        // SAFETY: as above.
        let let_go = unsafe { Self::run(data.cast()) };
        debug_assert!(!let_go, "a task in a frame has no handle that could let go");
    }
}

impl<F: FnOnce() -> R + Send + 'static, R: Send + 'static> Pending<F, R> {
    /// `f` on the heap, as a queue's `Task` and the pointer its [`Handle`] keeps: whichever
    /// of the two is done with it last frees it (`HeapJob`, `Handle`). The memory is recycled
    /// (`reclaim::boxed_state`): no slot holds its address, the queue's box does.
    pub(super) fn on_heap(f: F) -> (Task, NonNull<Self>) {
        let job = reclaim::boxed_state(Pending::new(f));
        // SAFETY: `job` is live until the task and the handle made of it are both done with
        // it (`HeapJob`, `Handle`), and this is its one task.
        (unsafe { Task::heap(job) }, job)
    }
}

impl<F: FnOnce() -> R + Send, R: Send> HeapJob for Pending<F, R> {
    unsafe fn run_shared(this: *const Self) {
        // SAFETY: live until its slot is done or its handle let go (the contract), the one run.
        if unsafe { Pending::run(this) } {
            // SAFETY: the handle let go and the run is over: no one else holds the job.
            unsafe { free(this) };
        }
    }

    unsafe fn drop_shared(this: *const Self) {
        // SAFETY: live, and the one call: the closure will never run.
        drop(unsafe { (*(*this).f.get()).take() });
        let unrun: Box<dyn std::any::Any + Send> =
            Box::new("the task was dropped unrun: its pool stopped without running it");
        // SAFETY: live until done, finished once (the contract); the waiter's join returns
        // the error above instead of waiting for a run that will not come.
        if unsafe { ResultSlot::finish(&raw const (*this).slot, Err(unrun)) } {
            // SAFETY: as in `run_shared`.
            unsafe { free(this) };
        }
    }
}

/// Frees a submitted or forked task: its closure, if it never ran, and its result, if no one
/// took it; the memory goes back to this thread's recycled boxes.
///
/// # Safety
/// `this` came from `on_heap`, and no one else will touch it: the task has finished and its
/// handle let go, or the handle took its result (in either order, as `done` tells).
pub(super) unsafe fn free<T: ?Sized>(this: *const T) {
    // SAFETY: the caller's; no slot ever held this address (the queue's box holds the `Task`).
    unsafe { reclaim::free_state(this.cast_mut()) }
}
