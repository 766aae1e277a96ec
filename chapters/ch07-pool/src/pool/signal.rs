//! Pushing a task, and the rule for when a push or a steal wakes an idle worker.

use super::*;

// ANCHOR: push
/// Accepts `task` unless the pool is shut down, pushes it (a worker to its own queue `own`,
/// anyone else to a submission queue), then signals an idle worker (a worker's push only when
/// its queue looked empty). `own`: `on_worker_of(shared)`, which the caller often knows.
///
/// Inlined: called out of line, it reloaded the task its caller had just written through a
/// failed store forward, a tenth of a fork's time in the profile.
#[inline(always)]
pub(super) fn push(shared: &Shared, own: Option<usize>, task: Task) -> Result<(), Task> {
    let pushed = if let Some(w) = own {
        // A worker's fork: the worker is alive, and scans its own queue before it exits.
        if shared.shutdown.load(Relaxed) {
            return Err(task); // Relaxed: only whether to accept; nothing is lost
        }
        let pushed = push_job(&shared.queues, own, task);
        if pushed.is_ok() && !looked_empty(shared, w) {
            return Ok(()); // a task below is still queued: the thief that takes it signals on
        }
        pushed
    } else {
        // From outside: announce, then check. SeqCst on both sides (here and in `close` and
        // `may_exit`): either the worker's exit check sees us, or we see the shutdown.
        shared.submitting.fetch_add(1, SeqCst);
        if shared.shutdown.load(SeqCst) {
            shared.submitting.fetch_sub(1, Relaxed); // Relaxed: nothing was pushed
            return Err(task);
        }
        let pushed = push_job(&shared.queues, None, task);
        // Release: a worker that reads our decrement then sees the task in its queue.
        shared.submitting.fetch_sub(1, Release);
        pushed
    };
    pushed.map_err(|full| full.into_task())?;
    shared.sleep.signal(); // the producer's half of the handshake
    Ok(())
}
// ANCHOR_END: push

// ANCHOR: looked_empty
/// After the owner's push into its queue `own`: whether the slot below the new task is empty,
/// so that the queue may have looked empty to a worker that then went idle. Only then does the
/// push signal. When the slot below holds a task, the push that put it there (or one below)
/// found an empty slot and signalled, and a woken thief that leaves tasks behind wakes the next
/// worker (`propagate`). Most forks land on a non-empty queue and skip the fence and the
/// sleepers' lock. Skipping can cost parallelism, never a task: a worker runs every task of its
/// own queue before it goes idle or exits. [JDK 25: `WorkQueue.push` calls `signalWork` only
/// when the slot at `s - pk` is null (`pk` 1, or 2 for a no-user-help task), or when the push
/// filled the array]
#[inline]
pub(super) fn looked_empty(shared: &Shared, own: usize) -> bool {
    let q = shared.queues.get(own).expect("a worker's queue").work();
    let s = q.top.load(Relaxed).wrapping_sub(1); // Relaxed: the owner's own field
    // SeqCst, after the push's SeqCst swap: with the thief's SeqCst CAS and its SeqCst look at
    // the next slot (`propagate`), one of the two sees the other, so one of them signals.
    // (The JDK reads it plainly or with getReferenceAcquire, by source version, after its
    // full fence; on x86 all of these are a plain load.)
    q.array().at(s.wrapping_sub(1)).load(SeqCst).is_null()
}
// ANCHOR_END: looked_empty

// ANCHOR: propagate
/// After a steal from queue `from`: if a task waits at the new `base`, wake another worker for
/// it. The owner's pushes signal only when the slot below looked empty (`looked_empty`), so a
/// thief that takes the first of many tasks passes the signal on. Either the pushing owner sees
/// the slot below still full (and skips), and then this thief's look comes later in the SeqCst
/// order and sees the new task; or the owner sees it emptied and signals itself. [JDK 25: the
/// scan in `runWorker` calls `signalWork` when the slot after the one it took is not null]
pub(super) fn propagate(shared: &Shared, from: usize) {
    let Some(q) = shared.queues.get(from).map(|q| q.work()) else { return };
    let b = q.base.load(Acquire); // at least one past the task we took (our own store, or later)
    if !q.array().at(b).load(SeqCst).is_null() {
        // SeqCst: see above
        shared.sleep.signal();
    }
}
// ANCHOR_END: propagate
