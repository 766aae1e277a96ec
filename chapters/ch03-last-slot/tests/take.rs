//! Behaviour and stress tests (not under loom) of the owner's take, run against the reference
//! (`reference::`) and, with the grader's `--features exercise`, the reader's (`exercise::`).
#![cfg(not(loom))]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use ch03_last_slot::{Owner, Stealer, TakeOps, WorkQueue, new_with};
use seam::Job;

/// What a thief does between its CAS and its base update, frozen: empties the slot at `base`
/// and hands back the task and the index it took, leaving `base` where it was.
fn thief_wins_slot_and_pauses<T>(q: &WorkQueue<T>) -> (T, i32) {
    let b = q.base.load(Ordering::Relaxed);
    let p = q.slot(b).swap(std::ptr::null_mut(), Ordering::SeqCst);
    let pin = reclaim::pin();
    // SAFETY: we just took this pointer out of its slot, as a thief's CAS would.
    (unsafe { reclaim::take_keeping_box(p, &pin) }.expect("a task at base"), b)
}

/// The paused thief's last step, as `poll` does it: a store of the index it took plus one,
/// whatever `base` holds by then (only the taker of index `b` moves `base` off it).
fn thief_finishes<T>(q: &WorkQueue<T>, b: i32) {
    q.base.store(b.wrapping_add(1), Ordering::SeqCst);
}

/// `base` and `top`, for the assertions.
fn indices<T>(q: &WorkQueue<T>) -> (i32, i32) {
    (q.base.load(Ordering::SeqCst), q.top.load(Ordering::SeqCst))
}

/// An empty queue whose indices start at `start` (a test near the wrap of `i32`).
fn starting_at<T, O: TakeOps>(owner: &Owner<T, O>, start: i32) {
    let q = owner.queue();
    assert_eq!(indices(q), (0, 0), "only a new, empty queue may be moved");
    q.base.store(start, Ordering::SeqCst);
    q.top.store(start, Ordering::SeqCst);
}

/// Where the index tests start: at 0, and so that the indices wrap past `i32::MAX`.
const STARTS: [i32; 2] = [0, i32::MAX - 2];

fn lifo_and_fifo_orders<O: TakeOps>() {
    for start in STARTS {
        let (owner, _s) = new_with::<u32, O>(8);
        starting_at(&owner, start);
        for i in 0..5 {
            owner.push(i).unwrap();
        }
        let got = [
            owner.pop(),
            owner.poll_fifo(),
            owner.pop(),
            owner.poll_fifo(),
            owner.poll_fifo(),
            owner.pop(),
        ];
        assert_eq!(
            got,
            [Some(4), Some(0), Some(3), Some(1), Some(2), None],
            "indices from {start}: top - base compares with wrapping arithmetic, as the JDK's int \
             subtraction does"
        );
    }
}

fn fifo_takes_the_last_task_at_top<O: TakeOps>() {
    // With one task left, the FIFO take must behave like the LIFO one: move top, not base.
    let (owner, _s) = new_with::<u32, O>(8);
    for i in 0..3 {
        owner.push(i).unwrap();
    }
    assert_eq!((owner.poll_fifo(), owner.poll_fifo()), (Some(0), Some(1)));
    let q = owner.queue();
    assert_eq!((q.base.load(Ordering::Relaxed), q.top.load(Ordering::Relaxed)), (2, 3));
    assert_eq!(owner.poll_fifo(), Some(2));
    assert_eq!(
        (q.base.load(Ordering::Relaxed), q.top.load(Ordering::Relaxed)),
        (2, 2),
        "the last task is taken from top - 1: top moves back, base stays"
    );
}

fn the_owner_never_waits_for_a_paused_thief_on_the_last_task<O: TakeOps + 'static>() {
    // A thief has won the only task and is paused before moving base (descheduled, say).
    // The queue is empty; the owner's FIFO take must say so at once instead of waiting.
    for fifo in [false, true] {
        let (owner, stealer) = new_with::<u32, O>(8);
        owner.push(7).unwrap();
        let (task, b) = thief_wins_slot_and_pauses(stealer.queue());
        assert_eq!(task, 7);
        let (tx, rx) = mpsc::channel();
        let waiter = std::thread::spawn(move || tx.send(owner.next_local_task(fifo)).unwrap());
        let answer = rx.recv_timeout(Duration::from_secs(2));
        thief_finishes(stealer.queue(), b); // let a waiting owner go, so the thread ends either way
        waiter.join().unwrap();
        let answer = answer.unwrap_or_else(|_| {
            panic!("fifo={fifo}: the owner waited for a paused thief although the queue held no task for it")
        });
        assert_eq!(answer, None, "fifo={fifo}: the thief has the only task");
    }
}

/// The contract "null only when the queue is empty or a thief won the last task", in FIFO mode:
/// a thief has emptied the slot at `base` and not yet moved `base`, and one or two tasks remain
/// above it. The owner's FIFO take must wait for `base` to move and take the next task;
/// reporting "empty" loses sight of them (the mutant `fifo_gives_up_on_a_taken_base`). Three
/// more clauses, checked on the indices once the thief has stored its `b + 1`:
/// - only the taker of an index moves `base` off it: an owner that moves `base` past the
///   thief's slot itself is undone by the thief's late store, which then moves `base` back;
/// - with one task left after the wait, the take is the last-slot branch (`top` moves back,
///   `base` stays), decided again on every turn of the loop, not once on entry;
/// - all of it with the indices wrapping past `i32::MAX`.
fn the_fifo_take_waits_out_a_paused_thief_when_tasks_remain<O: TakeOps + 'static>() {
    for (start, tasks) in STARTS.into_iter().flat_map(|s| [(s, 3), (s, 2)]) {
        let (owner, stealer) = new_with::<u32, O>(8);
        starting_at(&owner, start);
        for i in 0..tasks {
            owner.push(i).unwrap();
        }
        let (task, b) = thief_wins_slot_and_pauses(stealer.queue());
        assert_eq!(task, 0);
        let (tx, rx) = mpsc::channel();
        let (started, starting) = mpsc::channel();
        let waiter = std::thread::spawn(move || {
            started.send(()).unwrap();
            let got = owner.poll_fifo();
            tx.send(got).unwrap();
            owner
        });
        // The owner is about to take while the thief is still paused (its thread may start
        // late on a loaded machine); the thief stays paused a while longer.
        starting.recv().unwrap();
        std::thread::sleep(Duration::from_millis(50));
        thief_finishes(stealer.queue(), b);
        let answer = rx.recv_timeout(Duration::from_secs(5));
        let owner = waiter.join().unwrap();
        let answer = answer.expect("the FIFO take did not return after the thief moved base");
        assert_eq!(
            answer,
            Some(1),
            "the owner's FIFO take reported {answer:?} while tasks 1 to {} were in the queue: a \
             slot at base emptied by a thief that has not moved base yet means 'wait for base', \
             not 'empty' (null only when the queue is empty or a thief won the last task)",
            tasks - 1
        );
        let s = |i: u32| start.wrapping_add(i as i32);
        let (want, why) = if tasks == 3 {
            ((s(2), s(3)), "task 2 left: base past the two taken, top where the pushes left it")
        } else {
            ((s(1), s(1)), "the last task, met after the wait, is taken at top - 1: top moves back")
        };
        assert_eq!(indices(owner.queue()), want, "{tasks} tasks from index {start}: {why}");
    }
}

fn a_lost_last_task_leaves_base_and_top_in_step<O: TakeOps + 'static>() {
    // The owner loses the last task to a thief; after the thief finishes, one more push and
    // take must work: base and top still describe the queue.
    for fifo in [false, true] {
        let (owner, stealer): (Owner<u32, O>, Stealer<u32>) = new_with(8);
        owner.push(1).unwrap();
        let (_stolen, b) = thief_wins_slot_and_pauses(stealer.queue());
        let taker = std::thread::spawn(move || {
            let got = owner.next_local_task(fifo);
            (owner, got)
        });
        std::thread::sleep(Duration::from_millis(20));
        thief_finishes(stealer.queue(), b);
        let (owner, _) = taker.join().unwrap();
        let q = owner.queue();
        let (b, t) = (q.base.load(Ordering::Relaxed), q.top.load(Ordering::Relaxed));
        assert!(
            t.wrapping_sub(b) == 0,
            "fifo={fifo}: empty queue must have base == top, got base={b} top={t}"
        );
        owner.push(2).unwrap();
        assert_eq!(
            owner.next_local_task(fifo).or_else(|| stealer.poll()),
            Some(2),
            "fifo={fifo}: the next task is reachable"
        );
    }
}

/// A million tasks, a FIFO owner (switching to LIFO now and then) against a thief per core.
fn a_million_tasks_exactly_once<O: TakeOps + 'static>() {
    const N: usize = 1_000_000;
    let thieves = std::thread::available_parallelism().map_or(2, |n| n.get()).max(2);
    let seen: Arc<Vec<AtomicU64>> =
        Arc::new((0..N.div_ceil(64)).map(|_| AtomicU64::new(0)).collect());
    let done = Arc::new(AtomicBool::new(false));
    let drops = Arc::new(AtomicUsize::new(0));
    let run = {
        let seen = seen.clone();
        move |job: Job| {
            let id = job.id;
            let bit = 1u64 << (id % 64);
            assert_eq!(
                seen[id / 64].fetch_or(bit, Ordering::Relaxed) & bit,
                0,
                "task {id} ran twice"
            );
        }
    };
    let (owner, stealer) = new_with::<Job, O>(128);
    let handles: Vec<_> = (0..thieves)
        .map(|_| {
            let (stealer, done, run) = (stealer.clone(), done.clone(), run.clone());
            std::thread::spawn(move || {
                loop {
                    let finished = done.load(Ordering::Acquire);
                    match stealer.poll() {
                        Some(job) => run(job),
                        None if finished => break,
                        None => std::thread::yield_now(),
                    }
                }
            })
        })
        .collect();
    for id in 0..N {
        let mut task = Job::new(id, &drops);
        while let Err(full) = owner.push(task) {
            task = full.into_task();
            owner.poll_fifo().map(&run);
        }
        if id % 3 == 0 {
            owner.next_local_task(id % 2 == 0).map(&run);
        }
    }
    while let Some(job) = owner.poll_fifo() {
        run(job);
    }
    done.store(true, Ordering::Release);
    handles.into_iter().for_each(|h| h.join().expect("a thief panicked"));
    let ran: u32 = seen.iter().map(|w| w.load(Ordering::Relaxed).count_ones()).sum();
    assert_eq!(ran as usize, N, "some task never ran");
    drop((owner, stealer));
    assert_eq!(drops.load(Ordering::Relaxed), N, "each task dropped exactly once, none leaked");
}

seam::tests!(
    ch03_last_slot;
    lifo_and_fifo_orders,
    fifo_takes_the_last_task_at_top,
    the_owner_never_waits_for_a_paused_thief_on_the_last_task,
    the_fifo_take_waits_out_a_paused_thief_when_tasks_remain,
    a_lost_last_task_leaves_base_and_top_in_step,
    a_million_tasks_exactly_once,
);
