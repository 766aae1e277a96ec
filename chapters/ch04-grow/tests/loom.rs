//! Loom models of growth: every interleaving (up to LOOM_MAX_PREEMPTIONS preemptions) of an
//! owner growing a 2-slot array to 4 while a thief polls; of the owner's spare box, reused
//! at its index under a paused thief; and of a push into the slot a thief is emptying. Each model checks that every task
//! is taken exactly once and that whoever takes a task reads the contents the owner wrote
//! (loom reports a causality violation otherwise).
//!
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=3 cargo test -p ch04-grow --release --test loom`
#![cfg(loom)]

use ch04_grow::{GrowOps, Stealer, new_with};
use loom::thread;
use seam::model::{Task, exactly_once, run, task};

fn thief(s: &Stealer<Task>, polls: usize) -> thread::JoinHandle<Vec<usize>> {
    let s = s.clone();
    thread::spawn(move || (0..polls).filter_map(|_| s.poll().map(run)).collect())
}

/// The second push fills the 2-slot array and grows it to 4 while a thief polls twice: the
/// thief may read the old array before, during or after the move, and the new one. Each
/// task must be taken once, by the thief or by the owner's pops afterwards, with its
/// contents intact. A move that copies instead of emptying the old slot gives a task twice;
/// a publish without Release lets the thief take a moved task whose contents (and whose
/// slot's very creation) it has no right to see yet.
fn a_thief_polls_while_the_array_grows<G: GrowOps + 'static>() {
    ch04_grow::sync::model(|| {
        let (owner, stealer) = new_with::<Task, G>(2, 4);
        owner.push(task(0)).unwrap();
        let th = thief(&stealer, 2);
        owner.push(task(1)).unwrap(); // fills the array: grows to 4
        assert_eq!(owner.queue().capacity(), 4, "the second push grows the array");
        let mut mine: Vec<usize> = std::iter::from_fn(|| owner.pop().map(run)).collect();
        let theirs = th.join().unwrap();
        mine.extend(std::iter::from_fn(|| stealer.poll().map(run)));
        exactly_once(2, &[&mine, &theirs]);
    });
}

/// The thief starts before the array grows and finishes after: pushes continue into the new
/// array, and the thief, which may still hold the old one, must find them there.
fn pushes_after_growth_reach_a_thief_that_saw_the_old_array<G: GrowOps + 'static>() {
    ch04_grow::sync::model(|| {
        let (owner, stealer) = new_with::<Task, G>(2, 4);
        let th = thief(&stealer, 1);
        for id in 0..3 {
            owner.push(task(id)).unwrap(); // the second push grows the array
        }
        let theirs = th.join().unwrap();
        let mine: Vec<usize> = std::iter::from_fn(|| owner.pop().map(run)).collect();
        exactly_once(3, &[&mine, &theirs]);
    });
}

/// The owner pops its only task and pushes another at the same index while a thief polls. The
/// new task goes into the popped box (a spare, `src/spare.rs`), so a thief that read the first
/// task's pointer and paused before its CAS finds the same pointer in the same slot: its CAS
/// succeeds, and it must take the new task, the one at its index, with the contents the owner
/// wrote. Every task is still taken exactly once.
///
/// Library code, not the exercise (nothing here grows): run once, outside the exercise's list.
#[test]
fn a_thief_paused_across_a_pop_and_a_push_at_its_index() {
    ch04_grow::sync::model(|| {
        let (owner, stealer) = ch04_grow::new::<Task>(4);
        owner.push(task(0)).unwrap();
        let th = thief(&stealer, 1);
        let mut mine: Vec<usize> = owner.pop().map(run).into_iter().collect();
        owner.push(task(1)).unwrap(); // index 0 again if the pop took task 0: into its box
        mine.extend(std::iter::from_fn(|| owner.pop().map(run)));
        let theirs = th.join().unwrap();
        mine.extend(std::iter::from_fn(|| stealer.poll().map(run)));
        exactly_once(2, &[&mine, &theirs]);
    });
}

/// The owner's push reckons its room from the last `base` it read (`base_seen`), and reads
/// `base` again when that shows none. Here the array is at its largest (2 slots: no growth)
/// and full, and a thief takes the oldest task while the owner pushes a third: the push reads
/// `base` again and either sees the thief's take (index 2 goes into the slot of index 0) or
/// does not (no room: the task comes back in `Full`). Each task is taken exactly once, with the
/// contents the owner wrote, whichever it saw. A push that went on without that second look
/// would write over a task the thief has not taken yet (the library mutant
/// `push_skips_the_second_look`).
///
/// Library code, not the exercise (nothing here grows): run once, outside the exercise's list.
#[test]
fn a_push_into_the_slot_a_thief_just_emptied() {
    ch04_grow::sync::model(|| {
        let (owner, stealer) = new_with::<Task, ch04_grow::Reference>(2, 2);
        owner.push(task(0)).unwrap();
        owner.push(task(1)).unwrap(); // full; 2 is the largest capacity
        let th = thief(&stealer, 1);
        let mut mine: Vec<usize> = match owner.push(task(2)) {
            Ok(()) => Vec::new(),
            Err(full) => vec![run(full.into_task())], // no room seen: handed back, run here
        };
        let theirs = th.join().unwrap();
        mine.extend(std::iter::from_fn(|| owner.pop().map(run)));
        exactly_once(3, &[&mine, &theirs]);
    });
}

seam::tests!(
    ch04_grow;
    a_thief_polls_while_the_array_grows,
    pushes_after_growth_reach_a_thief_that_saw_the_old_array,
);
