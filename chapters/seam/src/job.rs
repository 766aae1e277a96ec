//! A task for stress tests that counts its drops.
#![cfg(not(loom))]

use std::sync::Arc;
use std::sync::atomic::Ordering;

/// A task that knows its id and counts its drops into a shared counter: stress tests use it
/// to show that no task is leaked and none is dropped twice.
pub struct Job {
    /// Which task.
    pub id: usize,
    drops: Arc<std::sync::atomic::AtomicUsize>,
}

impl Job {
    /// Task `id`, counting its drop into `drops`.
    pub fn new(id: usize, drops: &Arc<std::sync::atomic::AtomicUsize>) -> Job {
        Job { id, drops: drops.clone() }
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        // Relaxed: a counter, read after every thread that drops jobs has been joined.
        self.drops.fetch_add(1, Ordering::Relaxed);
    }
}
