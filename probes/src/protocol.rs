//! The floor of the contended run (`contention.rs`): chapter 4's protocol with bare ids in the
//! slots, no boxes.

use std::ptr::without_provenance_mut;
use std::sync::Arc;

use ch02_poll::PollStats;
use ch04_grow::{Reference, WorkQueue, push_slot, take};

use crate::contention::{Contended, ContendedThief};

/// The protocol alone: this chapter's push, `poll` and `next_local_task`, growth included, with
/// each task id stored in its slot as it is (`id + 1`, as a pointer never followed): no box, no
/// pin, no hand-back. What a task's box and its reclamation cost a contended run is ours over
/// this.
///
/// [`Protocol::pinned`] adds chapter 2's pin around each poll, and nothing else: its time over
/// the bare protocol's is what the pins cost a contended run, and ours over it what the task
/// boxes and their hand-back cost.
///
/// Right only where no thief's CAS can match a value pushed after it read the slot (the reuse
/// that chapter 2's pins guard against): in `race`, whose ids never repeat within a run, and in
/// `queue-ops`' single-threaded push+pop and push+steal, whose thief runs between the owner's
/// pushes on the owner's thread. No slot value is ever followed. Not a queue to use.
pub struct Protocol {
    ids: Arc<Ids>,
    /// Whether each thief's poll holds a pin (`reclaim::pin`), as ours does.
    pinned: bool,
}

/// The shared queue, emptied before it drops (its `Drop` would free what a slot holds).
pub struct Ids(WorkQueue<usize>);

impl Protocol {
    /// An empty queue, growing from the JDK's first capacity.
    pub fn new() -> Protocol {
        Protocol {
            ids: Arc::new(Ids(WorkQueue::new(
                ch04_grow::INITIAL_QUEUE_CAPACITY,
                ch04_grow::MAX_CAPACITY,
            ))),
            pinned: false,
        }
    }

    /// The same, with each thief's poll pinned as ours is (still no boxes).
    pub fn pinned() -> Protocol {
        Protocol { pinned: true, ..Protocol::new() }
    }
}

impl Default for Protocol {
    fn default() -> Self {
        Self::new()
    }
}

/// An id as a slot value, and back (`id + 1`: null stays "empty").
fn to_slot(id: usize) -> *mut usize {
    without_provenance_mut(id + 1)
}
fn from_slot(p: *mut usize) -> Option<usize> {
    (!p.is_null()).then(|| p.addr() - 1)
}

impl Drop for Ids {
    fn drop(&mut self) {
        // Empty the slots: what they hold are ids, not boxes.
        while !take::next_local_task(&self.0, false).is_null() {}
    }
}

impl Contended for Protocol {
    type Thief = ProtocolThief;
    fn push(&self, task: usize) -> Result<(), usize> {
        push_slot::<usize, Reference, usize>(&self.ids.0, task, |id, _| to_slot(id))
            .map_err(|full| full.task)
    }
    fn pop(&self) -> Option<usize> {
        from_slot(take::next_local_task(&self.ids.0, false))
    }
    fn thief(&self) -> ProtocolThief {
        ProtocolThief { ids: self.ids.clone(), pinned: self.pinned }
    }
}

/// A thief on a [`Protocol`] queue: `poll`, pinned only on a [`Protocol::pinned`] queue.
pub struct ProtocolThief {
    ids: Arc<Ids>,
    pinned: bool,
}

impl ContendedThief for ProtocolThief {
    fn take(&mut self, stats: &mut PollStats) -> Option<usize> {
        let _pin = self.pinned.then(reclaim::pin); // as `ch04_grow::Stealer::poll_counted`
        from_slot(take::poll(&self.ids.0, stats))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_takes_every_id_once() {
        for q in [Protocol::new(), Protocol::pinned()] {
            // `race` checks that every id was taken exactly once, by a thief or the owner.
            crate::contention::race(&q, 20_000, 2).expect("each id taken once");
            assert_eq!(q.pop(), None, "the race took everything");
        }
    }
}
