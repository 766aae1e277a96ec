//! The floor of the contended run (`contention.rs`): chapter 4's protocol with bare ids in the
//! slots, no boxes.

use std::ptr::without_provenance_mut;
use std::sync::Arc;
use std::sync::atomic::AtomicI32;
use std::sync::atomic::Ordering::{Relaxed, Release};

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
/// [`Protocol::unfenced`] changes one instruction of the push: the slot is written with a
/// Release store where the JDK's push (and chapter 4's) swaps it, a fully fenced
/// `getAndSetReference`. Not the JDK's protocol, and wrong for a pool: chapter 7's signal check
/// after a push (`looked_empty`) needs that fence. Its time beside the protocol's is what the
/// fence costs an owner whose thief reads the lines it writes (`queue-ops`' heels row).
///
/// Right only where no thief's CAS can match a value pushed after it read the slot (the reuse
/// that chapter 2's pins guard against): in `race`, whose ids never repeat within a run, and in
/// `queue-ops`' single-threaded push+pop and push+steal, whose thief runs between the owner's
/// pushes on the owner's thread. No slot value is ever followed. Not a queue to use.
pub struct Protocol {
    ids: Arc<Ids>,
    /// Whether each thief's poll holds a pin (`reclaim::pin`), as ours does.
    pinned: bool,
    /// Whether the push swaps the slot (the JDK's push), or only stores it ([`Protocol::unfenced`]).
    fenced: bool,
    /// The unfenced push's last read of `base` (chapter 4's `base_seen`): `base` is read again
    /// only when this leaves no room. Only the owner reads and writes it.
    base_seen: AtomicI32,
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
            fenced: true,
            base_seen: AtomicI32::new(0),
        }
    }

    /// The same, with each thief's poll pinned as ours is (still no boxes).
    pub fn pinned() -> Protocol {
        Protocol { pinned: true, ..Protocol::new() }
    }

    /// The bare protocol with a Release store of the slot where its push swaps (see above).
    pub fn unfenced() -> Protocol {
        Protocol { fenced: false, ..Protocol::new() }
    }

    /// Chapter 4's push on bare ids, its swap of the slot a Release store, its array never
    /// grown (the heels row's queue stays nearly empty; a full one hands the id back).
    fn push_unfenced(&self, id: usize) -> Result<(), usize> {
        let q = &self.ids.0;
        let s = q.top.load(Relaxed); // only the owner writes top
        let cap = q.array().capacity() as i32; // the owner's own array: it never grows here
        let room = |b: i32| s.wrapping_sub(b) < cap - 1; // a free slot to spare after this push
        if !room(self.base_seen.load(Relaxed)) {
            let b = q.base.load(Relaxed); // as chapter 4's push: stale means less room
            self.base_seen.store(b, Relaxed); // Relaxed: the owner's own
            if !room(b) {
                return Err(id);
            }
        }
        q.top.store(s.wrapping_add(1), Relaxed); // as in chapter 4
        q.array().at(s).store(to_slot(id), Release); // Release: publishes; no fence (see above)
        Ok(())
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
        if !self.fenced {
            return self.push_unfenced(task);
        }
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
        for q in [Protocol::new(), Protocol::pinned(), Protocol::unfenced()] {
            // `race` checks that every id was taken exactly once, by a thief or the owner.
            crate::contention::race(&q, 20_000, 2).expect("each id taken once");
            assert_eq!(q.pop(), None, "the race took everything");
        }
    }
}
