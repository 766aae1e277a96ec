//! Where idle workers sleep, and how a producer wakes one.
//!
//! The handshake is Dekker's: a worker going idle *announces* itself (a SeqCst store, then a
//! SeqCst fence) and then *rechecks* the queues; a producer *pushes* its task and then
//! (after a SeqCst fence) *looks* for an announced sleeper to wake. The two fences cannot
//! both miss the other side's store, so either the worker's recheck finds the task, or the
//! producer finds the worker and wakes it. Without the recheck, a task pushed just before the
//! announcement is seen by no one: a lost wake-up. [JDK 25: `deactivate`/`awaitWork` and
//! `signalWork`, which do a variant with the `ctl` word and `Unsafe.park`: the worker woken is
//! the top of the idle stack, not always the one whose recheck saw the task]

use crate::sync::Ordering::SeqCst;
use crate::sync::{AtomicUsize, Condvar, Mutex, fence};

/// One worker's parking spot: a wake-up token and a condition variable.
struct Parker {
    /// True when a wake-up arrived that `park` has not consumed yet.
    token: Mutex<bool>,
    cv: Condvar,
}

/// The idle workers of a pool.
pub struct Sleep {
    /// How many workers are announced (on `idle`). Read by every producer that signals (after
    /// an outside push, a worker's push onto a queue that looked empty, or a steal that leaves
    /// tasks behind).
    sleeping: AtomicUsize,
    /// Announced workers, most recent last. [JDK: the `ctl` stack of idle workers]
    idle: Mutex<Vec<usize>>,
    parkers: Box<[Parker]>,
    /// For the unit tests: who waits in `park` (see [`Waits`]).
    #[cfg(all(test, not(loom)))]
    waits: Waits,
}

/// For the unit tests: workers waiting in `park` now, and waits that a wake-up ended so far.
/// (A worker that finds its token set does not wait, and counts in neither.) std's atomics:
/// only tests outside loom read them.
#[cfg(all(test, not(loom)))]
#[derive(Default)]
struct Waits {
    waiting: std::sync::atomic::AtomicUsize,
    ended: std::sync::atomic::AtomicUsize,
}

#[cfg(all(test, not(loom)))]
impl Waits {
    /// A worker is about to wait (`waits`) or not; returns `waits` for [`Waits::end`].
    fn begin(&self, waits: bool) -> bool {
        // SeqCst: a test's look at the counts sees them in the order they changed.
        self.waiting.fetch_add(usize::from(waits), SeqCst);
        waits
    }

    /// The wait that `begin` counted (if it did) is over.
    fn end(&self, waited: bool) {
        self.waiting.fetch_sub(usize::from(waited), SeqCst); // SeqCst: as in `begin`
        self.ended.fetch_add(usize::from(waited), SeqCst);
    }
}

impl Sleep {
    /// Room for `workers` workers, numbered `0..workers`.
    pub fn new(workers: usize) -> Self {
        Sleep {
            sleeping: AtomicUsize::new(0),
            idle: Mutex::new(Vec::with_capacity(workers)),
            parkers: (0..workers)
                .map(|_| Parker { token: Mutex::new(false), cv: Condvar::new() })
                .collect(),
            #[cfg(all(test, not(loom)))]
            waits: Waits::default(),
        }
    }

    /// For the unit tests: (workers waiting in `park` now, wake-ups that ended a wait so far).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn parked(&self) -> (usize, usize) {
        // SeqCst: as the counts change (`Waits::begin`).
        (self.waits.waiting.load(SeqCst), self.waits.ended.load(SeqCst))
    }

    // ANCHOR: announce
    /// Worker `me` declares itself idle. Followed by a SeqCst fence: whatever the worker
    /// reads next (its recheck of the queues) is ordered after this announcement.
    pub fn announce(&self, me: usize) {
        {
            // The list and the count change together, under the lock: a producer that pops a
            // worker between the two would otherwise decrement a count that does not include
            // it yet, and a later producer would read 0 with a worker asleep on the list
            // (loom found this lost wake-up with two workers).
            let mut idle = self.idle.lock().unwrap();
            idle.push(me);
            self.sleeping.fetch_add(1, SeqCst); // SeqCst: one half of the Dekker pair
        }
        fence(SeqCst); // and the recheck's loads may not move above it
    }
    // ANCHOR_END: announce

    /// Worker `me` found work after announcing: takes itself off the idle list. If a
    /// producer already took it off (and will wake it), the wake-up token stays set and its
    /// next `park` returns at once: a spurious wake-up, never a lost one.
    pub fn retract(&self, me: usize) {
        let mut idle = self.idle.lock().unwrap();
        if let Some(i) = idle.iter().position(|&w| w == me) {
            idle.swap_remove(i);
            self.sleeping.fetch_sub(1, SeqCst); // SeqCst: as in announce
        }
    }

    /// Worker `me` sleeps until a producer wakes it (or returns at once if one already did),
    /// and leaves the idle list. A token can be left over from a wake-up that raced with a
    /// `retract`; a park it ends early must still take `me` off the list, or a later announce
    /// would put `me` there twice and a signal could go to a worker that is no longer asleep
    /// (loom found exactly this with two workers).
    pub fn park(&self, me: usize) {
        let p = &self.parkers[me];
        {
            let mut token = p.token.lock().unwrap();
            #[cfg(all(test, not(loom)))]
            let waited = self.waits.begin(!*token);
            while !*token {
                token = p.cv.wait(token).unwrap();
            }
            *token = false;
            #[cfg(all(test, not(loom)))]
            self.waits.end(waited);
        }
        self.retract(me); // a no-op when the producer that woke us took us off already
    }

    // ANCHOR: signal
    /// Producer, after a push: wakes one announced worker, if any. [JDK: `signalWork`]
    pub fn signal(&self) {
        fence(SeqCst); // the other half of the Dekker pair: the push is ordered before the look
        if self.sleeping.load(SeqCst) == 0 {
            return; // the common case: everyone is busy (or will recheck and see the push)
        }
        let woken = {
            let mut idle = self.idle.lock().unwrap();
            let w = idle.pop();
            if w.is_some() {
                self.sleeping.fetch_sub(1, SeqCst); // SeqCst: as in announce
            }
            w
        };
        if let Some(w) = woken {
            self.unpark(w);
        }
    }
    // ANCHOR_END: signal

    /// Wakes every announced worker (shutdown).
    pub fn signal_all(&self) {
        let all: Vec<usize> = {
            let mut idle = self.idle.lock().unwrap();
            self.sleeping.fetch_sub(idle.len(), SeqCst); // SeqCst: as in announce; under the lock
            std::mem::take(&mut *idle)
        };
        for w in all {
            self.unpark(w);
        }
    }

    fn unpark(&self, w: usize) {
        let p = &self.parkers[w];
        *p.token.lock().unwrap() = true;
        p.cv.notify_one();
    }

    /// Announced workers right now (a statistic).
    pub fn sleeping(&self) -> usize {
        self.sleeping.load(SeqCst)
    }
}
