//! Forking and joining: `join_in_task`, `fork`, and how a thread waits for a forked task.

use super::*;

// ANCHOR: join_in_task
/// Forks `b` and runs `a` on the current worker, then waits for `b` while helping; returns both
/// results. A panic in either reaches the caller, after both have finished. Panics when not
/// called from a task. [JDK: `ForkJoinTask.invokeAll(a, b)`: fork, compute, join; but when `a`
/// fails the JDK cancels `b` and throws at once, where we wait for `b` (it may borrow)]
///
/// The forked task, `b` and the slot for its result, lives in this frame, not in an
/// allocation: this call does not return before `b` has run, so the frame outlives the task
/// (rayon's `StackJob` makes the same argument). The queue's box is the fork's one allocation.
///
/// So `a` and `b` may borrow from the caller (no `'static`), as with `rayon::join` and
/// `std::thread::scope`: a slice split with `split_at_mut` sorts in place. What makes that
/// sound is that nothing leaves this frame while `b` may still run:
/// - a normal return comes after `b` has run (taken back and run here, or its slot done);
/// - a panic in `a` is caught (`call`), and the wait for `b` happens before it is resumed; a
///   panic in `b` is caught where it runs and stored in its slot;
/// - anything else that unwinds while `b` is queued (the waiting code itself, the reader's
///   `help_until` included) aborts the process (`AbortOnUnwind`, `abort_in_join`) instead of
///   freeing a frame a worker may still write into.
///
/// Only `b` crosses threads: it needs `Send` (and its result), `a` runs here and needs nothing.
pub fn join_in_task<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB + Send,
    RB: Send,
{
    let (shared, own, helps) =
        current_worker().expect("join_in_task runs inside a task of a ThreadPool");
    let queue = shared.own_queue(own); // for the push and the take-back below
    let forked = Pending::new(b);
    // SAFETY: `forked` stays in this frame until `done` (below, and the guard when unwinding).
    let task = unsafe { forked.on_stack() };
    // If anything below unwinds before `b` has run, the queued task would write into a dead
    // frame: abort instead. (`a` and every helped task catch their own panics, so only a bug
    // in the waiting code itself can get here.)
    let guard = AbortOnUnwind;
    // After a shutdown the fork is rejected: run `b` here instead (nothing is lost).
    push(shared, Some(queue), task).unwrap_or_else(Task::run);
    let ra = call(a); // a panic is counted here, where it starts
    // Most often no one has stolen `b`: it is still on top of this worker's queue. Take it back
    // and call it here, like `a`, with no result slot and no helping loop. Anything else on top
    // (a task `a` forked and did not join) is run as the helping wait would run it first.
    // [JDK 25: `awaitDone` -> `helpJoin` -> `tryRemoveAndExec`, which takes the task back
    // only if it finds it, scanning down from the top]
    if let Some(top) = pop_own(queue) {
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
    let done = &forked.slot.done;
    // A loop, not one call: `help_until` may be the reader's code, and returning before `done`
    // would free this frame under the queued task. A panic there aborts, saying which.
    let waited = catch_unwind(AssertUnwindSafe(|| {
        while !done.is_done() {
            helps(shared, done);
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
pub(super) fn both<RA, RB>(ra: std::thread::Result<RA>, rb: std::thread::Result<RB>) -> (RA, RB) {
    match (ra, rb) {
        (Ok(ra), Ok(rb)) => (ra, rb),
        (Err(p), _) | (_, Err(p)) => resume(p), // counted already: see `call`
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
pub(super) struct AbortOnUnwind;

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
pub(super) fn abort_in_join(panic: Option<&(dyn std::any::Any + Send)>) -> ! {
    use std::io::Write;
    let message = panic.map_or_else(|| "a panic".into(), panic_message);
    let _ = writeln!(
        std::io::stderr(),
        "ch07-pool: a join's wait panicked ({message}) while its queued task could still run \
         and write into the waiting frame; aborting"
    );
    std::process::abort()
}

/// Waits until `done`, from any thread: a worker of a pool helps *its own* pool (even when the
/// task belongs to another, `pool`); a thread outside every pool waits with `pool`'s strategy
/// when it has one, else parks.
pub(super) fn wait_until(done: &Done, pool: Option<(&Shared, Helps)>) {
    // A loop: the helping wait may be the reader's code (it must not return early).
    while !done.is_done() {
        match current().or(pool) {
            Some((shared, helps)) => helps(shared, done),
            None => done.wait(|| {}),
        }
    }
}

/// Waits until `done`: a worker of this pool helps (the exercise's `help_until`); any other
/// thread parks until the task wakes it (`crate::done`).
pub(super) fn wait_or_help<I: WaitOps>(shared: &Shared, done: &Done) {
    match on_worker_of(shared) {
        Some(own) => I::help_until(|| done.is_done(), || run_one(shared, own)),
        None => done.wait(|| give_up_if_broken(shared)),
    }
}

/// Panics, with its message, if a worker of the pool died outside any task: the task waited
/// for may then never run.
fn give_up_if_broken(shared: &Shared) {
    // Acquire: pairs with `worker_thread`'s Release; the message is there.
    if shared.broken.load(Acquire) {
        let why = shared.broken_by.lock().unwrap_or_else(PoisonError::into_inner).clone();
        panic!(
            "a worker thread of the pool died of a panic outside any task ({}): the task \
             waited for may never run",
            why.as_deref().unwrap_or("its message is above")
        );
    }
}

/// Forks `f` from inside a task: it goes to this worker's queue. Returns its handle, or `f`
/// back, unrun, when not called on a worker, or after shutdown. [JDK: `ForkJoinTask.fork`,
/// which off a worker submits to the common pool instead]
pub fn fork<F, R>(f: F) -> Result<Handle<R>, Rejected<F>>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let Some((shared, own, _)) = current_worker() else {
        return Err(Rejected(f));
    };
    let task = spawn(shared, Some(own), f)?;
    Ok(Handle { task, pool: None })
}

/// A panic's message, from its payload (`panic!` with a literal gives a `&str`, with
/// arguments a `String`).
pub(super) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with no message".into())
}
