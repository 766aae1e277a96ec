// Going idle and waiting for a joined task: the reference solution of the chapter 7 exercise.
// Compiled twice (as `ch07_pool::wait`, and by the grader in place of `src/exercise.rs`), so:
// no inner `//!` docs, items named through `crate::`.
// [JDK 25: `deactivate`/`awaitWork`; `ForkJoinTask.join` -> `awaitDone` -> `helpJoin`]

use crate::Sleep;
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
