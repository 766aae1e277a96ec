//! Tests (not under loom) of the phase word and the submission queues, run against the
//! reference (`reference::`) and, with the grader's `--features exercise`, the reader's
//! (`exercise::`).
#![cfg(not(loom))]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use ch05_phase::phase::{Fields, encode};
use ch05_phase::{
    EXTERNAL_ID_MASK, IDLE, PhaseOps, Queues, decode, describe, queues_len, snapshot,
};
use proptest::prelude::*;

/// The article's probe, on a real JDK 25 pool: a submission queue's phase before, during and
/// after one tryLockPhase/unlockPhase, and a worker queue's phase.
const BEFORE: i32 = 0x0001_39b8;
const DURING: i32 = 0x0002_39b8;
const AFTER: i32 = 0x0003_39b8;
const WORKER: i32 = 0x3c6f_0005;

#[test]
fn the_articles_values_decode_as_the_jdk_defines_them() {
    assert_eq!(decode(BEFORE), Fields { id: 14776, idle: true, version: 0 });
    assert_eq!(decode(DURING), Fields { id: 14776, idle: false, version: 1 });
    assert_eq!(decode(AFTER), Fields { id: 14776, idle: true, version: 1 });
    assert_eq!(decode(WORKER), Fields { id: 5, idle: true, version: 0x1e37 });
    assert_eq!(14776 & EXTERNAL_ID_MASK, 14776, "an external id: even, inside the mask");
    assert_eq!(14776 & 15, 8, "in a 16-slot array it sits at index 8, as the article found");
    assert_eq!(describe(8, BEFORE), "idx=8 phase=0x000139b8 idBits=14776 IDLE=true");
}

#[test]
fn the_queues_array_is_as_long_as_the_jdks() {
    for p in 1..=300usize {
        // The JDK constructor's expression, in Rust's words.
        let jdk = 16usize.max(1 << (33 - ((p - 1) as u32).leading_zeros()));
        let len = queues_len(p);
        assert_eq!(len, jdk, "parallelism {p}");
        assert!(len / 2 >= p, "parallelism {p}: every worker has an odd slot");
    }
}

proptest! {
    #[test]
    fn decode_and_encode_are_inverse(phase in any::<i32>()) {
        prop_assert_eq!(encode(decode(phase)), phase);
    }
}

fn one_cycle_adds_idle_twice<P: PhaseOps>() {
    let phase = AtomicI32::new(BEFORE);
    assert!(P::try_lock_phase(&phase), "IDLE set: the lock is free");
    assert_eq!(phase.load(Ordering::Relaxed), DURING, "locking adds IDLE: bit 16 clears, carry");
    assert!(!P::try_lock_phase(&phase), "IDLE clear: held");
    assert_eq!(phase.load(Ordering::Relaxed), DURING, "a failed try changes nothing");
    P::unlock_phase(&phase);
    assert_eq!(phase.load(Ordering::Relaxed), AFTER, "unlocking adds IDLE again");
}

fn every_cycle_keeps_the_id_and_adds_one_version<P: PhaseOps>() {
    proptest!(|(id in 0..=0xffffi32, version in 0u32..0x7fff, cycles in 1u32..20)| {
        let start = encode(Fields { id, idle: true, version });
        let phase = AtomicI32::new(start);
        for c in 1..=cycles {
            prop_assert!(P::try_lock_phase(&phase));
            let during = decode(phase.load(Ordering::Relaxed));
            prop_assert!(!during.idle);
            prop_assert_eq!(during.id, id);
            P::unlock_phase(&phase);
            let after = phase.load(Ordering::Relaxed);
            prop_assert_eq!(after, start.wrapping_add(2 * IDLE * c as i32), "cycle {}", c);
            // The word moved by 2 * IDLE: the version field (bits 17-31) by one, mod 2^15.
            prop_assert_eq!(decode(after).version, (version + c) & 0x7fff, "cycle {}", c);
        }
    });
}

fn a_new_submission_queue_is_born_locked<P: PhaseOps>() {
    let queues: Queues<u32, P> = Queues::new(16, 2, 0);
    let mut probe = 0x39b8;
    let guard = queues.submission_queue(&mut probe);
    let q = guard.queue();
    assert_eq!(q.phase.load(Ordering::Relaxed), 0x39b8, "born locked: phase = id, IDLE clear");
    assert!(q.try_lock::<P>().is_none(), "and really held");
    guard.push(7).unwrap();
    assert_eq!(q.phase.load(Ordering::Relaxed), BEFORE, "the push unlocks: id + IDLE");
    assert_eq!(queues.iter().map(|(i, _)| i).collect::<Vec<_>>(), [1, 3, 8]);
    assert_eq!(q.stealer().poll(), Some(7));
}

fn a_dropped_guard_unlocks<P: PhaseOps>() {
    let queues: Queues<u32, P> = Queues::new(16, 0, 0);
    let mut probe = 0x39b8;
    drop(queues.submission_queue(&mut probe)); // created, never pushed
    let q = queues.get(8).unwrap();
    assert_eq!(q.phase.load(Ordering::Relaxed), BEFORE, "unlocked without a push");
    let again = q.try_lock::<P>().expect("free again");
    drop(again);
    assert_eq!(q.phase.load(Ordering::Relaxed), AFTER);
}

fn a_held_queue_sends_the_submitter_elsewhere<P: PhaseOps>() {
    let queues: Queues<u32, P> = Queues::new(16, 0, 0);
    let (mut a, mut b) = (0x39b8, 0x39b8);
    let held = queues.submission_queue(&mut a);
    let other = queues.submission_queue(&mut b); // same slot, held: b must move on
    assert_ne!(b, 0x39b8, "the probe advanced");
    let (i, j) = (
        held.queue().phase.load(Ordering::Relaxed) & 15,
        other.queue().phase.load(Ordering::Relaxed) & 15,
    );
    assert_ne!(i, j, "a different queue");
    assert!(i % 2 == 0 && j % 2 == 0, "submission queues sit at even indices");
}

fn a_full_queue_hands_the_task_back_and_unlocks<P: PhaseOps>() {
    let queues: Queues<u32, P> = Queues::with_capacities(4, 0, 0, 2, 2);
    let mut probe = 2;
    for t in 0..2 {
        queues.submission_queue(&mut probe).push(t).unwrap();
    }
    let full = queues.submission_queue(&mut probe).push(2).expect_err("2 slots, 2 tasks");
    assert_eq!(full.into_task(), 2, "the task comes back");
    let q = queues.get(2).unwrap();
    assert!(decode(q.phase.load(Ordering::Relaxed)).idle, "unlocked after the failed push");
}

fn an_internal_push_needs_no_lock<P: PhaseOps>() {
    let queues: Queues<u32, P> = Queues::new(4, 1, 0x7ffe_0000);
    let w = queues.get(1).unwrap();
    let before = w.phase.load(Ordering::Relaxed);
    P::push(w.work(), &w.phase, 5, true).unwrap();
    assert_eq!(w.phase.load(Ordering::Relaxed), before, "the owner's push leaves the phase alone");
    assert_eq!(w.stealer().poll(), Some(5));
    // Nor when the queue is full: "unlock also when full" is for the external push, which
    // holds the lock; an owner's push that finds no room held none, and hands the task back.
    let (_owner, full) = ch04_grow::new_with::<u32, ch04_grow::Reference>(2, 2);
    let phase = AtomicI32::new(before);
    for t in 0..2 {
        P::push(full.queue(), &phase, t, true).expect("2 slots");
    }
    let back = P::push(full.queue(), &phase, 2, true).expect_err("2 slots, 2 tasks");
    assert_eq!(back.into_task(), 2, "the task comes back");
    assert_eq!(phase.load(Ordering::Relaxed), before, "a full owner's push leaves the phase alone");
}

fn a_snapshot_sees_a_whole_push<P: PhaseOps>() {
    let queues: Queues<u32, P> = Queues::new(16, 0, 0);
    let mut probe = 0x39b8;
    queues.submission_queue(&mut probe).push(1).unwrap();
    let s = snapshot::<u32, P>(queues.get(8).unwrap());
    assert_eq!((s.phase, s.len, s.newest_present), (BEFORE, 1, true));
}

/// A seqlock read is retried for as long as a lock cycle falls inside it, however many times:
/// here the first five reads each see a holder lock and unlock the queue (as a submitter on
/// another core would), and only the sixth runs between two equal versions. A reader that
/// stops retrying after a few reads, to bound its wait, returns a read made across a lock.
/// Also where the version (bits 17 to 31) passes 0x3fff, bit 31 becomes set and the word turns
/// negative: versions are compared for equality, not order.
fn a_read_across_locks_is_retried_until_one_is_not<P: PhaseOps>() {
    for start in [BEFORE, 0x7fff_39b8] {
        let phase = AtomicI32::new(start);
        let mut reads = 0;
        let (read, version) = P::read_stable(&phase, || {
            reads += 1;
            if reads <= 5 {
                assert!(P::try_lock_phase(&phase), "read {reads}: the queue was unlocked");
                P::unlock_phase(&phase);
            }
            reads
        });
        let after = start.wrapping_add(10 * IDLE); // five cycles, two steps each
        assert_eq!(
            (read, version),
            (6, after),
            "from phase {start:#x}: the answer must come from the first read with no lock cycle \
             inside it (the sixth), with the version it ran under"
        );
    }
}

/// Four submitter threads push 20,000 tasks each through `submission_queue` into a 16-slot
/// array while a thief polls every queue. Every task is taken exactly once, and every queue's
/// phase ends at `id + IDLE * (2 * pushes - 1)`: born locked, then two steps per push after
/// the first. A lock that lets two submitters in at once loses tasks or versions here.
fn submitters_and_a_thief<P: PhaseOps + 'static>() {
    const PER: usize = 20_000;
    const SUBMITTERS: usize = 4;
    let queues: Arc<Queues<usize, P>> = Arc::new(Queues::new(16, 0, 0));
    let seen: Arc<Vec<AtomicU8>> =
        Arc::new((0..PER * SUBMITTERS).map(|_| AtomicU8::new(0)).collect());
    let pushes: Arc<Mutex<HashMap<i32, i32>>> = Arc::default();
    let done = Arc::new(AtomicBool::new(false));
    let thief = {
        let (queues, seen, done) = (queues.clone(), seen.clone(), done.clone());
        thread::spawn(move || {
            loop {
                let finished = done.load(Ordering::Acquire); // pairs with the Release below
                let mut got = false;
                for (_, q) in queues.iter() {
                    while let Some(t) = q.stealer().poll() {
                        seen[t].fetch_add(1, Ordering::Relaxed); // Relaxed: read after join
                        got = true;
                    }
                }
                if finished && !got {
                    break;
                }
            }
        })
    };
    let submitters: Vec<_> = (0..SUBMITTERS)
        .map(|s| {
            let (queues, pushes) = (queues.clone(), pushes.clone());
            thread::spawn(move || {
                let mut probe = ch05_phase::advance_probe(
                    0x9e37_79b9 ^ (s as u32 + 1).wrapping_mul(0x85eb_ca6b),
                );
                let mut mine: HashMap<i32, i32> = HashMap::new();
                for t in 0..PER {
                    let guard = queues.submission_queue(&mut probe);
                    let id =
                        ch05_phase::phase::decode(guard.queue().phase.load(Ordering::Relaxed)).id;
                    *mine.entry(id).or_default() += 1;
                    guard.push(s * PER + t).unwrap();
                }
                let mut all = pushes.lock().unwrap();
                for (id, n) in mine {
                    *all.entry(id).or_default() += n;
                }
            })
        })
        .collect();
    for s in submitters {
        s.join().unwrap();
    }
    done.store(true, Ordering::Release);
    thief.join().unwrap();
    let wrong: Vec<usize> =
        (0..seen.len()).filter(|&i| seen[i].load(Ordering::Relaxed) != 1).take(5).collect();
    assert!(wrong.is_empty(), "tasks not taken exactly once: {wrong:?}");
    for (id, n) in pushes.lock().unwrap().iter() {
        let q = queues.get(*id as usize & 15).unwrap();
        let phase = q.phase.load(Ordering::Relaxed);
        assert_eq!(
            phase,
            id.wrapping_add(IDLE.wrapping_mul(2 * n - 1)),
            "queue {id:#x}: {n} pushes should leave the phase at id + IDLE * (2n - 1)"
        );
    }
}

seam::tests!(
    ch05_phase;
    one_cycle_adds_idle_twice,
    every_cycle_keeps_the_id_and_adds_one_version,
    a_new_submission_queue_is_born_locked,
    a_dropped_guard_unlocks,
    a_held_queue_sends_the_submitter_elsewhere,
    a_full_queue_hands_the_task_back_and_unlocks,
    an_internal_push_needs_no_lock,
    a_snapshot_sees_a_whole_push,
    a_read_across_locks_is_retried_until_one_is_not,
    submitters_and_a_thief,
);
