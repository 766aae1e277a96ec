// Waiting and waking: the reference solution of the chapter 7 exercise. Compiled twice (as
// `ch07_pool::wait`, and by the grader in place of `src/exercise.rs`), so: no inner `//!`
// docs, items named through `crate::` or a crate's name.
// [JDK 25: `deactivate`/`awaitWork`; `WorkQueue.push` and `runWorker`'s scan before
// `signalWork`; `ForkJoinTask.join` -> `awaitDone` -> `helpJoin`]

use ch04_grow::WorkQueue;

use crate::Sleep;
use crate::sync::Ordering::{Relaxed, SeqCst};
use crate::sync::yield_now;

// ANCHOR: await_work
/// A worker `me` whose scan found nothing: announce, recheck, and only then park. Returns
/// when woken, or at once if `has_work` finds something after the announcement.
pub fn await_work(sleep: &Sleep, me: usize, has_work: impl Fn() -> bool) {
    sleep.announce(me); // store "I am idle", then a SeqCst fence
    if has_work() {
        // A task arrived before the producer could see us: it may never look again.
        sleep.retract(me);
        return;
    }
    sleep.park(me);
}
// ANCHOR_END: await_work

// ANCHOR: looked_empty
/// The owner of `q` has just pushed a task (at `top - 1`): whether the slot below it is empty,
/// so that the queue may have looked empty to a worker that then went idle. Only then does the
/// push signal. When the slot below holds a task, the push that put it there (or one below)
/// found an empty slot and signalled, and the thief that takes it wakes the next worker
/// ([`leaves_work`]). [JDK 25: `WorkQueue.push` calls `signalWork` when the slot at `s - pk`
/// is null (`pk` 1, or 2 for a no-user-help task), or when the push filled the array]
pub fn looked_empty<T>(q: &WorkQueue<T>) -> bool {
    let s = q.top.load(Relaxed).wrapping_sub(1); // Relaxed: the owner's own field
    // SeqCst, after the push's SeqCst swap: with the thief's SeqCst CAS and its SeqCst look at
    // the slot after the one it took (`leaves_work`), one of the two sees the other's write.
    q.array().at(s.wrapping_sub(1)).load(SeqCst).is_null()
}
// ANCHOR_END: looked_empty

// ANCHOR: leaves_work
/// A thief has just taken a task from `q` (and moved `base` past it): whether a task waits at
/// the new `base`, so that the thief must wake another worker for it. [JDK 25: the scan in
/// `runWorker` calls `signalWork` when the slot at `b + 1` is not null and the task came from
/// another queue than its last steal (or is no-user-help); ours asks after every steal]
pub fn leaves_work<T>(q: &WorkQueue<T>) -> bool {
    // Relaxed: this thief's own store, or a newer one (coherence): past the task we took.
    let b = q.base.load(Relaxed);
    // SeqCst: the other side of `looked_empty`'s look.
    !q.array().at(b).load(SeqCst).is_null()
}
// ANCHOR_END: leaves_work

// ANCHOR: help_until
/// A worker waits for a task it forked to be `done` (someone stole it). It never blocks:
/// while waiting it runs other tasks, its own first, then stolen ones (`run_one` takes and
/// runs one task, and says whether it found one). With one worker, the task it waits for may
/// be in its own queue: only running it lets the wait end.
pub fn help_until(done: impl Fn() -> bool, mut run_one: impl FnMut() -> bool) {
    while !done() {
        if !run_one() {
            yield_now(); // nothing to help with: the thief is running our task
        }
    }
}
// ANCHOR_END: help_until
