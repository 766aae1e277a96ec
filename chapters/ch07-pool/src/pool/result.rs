//! A task's closure and the slot for its result, and the handle that waits for it.

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

// SAFETY: `value` is written by one task, once, before the Release store of `done`, and read by
// one waiter (`join` consumes its handle), once, after an Acquire load of `done` saw true: the
// two accesses never overlap. `R: Send` because the value moves from the task's thread.
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
unsafe fn free<T: ?Sized>(this: *const T) {
    // SAFETY: the caller's; no slot ever held this address (the queue's box holds the `Task`).
    unsafe { reclaim::free_state(this.cast_mut()) }
}

/// What a [`Handle`] needs of its task: the result slot (the closure's type is erased).
pub(super) trait HasSlot<R>: Send + Sync {
    fn slot(&self) -> &ResultSlot<R>;
}

impl<F: Send, R: Send> HasSlot<R> for Pending<F, R> {
    fn slot(&self) -> &ResultSlot<R> {
        &self.slot
    }
}

/// A submitted or forked task's result. [JDK: the `ForkJoinTask` returned by `submit`/`fork`]
pub struct Handle<R> {
    /// The task's closure and result slot, shared with the queued task until it has run.
    /// Freed by the handle when the task had finished (`join`, or a drop after the task's
    /// `set`), else by the task (`Done::let_go`): one CAS or swap each, no reference count.
    pub(super) task: NonNull<dyn HasSlot<R>>,
    /// For a handle from `submit`: the pool and its waiting strategy. `None` for one from
    /// `fork`, which would otherwise bump the pool's one shared reference count on every fork
    /// and every join (the contended line that was a third of a fork's time): its `join` helps
    /// whichever pool the joining thread works for, if any. The pool need not be kept alive for
    /// it: a pool runs every task it accepted before its workers exit.
    pub(super) pool: Option<(Arc<Shared>, Helps)>,
}

// SAFETY: the handle reads the shared task only through `HasSlot` (Send + Sync), and moves its
// result (`R: Send`) out on whichever thread joins; `Shared` is shared by design.
unsafe impl<R: Send> Send for Handle<R> {}
// SAFETY: through `&Handle` only `is_done` runs, an atomic load.
unsafe impl<R: Send> Sync for Handle<R> {}

impl<R> Handle<R> {
    /// The task's result slot.
    fn slot(&self) -> &ResultSlot<R> {
        // SAFETY: live while the handle is: the task frees it only after the handle let go
        // (`Drop`), and the handle frees it only as it goes (`join`, `Drop`).
        unsafe { self.task.as_ref() }.slot()
    }

    /// Waits for the task and returns its value, or the payload of its panic. From a worker of
    /// a pool, the wait helps (runs other tasks of that pool); elsewhere it parks until the
    /// task wakes it (`crate::done`).
    ///
    /// A worker of any pool helps *its own* pool, even when the task belongs to another: two
    /// pools whose every worker waits on the other would otherwise deadlock, each task queued
    /// behind a worker that only sleeps. (rayon's workers do the same; the JDK's `tryCompensate`
    /// wakes an idle worker, lowers the active count, or as a last resort adds a spare.) A
    /// thread outside every pool parks.
    pub fn join(self) -> std::thread::Result<R> {
        // If the wait panics (a broken pool), the handle drops and lets go.
        wait_until(&self.slot().done, self.pool.as_ref().map(|(s, helps)| (&**s, *helps)));
        // SAFETY: `wait_until` returned: `done` is true, and `join` consumes the only handle.
        let result = unsafe { self.slot().take() };
        // The task is done with its memory: free it here, with no `let_go` (no `Drop`).
        let this = ManuallyDrop::new(self);
        // SAFETY: `this` is never dropped, so the `pool` read out here drops once.
        drop(unsafe { std::ptr::read(&this.pool) });
        // SAFETY: DONE: the task never touches it again (`Done::set`), and this was its one
        // handle.
        unsafe { free(this.task.as_ptr()) };
        result
    }

    /// Whether the task has finished.
    pub fn is_done(&self) -> bool {
        self.slot().done.is_done()
    }
}

impl<R> Drop for Handle<R> {
    /// A handle dropped unjoined lets go of its task: the task frees itself when it finishes,
    /// or, if it has finished, the handle frees it here, and the result with it.
    fn drop(&mut self) {
        // A raw pointer: once `let_go` has said so, the task may free the memory at any time.
        let done = &raw const self.slot().done;
        // SAFETY: live (see `slot`); the one waiter's one call, not during a wait (`join`
        // waits on `self`, which it consumes); nothing touches the task after it.
        if unsafe { Done::let_go(done) } {
            // SAFETY: the task has finished and will not touch it; the handle is going.
            unsafe { free(self.task.as_ptr()) };
        }
    }
}

/// `f` as a task that stores its result (or its panic) in a slot, and the handle's side of it.
pub(super) fn spawn<F, R>(
    shared: &Shared,
    own: Option<usize>,
    f: F,
) -> Result<NonNull<dyn HasSlot<R>>, Rejected<F>>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let (task, job) = Pending::on_heap(f);
    match push(shared, own.map(|w| shared.own_queue(w)), task) {
        Ok(()) => Ok(job),
        Err(task) => {
            std::mem::forget(task); // never queued: no one else has the job
            // SAFETY: from `on_heap` (the global allocator, `Pending`'s layout: a `Box`'s), and
            // nothing else holds it.
            let pending = unsafe { Box::from_raw(job.as_ptr()) };
            Err(Rejected(pending.into_closure()))
        }
    }
}

/// Runs a task's closure, catching its panic (counted in the pool's stats).
/// A panic is counted once, by the first `call` that catches it: one that a join resumed
/// ([`resume`]) and an enclosing task catches again was counted where it started.
#[inline(always)]
pub(super) fn call<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    let result = catch_unwind(AssertUnwindSafe(f));
    if let Err(payload) = &result {
        caught(payload);
    }
    result
}

/// `call`'s panic path, out of line: counts the panic unless a join resumed it.
#[cold]
#[inline(never)]
fn caught(payload: &Box<dyn std::any::Any + Send>) {
    let resumed = RESUMED.replace(std::ptr::null());
    if !std::ptr::eq(resumed, address(payload)) {
        count_panic();
    }
}

/// Resumes a panic that a join caught (in `a`, or in the forked `b`, both already counted), and
/// notes it, so that the `call` of the task around the join does not count it again.
pub(super) fn resume(payload: Box<dyn std::any::Any + Send>) -> ! {
    RESUMED.set(address(&payload));
    resume_unwind(payload)
}

thread_local! {
    /// The address of the payload this thread last resumed from a join; null once a `call` has
    /// seen it. (A task that catches such a panic itself and goes on leaves it set: a later panic
    /// whose payload lands at the same address would then go uncounted. A statistic's error.)
    static RESUMED: Cell<*const u8> = const { Cell::new(std::ptr::null()) };
}

/// Where a panic's payload lives: the same box travels from the catch to the resume.
fn address(payload: &Box<dyn std::any::Any + Send>) -> *const u8 {
    (&**payload as *const (dyn std::any::Any + Send)).cast()
}

/// Counts a task's panic in the stats of the pool whose worker ran it.
fn count_panic() {
    if let Some((shared, _)) = current() {
        shared.panics.fetch_add(1, Relaxed); // Relaxed: a statistic
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A queued task dropped unrun (its pool stopped without running it: a worker died outside
    /// any task) tells its waiter so: `join` returns an error instead of waiting for ever. (A
    /// pool reaches this only through such a race; here the task is made and dropped by hand.)
    #[test]
    fn a_task_dropped_unrun_tells_its_waiter() {
        let (task, job) = Pending::on_heap(|| 5);
        let handle: Handle<i32> = Handle { task: job, pool: None };
        drop(task);
        // Asked before the join, which would park for ever on a task that never says done.
        // SAFETY: the handle has neither joined nor let go: the allocation is live.
        assert!(unsafe { job.as_ref() }.slot.done.is_done(), "dropped unrun, yet not done");
        let unrun = handle.join().expect_err("the task never ran");
        let message = panic_message(&*unrun);
        assert!(message.contains("dropped unrun"), "the waiter's error: {message}");
    }
}
