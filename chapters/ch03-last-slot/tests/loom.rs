//! Loom models of the owner's take racing a thief's poll, LIFO and FIFO, on a 4-slot queue
//! (`LOOM_MAX_PREEMPTIONS=3`). Every task must be taken exactly once, with its contents visible.
#![cfg(loom)]

use ch03_last_slot::{TakeOps, new_with};
use loom::thread;
use seam::model::{Task, exactly_once, run, task};

/// Two tasks; the owner takes in `fifo` mode while a thief polls twice.
fn owner_takes_while_a_thief_polls<O: TakeOps + 'static>(fifo: bool) {
    ch03_last_slot::sync::model(move || {
        let (owner, stealer) = new_with::<Task, O>(4);
        owner.push(task(0)).unwrap();
        owner.push(task(1)).unwrap();
        let th = thread::spawn(move || {
            (0..2).filter_map(|_| stealer.poll().map(run)).collect::<Vec<_>>()
        });
        let mine: Vec<usize> =
            std::iter::from_fn(|| owner.next_local_task(fifo).map(run)).collect();
        let theirs = th.join().unwrap();
        exactly_once(2, &[&mine, &theirs]);
    });
}

/// One task raced for by the owner and a thief; then the owner pushes again and drains:
/// whoever won, base and top must agree afterwards.
fn the_last_task_race_leaves_a_working_queue<O: TakeOps + 'static>(fifo: bool) {
    ch03_last_slot::sync::model(move || {
        let (owner, stealer) = new_with::<Task, O>(4);
        owner.push(task(0)).unwrap();
        let s = stealer.clone();
        let th = thread::spawn(move || s.poll().map(run).into_iter().collect::<Vec<_>>());
        let mut mine: Vec<usize> = owner.next_local_task(fifo).map(run).into_iter().collect();
        let theirs = th.join().unwrap();
        owner.push(task(1)).unwrap();
        mine.extend(std::iter::from_fn(|| owner.next_local_task(fifo).map(run)));
        mine.extend(std::iter::from_fn(|| stealer.poll().map(run)));
        exactly_once(2, &[&mine, &theirs]);
    });
}

/// Two tasks; the owner takes newest-first (LIFO) while a thief polls twice.
fn lifo_owner_takes_while_a_thief_polls<O: TakeOps + 'static>() {
    owner_takes_while_a_thief_polls::<O>(false);
}

/// Two tasks; the owner takes oldest-first (FIFO) while a thief polls twice.
fn fifo_owner_takes_while_a_thief_polls<O: TakeOps + 'static>() {
    owner_takes_while_a_thief_polls::<O>(true);
}

/// One task raced for by a LIFO owner and a thief; base and top must agree afterwards.
fn lifo_last_task_race_leaves_a_working_queue<O: TakeOps + 'static>() {
    the_last_task_race_leaves_a_working_queue::<O>(false);
}

/// One task raced for by a FIFO owner and a thief; base and top must agree afterwards.
fn fifo_last_task_race_leaves_a_working_queue<O: TakeOps + 'static>() {
    the_last_task_race_leaves_a_working_queue::<O>(true);
}

seam::tests!(
    ch03_last_slot;
    lifo_owner_takes_while_a_thief_polls,
    fifo_owner_takes_while_a_thief_polls,
    lifo_last_task_race_leaves_a_working_queue,
    fifo_last_task_race_leaves_a_working_queue,
);
