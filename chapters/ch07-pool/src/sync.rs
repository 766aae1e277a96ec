//! Chapter 2's atomics shim plus the blocking primitives idle workers need: loom's under
//! `--cfg loom`, std's otherwise.

pub use ch02_poll::sync::*;

#[cfg(loom)]
pub use loom::sync::{Condvar, Mutex};
#[cfg(not(loom))]
pub use std::sync::{Condvar, Mutex};

#[cfg(loom)]
pub use loom::sync::atomic::AtomicUsize;
#[cfg(not(loom))]
pub use std::sync::atomic::AtomicUsize;

/// Gives the processor to another thread: a waiting joiner with nothing to help with. Under
/// loom, a yield that lets the model checker run the thread being waited for.
#[inline]
pub fn yield_now() {
    #[cfg(loom)]
    loom::thread::yield_now();
    #[cfg(not(loom))]
    std::thread::yield_now();
}
