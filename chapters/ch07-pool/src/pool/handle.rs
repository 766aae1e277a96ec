//! The [`Handle`] that waits for a submitted or forked task, and `spawn`, which makes both.

use super::*;

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
