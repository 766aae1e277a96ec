//! Loom models: every interleaving (up to LOOM_MAX_PREEMPTIONS preemptions) of an owner
//! and one or two thieves on a 4-slot queue. Each model checks that every task is taken
//! exactly once, that a thief reads the contents the owner wrote (loom reports a causality
//! violation otherwise), and the property its name states.
//!
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=3 cargo test -p ch02-poll --release --test loom`
#![cfg(loom)]

use ch02_poll::{PollOps, PollStats, Stealer, new_with};
use loom::thread;
use seam::model::{Task, exactly_once, run, task};

/// Every CAS a thief tried either took one of the `taken` tasks or failed.
fn counts_add_up(stats: &PollStats, taken: usize) {
    let want = taken as u64 + stats.failures;
    assert_eq!(stats.attempts, want, "attempts = successes + failures: {stats:?}");
}

/// Whether a thief polls with no other thief, or among others.
#[derive(Clone, Copy, PartialEq)]
enum Company {
    Alone,
    Crowd,
}
use Company::{Alone, Crowd};

/// A thief that polls `polls` times and returns the ids it ran, having checked its counters
/// (`counts_add_up`). Only thieves move `base` (this chapter's owner never writes it), so the
/// `base` of a thief polling `Alone` never moves under it: it counts no recheck, even where
/// its CAS loses to the owner's swap.
fn thief<P: PollOps + 'static>(
    s: &Stealer<Task, P>,
    polls: usize,
    company: Company,
) -> thread::JoinHandle<Vec<usize>> {
    let s = s.clone();
    thread::spawn(move || {
        let mut stats = PollStats::default();
        let got: Vec<usize> =
            (0..polls).filter_map(|_| s.poll_counted(&mut stats).map(run)).collect();
        counts_add_up(&stats, got.len());
        if company == Alone {
            assert_eq!(stats.rechecks, 0, "a lone thief counted a recheck: {stats:?}");
        }
        got
    })
}

/// The owner pops while a thief polls: the last task is raced for by swap and CAS.
fn owner_and_thief_race<P: PollOps + 'static>() {
    ch02_poll::sync::model(|| {
        let (owner, stealer) = new_with::<Task, P>(4);
        owner.push(task(0)).unwrap();
        let th = thief(&stealer, 2, Alone);
        owner.push(task(1)).unwrap();
        let mut mine = Vec::new();
        while let Some(t) = owner.pop() {
            mine.push(run(t));
        }
        let theirs = th.join().unwrap();
        exactly_once(2, &[&mine, &theirs]);
    });
}

/// Two thieves poll while the owner pushes: the thieves race each other's CAS and base
/// update, and may meet a slot announced by `top` but not yet written.
///
/// The owner does not pop here: with two thieves both spinning on an owner preempted inside
/// its pop, loom's search can alternate the two spinners forever ("maximum number of
/// branches"). Owner-versus-thief races are modelled with one thief, below and above.
fn two_thieves_and_a_pushing_owner<P: PollOps + 'static>() {
    ch02_poll::sync::model(|| {
        let (owner, stealer) = new_with::<Task, P>(4);
        owner.push(task(0)).unwrap();
        let (a, b) = (thief(&stealer, 1, Crowd), thief(&stealer, 1, Crowd));
        owner.push(task(1)).unwrap();
        let (a, b) = (a.join().unwrap(), b.join().unwrap());
        let mine: Vec<usize> = std::iter::from_fn(|| owner.pop().map(run)).collect();
        exactly_once(2, &[&mine, &a, &b]);
    });
}

/// Three tasks and two single polls, with the owner idle: the queue is never empty during
/// either poll, so both must get a task. An empty slot at base is not an empty queue.
fn a_poll_never_misses_a_present_task<P: PollOps + 'static>() {
    ch02_poll::sync::model(|| {
        let (owner, stealer) = new_with::<Task, P>(4);
        for id in 0..3 {
            owner.push(task(id)).unwrap();
        }
        let (a, b) = (thief(&stealer, 1, Crowd), thief(&stealer, 1, Crowd));
        let (a, b) = (a.join().unwrap(), b.join().unwrap());
        assert_eq!((a.len(), b.len()), (1, 1), "a poll returned empty while tasks were present");
        let rest: Vec<usize> = std::iter::from_fn(|| owner.pop().map(run)).collect();
        exactly_once(3, &[&a, &b, &rest]);
    });
}

/// The owner pops the last task while a thief polls it, then keeps working: whoever won,
/// base and top must still agree, so the next push is neither lost nor taken twice.
fn the_queue_survives_a_lost_last_task<P: PollOps + 'static>() {
    ch02_poll::sync::model(|| {
        let (owner, stealer) = new_with::<Task, P>(4);
        owner.push(task(0)).unwrap();
        let th = thief(&stealer, 1, Alone);
        let mut mine: Vec<usize> = owner.pop().map(run).into_iter().collect();
        owner.push(task(1)).unwrap();
        let theirs = th.join().unwrap();
        mine.extend(std::iter::from_fn(|| owner.pop().map(run)));
        mine.extend(std::iter::from_fn(|| stealer.poll().map(run)));
        exactly_once(2, &[&mine, &theirs]);
    });
}

/// The owner wraps around a full 4-slot ring while a thief that read `base` early polls:
/// slot 0 then holds index 4's task, and only the `base != b` recheck (made sound by the
/// Acquire load of the slot) stops the thief from taking it as index 0's. The owner's thread also
/// plays the second thief, so that loom can afford every interleaving.
fn a_reused_slot_is_not_taken_for_its_old_index<P: PollOps + 'static>() {
    ch02_poll::sync::model(|| {
        let (owner, stealer) = new_with::<Task, P>(4);
        for id in 0..4 {
            owner.push(task(id)).unwrap();
        }
        let late = thief(&stealer, 1, Crowd);
        let mut mine: Vec<usize> = stealer.poll().map(run).into_iter().collect();
        if let Err(full) = owner.push(task(4)) {
            mine.push(run(full.into_task())); // no room yet: the owner runs it itself
        }
        let late = late.join().unwrap();
        mine.extend(std::iter::from_fn(|| owner.pop().map(run)));
        exactly_once(5, &[&mine, &late]);
        assert!(
            stealer.poll().is_none() && owner.is_empty(),
            "base and top agree that the queue is empty"
        );
    });
}

/// The counters a probe reads count what happened: two thieves on two tasks meet, in some
/// interleaving, a `base` that moved between a thief's first read of it and its recheck (a
/// `recheck`), and in some other a CAS lost to the other thief (a `failure`); and in every
/// interleaving each thief's attempts are its successes plus its failures. (A model checks one
/// execution at a time, so this one notes across all of them what some execution counted; a
/// `poll` that skips a count, or turns its `+=` into `*=`, fails it, as generated mutants did.)
fn rechecks_and_lost_cas_are_counted<P: PollOps + 'static>() {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    static RECHECKED: AtomicBool = AtomicBool::new(false);
    static LOST: AtomicBool = AtomicBool::new(false);
    RECHECKED.store(false, Relaxed);
    LOST.store(false, Relaxed);
    ch02_poll::sync::model(|| {
        let (owner, stealer) = new_with::<Task, P>(4);
        owner.push(task(0)).unwrap();
        owner.push(task(1)).unwrap();
        let other = stealer.clone();
        let count = |s: Stealer<Task, P>| {
            let mut stats = PollStats::default();
            let got: Vec<usize> = s.poll_counted(&mut stats).map(run).into_iter().collect();
            counts_add_up(&stats, got.len());
            (got, stats)
        };
        let h = thread::spawn(move || count(other));
        let (mine, s1) = count(stealer);
        let (theirs, s2) = h.join().unwrap();
        let rest: Vec<usize> = std::iter::from_fn(|| owner.pop().map(run)).collect();
        exactly_once(2, &[&mine, &theirs, &rest]);
        // Relaxed, both: flags read after the model, on this thread.
        if s1.rechecks + s2.rechecks > 0 {
            RECHECKED.store(true, Relaxed);
        }
        if s1.failures + s2.failures > 0 {
            LOST.store(true, Relaxed);
        }
    });
    assert!(RECHECKED.load(Relaxed), "no interleaving counted a recheck");
    assert!(LOST.load(Relaxed), "no interleaving counted a lost CAS as a failure");
}

seam::tests!(
    ch02_poll;
    owner_and_thief_race,
    two_thieves_and_a_pushing_owner,
    a_poll_never_misses_a_present_task,
    the_queue_survives_a_lost_last_task,
    rechecks_and_lost_cas_are_counted,
    a_reused_slot_is_not_taken_for_its_old_index,
);

/// The recheck's chain alone, three threads on two atomics (the page, "What each ordering
/// buys"). A 4-slot ring is full, `base = 0`: a first thief empties slot 0 and moves `base` to
/// 1; the owner reads `base` and, seeing room, swaps index 4's task into slot 0; a late thief
/// reads `base`, the slot and `base` again, as `poll` does. Every access to `base` is Relaxed;
/// only the slot's pair, the owner's swap and the late thief's read, carries an ordering.
mod chain {
    use ch02_poll::sync::Ordering::{self, Relaxed, SeqCst};
    use ch02_poll::sync::{Arc, AtomicI32, AtomicUsize, model};
    use loom::thread;

    /// The two tasks slot 0 holds in turn (0 is an empty slot).
    const TASK_0: usize = 10;
    const TASK_4: usize = 14;

    fn late_thief_rechecks(slot_read: Ordering) {
        model(move || {
            let base = Arc::new(AtomicI32::new(0));
            let slot = Arc::new(AtomicUsize::new(TASK_0));
            let (b, s) = (base.clone(), slot.clone());
            let first = thread::spawn(move || {
                if s.compare_exchange(TASK_0, 0, SeqCst, Relaxed).is_ok() {
                    b.store(1, Relaxed);
                }
            });
            let (b, s) = (base.clone(), slot.clone());
            let owner = thread::spawn(move || {
                if b.load(Relaxed) == 1 {
                    s.swap(TASK_4, SeqCst); // room: index 4 goes into slot 4 & 3 = 0
                }
            });
            let seen = base.load(Relaxed);
            let t = slot.load(slot_read);
            if seen == 0 && t == TASK_4 {
                assert_ne!(base.load(Relaxed), 0, "the recheck read a base older than the owner's");
            }
            first.join().unwrap();
            owner.join().unwrap();
        });
    }

    #[test]
    fn the_recheck_reads_no_older_base_than_the_owner() {
        late_thief_rechecks(Ordering::Acquire);
    }

    /// The same chain with the slot read Relaxed (the mutant `relaxed_slot_load`): the model
    /// must find the execution in which the recheck reads 0.
    #[test]
    #[should_panic(expected = "older than the owner's")]
    fn with_a_relaxed_slot_read_it_can() {
        late_thief_rechecks(Relaxed);
    }
}
