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
