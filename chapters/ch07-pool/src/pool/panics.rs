//! A task's panic: caught where the task runs, counted once, resumed in its joiner.

use super::*;

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
