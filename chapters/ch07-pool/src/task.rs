//! What the pool's queues hold: a [`Task`], the address of a task's state and the functions
//! that run or drop it.
//!
//! Chapter 6 queued boxed closures, `Box<dyn FnOnce()>`; the queue boxes each task again to give
//! its slot a thin pointer (chapter 2), so every fork cost two allocations. A `Task` is three
//! words with no owner of its own: a submitted task's state is one box (`Task::boxed`), and a
//! task forked by `join_in_task` lives in the joiner's frame (`Task::on_stack`), which does not
//! return before the task has run. That leaves the queue's box as the only allocation of a fork.
//! [JDK: the queues hold `ForkJoinTask` references; the garbage collector frees them]

use std::mem::ManuallyDrop;

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
// (`F: Send`; `on_stack`'s caller vouches the same), and the invariant makes one call, once.
unsafe impl Send for Task {}

impl Task {
    /// `f` in a box of its own; running the task frees the box.
    pub(crate) fn boxed<F: FnOnce() + Send + 'static>(f: F) -> Task {
        /// # Safety
        /// `data` came from `Box::<F>::into_raw` in `boxed`, and this is the one call on it.
        unsafe fn run<F: FnOnce()>(data: *const ()) {
            // SAFETY: as above.
            let f = unsafe { Box::from_raw(data as *mut F) };
            f()
        }
        /// # Safety
        /// As `run`.
        unsafe fn drop<F>(data: *const ()) {
            // SAFETY: as `run`.
            std::mem::drop(unsafe { Box::from_raw(data as *mut F) })
        }
        let data = Box::into_raw(Box::new(f)) as *const ();
        Task { data, run: run::<F>, drop: drop::<F> }
    }

    /// A task whose state lives elsewhere (in `join_in_task`'s frame): `run(data)` runs it.
    /// Dropping it unrun does nothing.
    ///
    /// # Safety
    /// `data` stays valid until the task has run; `run(data)` may be called once, from any
    /// thread; and whoever owns `data` waits for that run before freeing it.
    pub(crate) unsafe fn on_stack(data: *const (), run: unsafe fn(*const ())) -> Task {
        unsafe fn forget(_: *const ()) {}
        Task { data, run, drop: forget }
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
