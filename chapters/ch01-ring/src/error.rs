use std::fmt;

/// `push` on a ring that is full at its maximum capacity: the task comes back, nothing is lost.
///
/// The JDK throws `RejectedExecutionException("Queue capacity exceeded")` at this point.
pub struct Full<T> {
    /// The task that did not fit, handed back to the caller.
    pub task: T,
    /// The capacity the ring could not grow past.
    pub capacity: usize,
}

impl<T> Full<T> {
    /// Takes the rejected task back.
    pub fn into_task(self) -> T {
        self.task
    }
}

// Written by hand so that `Full<T>` is `Debug` (and so an `Error`) for any task type.
impl<T> fmt::Debug for Full<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Full").field("capacity", &self.capacity).finish_non_exhaustive()
    }
}

impl<T> fmt::Display for Full<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "queue capacity exceeded: the ring is full at its maximum capacity of {} slots; the task is handed back",
            self.capacity
        )
    }
}

impl<T> std::error::Error for Full<T> {}
