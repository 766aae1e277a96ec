// Chapter 7 exercise: waiting and waking. A worker going idle without losing a wake-up, the
// signal rule that decides when a push or a steal wakes an idle worker, and a join that
// never blocks.
//
// Write the four functions so that `cargo grade ch07` passes: the tests (fib(25) without
// cutoff at parallelism 1, 2 and 4, four forks that must all run at once, panics, shutdown
// under load), the loom models (the park/signal handshake; a fork onto an empty queue; a steal
// that leaves a task behind), clippy and the benchmark gate. The page
// (chapters/ch07-pool/README.md, "Exercise") states each contract; `cargo grade ch07 --hint`
// gives hints. Compiled only by `cargo grade ch07`.

#[allow(unused_imports)] // you may want them
use crate::sync::Ordering::{Relaxed, SeqCst};
#[allow(unused_imports)] // you may want it
use crate::sync::yield_now;
use crate::Sleep;
use ch04_grow::WorkQueue;

/// A worker `me` whose scan found nothing: go idle (`sleep.announce`, `sleep.retract`,
/// `sleep.park`), unless `has_work` finds a task. Must not sleep through a task that was
/// pushed while it was going idle.
pub fn await_work(sleep: &Sleep, me: usize, has_work: impl Fn() -> bool) {
    // TODO: a task pushed while this worker is on its way to sleep must not be slept through
    // (the page's "Going idle without losing a wake-up" says what a producer looks at).
    let _ = (sleep, me, has_work);
    todo!("await_work")
}

/// The owner of `q` has just pushed a task (at `top - 1`; `top` is `q.top`, `q.array().at(i)`
/// is the slot of index `i`). True when the push must wake an idle worker: when the queue may
/// have looked empty to a worker that then went idle.
pub fn looked_empty<T>(q: &WorkQueue<T>) -> bool {
    // TODO: the page's "When a push wakes a worker" says which slot tells, and why its read
    // must be ordered after the push's swap.
    let _ = q;
    todo!("looked_empty")
}

/// A thief has just taken a task from `q` and moved `base` (`q.base`) past it. True when it
/// must wake another worker: a task is left behind for one.
pub fn leaves_work<T>(q: &WorkQueue<T>) -> bool {
    // TODO: which slot holds the next task a thief would take?
    let _ = q;
    todo!("leaves_work")
}

/// A worker waits until `done()`; `run_one()` takes and runs one other task (own queue first,
/// then a steal) and says whether it found one.
pub fn help_until(done: impl Fn() -> bool, run_one: impl FnMut() -> bool) {
    // TODO: what must a worker do while it waits, if the task it waits for is in its own queue?
    let _ = (done, run_one);
    todo!("help_until")
}
