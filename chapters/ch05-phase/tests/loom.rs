//! Loom models of the phase lock (`LOOM_MAX_PREEMPTIONS=3`): two external submitters and a
//! poller on one submission queue, and a seqlock reader beside a submitter. Queues start at 2
//! slots, so a push may grow the array inside the lock.
//!
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=3 cargo test -p ch05-phase --release --test loom`
#![cfg(loom)]

use ch05_phase::sync::AtomicI32;
use ch05_phase::sync::Ordering::Relaxed;
use ch05_phase::{IDLE, PhaseOps, Queues, snapshot};
use loom::sync::Arc;
use loom::thread;
use seam::model::{Task, exactly_once, run, task};

/// A 2-slot queues array: every submitter lands on index 0.
fn one_submission_queue<P: PhaseOps>() -> Arc<Queues<Task, P>> {
    Arc::new(Queues::with_capacities(2, 0, 0, 2, 4))
}

/// Two external submitters each try to lock one submission queue and push a task, while a
/// thief polls it. The queue already exists (made by the main thread, born locked, unlocked
/// by its first push). Each submitter tries the lock up to three times, yielding between
/// tries, and keeps its task if it never got in (`submission_queue` would move on to another
/// queue; with one queue it would spin, which loom cannot afford with a spinning thief too).
/// The lock must let one submitter in at a time: every task is taken exactly once, and the
/// phase moves by exactly two steps per cycle. A lock taken with a plain store lets both in,
/// and their pushes overwrite each other; unlocking before the push does the same.
fn two_submitters_and_a_poller<P: PhaseOps + 'static>() {
    ch05_phase::sync::model(|| {
        let queues = one_submission_queue::<P>();
        let mut probe = 2;
        queues.submission_queue(&mut probe).push(task(0)).unwrap();
        let submitters: Vec<_> = (1..3)
            .map(|id| {
                let queues = queues.clone();
                thread::spawn(move || {
                    let q = queues.get(0).unwrap();
                    for _ in 0..3 {
                        if let Some(guard) = q.try_lock::<P>() {
                            guard.push(task(id)).unwrap();
                            return None;
                        }
                        thread::yield_now();
                    }
                    Some(task(id)) // never got the lock
                })
            })
            .collect();
        let poller = {
            let queues = queues.clone();
            thread::spawn(move || queues.get(0).unwrap().stealer().poll().map(run))
        };
        let mut kept = Vec::new();
        for s in submitters {
            kept.extend(s.join().unwrap());
        }
        let cycles = 2 - kept.len() as i32;
        let mut taken: Vec<usize> = poller.join().unwrap().into_iter().collect();
        taken.extend(kept.into_iter().map(run));
        let q = queues.get(0).unwrap();
        let stealer = q.stealer();
        taken.extend(std::iter::from_fn(|| stealer.poll().map(run)));
        exactly_once(3, &[&taken]);
        let phase = q.phase.load(Relaxed);
        assert_eq!(
            phase,
            (phase & 0xffff) + IDLE * (1 + 2 * cycles),
            "born locked and unlocked once, then two steps for each of the {cycles} lock cycles"
        );
    });
}

/// A submitter pushes two tasks (two lock cycles, the second growing the array) while a
/// reader takes seqlock snapshots of the queue. A snapshot must never show a push half done:
/// `top` moved but the newest slot still empty. A reader that does not re-check the version,
/// or a lock that does not move the version, accepts exactly that.
fn a_seqlock_reader_never_sees_half_a_push<P: PhaseOps + 'static>() {
    ch05_phase::sync::model(|| {
        let queues = one_submission_queue::<P>();
        let mut probe = 2;
        queues.submission_queue(&mut probe).push(task(0)).unwrap(); // the queue exists, unlocked
        let reader = {
            let queues = queues.clone();
            thread::spawn(move || {
                let q = queues.get(0).unwrap();
                (0..2).map(|_| snapshot::<Task, P>(q)).collect::<Vec<_>>()
            })
        };
        for id in 1..3 {
            queues.submission_queue(&mut probe).push(task(id)).unwrap();
        }
        for s in reader.join().unwrap() {
            assert!(s.phase & IDLE != 0, "a snapshot is taken under an unlocked phase: {s:?}");
            assert!(s.len >= 1 && s.newest_present, "a torn read: {s:?}");
        }
        let stealer = queues.get(0).unwrap().stealer();
        let taken: Vec<usize> = std::iter::from_fn(|| stealer.poll().map(run)).collect();
        exactly_once(3, &[&taken]);
    });
}

/// This thread holds the lock while two others each try it once: both must be turned away,
/// and the unlock then leaves the word one cycle on. A try that adds IDLE and takes it back
/// when the word was held makes the held word look free in between: the other try gets in.
fn a_held_lock_turns_every_try_away<P: PhaseOps + 'static>() {
    ch05_phase::sync::model(|| {
        let start = 0x0001_39b8; // unlocked: the IDLE bit is set
        let phase = Arc::new(AtomicI32::new(start));
        assert!(P::try_lock_phase(&phase), "an unlocked word locks");
        let tries: Vec<_> = (0..2)
            .map(|_| {
                let phase = phase.clone();
                thread::spawn(move || P::try_lock_phase(&phase))
            })
            .collect();
        let got: Vec<bool> = tries.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(got, [false, false], "a try on a held lock took it");
        P::unlock_phase(&phase);
        assert_eq!(phase.load(Relaxed), start + 2 * IDLE, "one lock cycle, two steps");
    });
}

seam::tests!(
    ch05_phase;
    two_submitters_and_a_poller,
    a_seqlock_reader_never_sees_half_a_push,
    a_held_lock_turns_every_try_away,
);
