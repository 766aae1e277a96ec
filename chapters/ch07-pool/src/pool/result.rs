//! A task's closure and the slot for its result, and the handle that waits for it.

use super::*;

/// The result of one task: written once by the task, then published by `done`; read once by
/// whoever waits for it, after `done`. It lives in an `Arc` shared with a [`Handle`] (`submit`,
/// `fork`), or in the frame of `join_in_task`, which does not return before the task has run.
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

    /// Runs `f` and stores its result (or its panic, also counted in the pool's stats), then
    /// publishes it. Takes a raw pointer: the waiter may free the slot as soon as `done` is
    /// true, so no reference to it may outlive that store.
    ///
    /// # Safety
    /// `this` points to a live slot until `done` is set, and `run` is called once per slot.
    unsafe fn run(this: *const Self, f: impl FnOnce() -> R) {
        let result = call(f);
        // SAFETY: the slot is alive (caller), and no one reads `value` before `done`. `set`
        // publishes the value above (Release) and touches nothing after it says done: the
        // waiter can free the slot at once.
        unsafe {
            *(*this).value.get() = Some(result);
            Done::set(&raw const (*this).done);
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
/// forked half, or in one `Arc` that the queued task and the [`Handle`] share for `submit` and
/// `fork`.
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
        unsafe { Task::on_stack(self as *const Self as *const (), Self::run_erased) }
    }

    /// `run` for `Task::on_stack`, which erases the type.
    ///
    /// # Safety
    /// As `run`, for `data` pointing to a `Pending<F, R>`.
    pub(super) unsafe fn run_erased(data: *const ()) {
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
    pub(super) task: Arc<dyn HasSlot<R>>,
    /// For a handle from `submit`: the pool and its waiting strategy. `None` for one from
    /// `fork`, which would otherwise bump the pool's one shared reference count on every fork
    /// and every join (the contended line that was a third of a fork's time): its `join` helps
    /// whichever pool the joining thread works for, if any. The pool need not be kept alive for
    /// it: a pool runs every task it accepted before its workers exit.
    pub(super) pool: Option<(Arc<Shared>, Helps)>,
}

impl<R> Handle<R> {
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
        wait_until(&self.task.slot().done, self.pool.as_ref().map(|(s, helps)| (&**s, *helps)));
        // SAFETY: `wait_until` returned: `done` is true, and `join` consumes the only handle.
        unsafe { self.task.slot().take() }
    }

    /// Whether the task has finished.
    pub fn is_done(&self) -> bool {
        self.task.slot().done.is_done()
    }
}

/// `f` as a task that stores its result (or its panic) in a slot, and the handle's side of it.
pub(super) fn spawn<F, R>(
    shared: &Shared,
    own: Option<usize>,
    f: F,
) -> Result<Arc<dyn HasSlot<R>>, Rejected<F>>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let spawned = Arc::new(Pending::new(f));
    match push(shared, own, Task::shared(spawned.clone())) {
        Ok(()) => Ok(spawned),
        Err(task) => {
            drop(task); // the queue's reference, dropped unrun: `spawned` is the only one left
            let pending = Arc::into_inner(spawned).expect("no one else holds a rejected task");
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
