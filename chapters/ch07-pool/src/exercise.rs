// Chapter 7 exercise: going idle without losing a wake-up, and joining without blocking.
//
// Write the two functions so that `cargo grade ch07` passes: the tests (fib(25) without cutoff
// at parallelism 1, 2 and 4, panics, shutdown under load), the loom models of the park/signal
// handshake, clippy and the benchmark gate. The page (chapters/ch07-pool/README.md,
// "Exercise") explains both; `cargo grade ch07 --hint` gives hints. Compiled only by
// `cargo grade ch07`.

use crate::Sleep;
#[allow(unused_imports)] // you may want it
use crate::sync::yield_now;

/// A worker `me` whose scan found nothing: go idle (`sleep.announce`, `sleep.retract`,
/// `sleep.park`), unless `has_work` finds a task. Must not sleep through a task that was
/// pushed while it was going idle.
pub fn await_work(sleep: &Sleep, me: usize, has_work: impl Fn() -> bool) {
    // TODO: a task pushed while this worker is on its way to sleep must not be slept through
    // (the page's "Going idle without losing a wake-up" says what a producer looks at).
    let _ = (sleep, me, has_work);
    todo!("await_work")
}

/// A worker waits until `done()`; `run_one()` takes and runs one other task (own queue first,
/// then a steal) and says whether it found one.
pub fn help_until(done: impl Fn() -> bool, run_one: impl FnMut() -> bool) {
    // TODO: what must a worker do while it waits, if the task it waits for is in its own queue?
    let _ = (done, run_one);
    todo!("help_until")
}
