//! The worker: its loop, its takes (own queue, then a scan), and when it may exit.

use super::*;

/// Takes one task (own queue first, then a scan of the others) and runs it; false if none.
/// A helping take is not counted as a steal, as in the JDK, whose `helpJoin` leaves `nsteals`
/// alone: only the worker loop's scan counts (`count_take`).
pub(super) fn run_one(shared: &Shared, own: usize) -> bool {
    // Each help starts its scan somewhere else: a fixed start would send every helping
    // joiner to the same queue first.
    let seed = advance_probe(HELP_SEED.get());
    HELP_SEED.set(seed);
    match take(shared, own, seed) {
        Polled::Task((_, task)) => {
            task.run(); // a wrapped task catches its own panic
            true
        }
        Polled::Empty | Polled::Stalled => false,
    }
}

/// Own queue first, then a scan of the others from `seed`: the task and the queue it came from.
pub(super) fn take(shared: &Shared, own: usize, seed: u32) -> Polled<(usize, Task)> {
    if let Some(task) = pop_own(shared.own_queue(own)) {
        return Polled::Task((own, task));
    }
    let found = scan(&shared.queues, own, advance_probe(seed));
    if let Polled::Task((from, _)) = found {
        propagate(shared, from);
    }
    found
}

/// A worker whose scan found nothing may exit: the pool is shut down, no submitter is between
/// its check and its push, and every queue is empty. (A task pushed after this check can only
/// come from a worker that is still running, which will find it in its own queue.)
pub(super) fn may_exit(shared: &Shared) -> bool {
    // SeqCst: pairs with `push`'s announce-then-check (Dekker); the queues are read after it.
    shared.shutdown.load(SeqCst)
        && shared.submitting.load(SeqCst) == 0
        && shared.queues.iter().all(|(_, q)| q.work().is_empty())
}

/// Whether any queue holds a task (the idle worker's recheck), or the pool is shutting down.
pub(super) fn has_work(shared: &Shared) -> bool {
    shared.shutdown.load(Acquire) || shared.queues.iter().any(|(_, q)| !q.work().is_empty())
}

/// A worker thread: [`run_worker`], and if it unwinds (a panic outside any task: in the
/// waiting code, the exercise's among it), the pool is broken, since the tasks in the worker's
/// queue may never run. Its waiters are told, with the panic's message.
pub(super) fn worker_thread<I: WaitOps>(shared: &Arc<Shared>, w: usize) {
    if let Err(panic) = catch_unwind(AssertUnwindSafe(|| run_worker::<I>(shared, w))) {
        let why = panic_message(&*panic);
        *shared.broken_by.lock().unwrap_or_else(PoisonError::into_inner) = Some(why);
        shared.broken.store(true, Release); // Release: the message is in place before the flag
        shared.sleep.signal_all(); // let the others see it too
        resume_unwind(panic);
    }
}

// ANCHOR: run_worker
/// A worker: take and run tasks; when a full scan finds none, go idle with the exercise's
/// `await_work` (announce, recheck, park); exit once shut down and every queue is empty.
/// [JDK: `runWorker`, `deactivate`, `awaitWork`]
pub(super) fn run_worker<I: WaitOps>(shared: &Arc<Shared>, w: usize) {
    let own = 2 * w + 1;
    // Only this worker pushes to its queue: a thief hands the boxes it takes back here.
    shared.own_queue(own).work().bind_home(Some(reclaim::home()));
    CURRENT.set(Some((Arc::as_ptr(shared), own, wait_or_help::<I>)));
    let mut r = (own as u32).wrapping_mul(0x9e37_79b9) | 1;
    loop {
        r = advance_probe(r);
        match take(shared, own, r) {
            Polled::Task((from, task)) => {
                count_take(&shared.nsteals[own], from, own); // [JDK: `w.nsteals = ++nsteals`]
                task.run(); // a wrapped task catches its own panic
                continue;
            }
            Polled::Stalled => {
                // Someone is between two stores: scan again, not idle. The yield lets it
                // finish when it is the thread that was descheduled. [JDK: `rescan`]
                yield_now();
                continue;
            }
            Polled::Empty => {}
        }
        if may_exit(shared) {
            break;
        }
        reclaim::send_pending(); // the boxes it stole go home before it waits (chapter 2)
        I::await_work(&shared.sleep, w, || has_work(shared));
    }
    retire(&shared.nsteals[own], &shared.steal_count);
    shared.sleep.signal_all(); // the last ones out must not leave others asleep
    CURRENT.set(None);
}
// ANCHOR_END: run_worker
