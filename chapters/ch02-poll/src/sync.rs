//! One place that decides where the atomics come from: loom's model-checked
//! versions under `--cfg loom`, std's otherwise. Everything else imports from here.

#[cfg(loom)]
pub use loom::sync::atomic::{AtomicI32, AtomicPtr, AtomicU64, AtomicUsize, Ordering, fence};
#[cfg(loom)]
pub use loom::sync::{Arc, Mutex, MutexGuard};

#[cfg(not(loom))]
pub use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicU64, AtomicUsize, Ordering, fence};
#[cfg(not(loom))]
pub use std::sync::{Arc, Mutex, MutexGuard};

/// One round of a spin-wait (the JDK's `Thread.onSpinWait()`). Under loom it yields,
/// so that the model checker can run the thread being waited for.
#[inline]
pub fn spin() {
    #[cfg(loom)]
    loom::thread::yield_now();
    #[cfg(not(loom))]
    std::hint::spin_loop();
}
