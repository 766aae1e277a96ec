//! Behaviour and stress tests (not under loom), run against the reference (`reference::`)
//! and, with the grader's `--features exercise`, against the reader's `poll` (`exercise::`).
#![cfg(not(loom))]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use ch02_poll::{PollOps, PollStats, new_with};
use seam::Job;

fn poll_takes_the_oldest<P: PollOps>() {
    let (owner, stealer) = new_with::<u32, P>(8);
    for i in 0..3 {
        owner.push(i).unwrap();
    }
    let mut stats = PollStats::default();
    let got: Vec<_> = (0..4).map(|_| stealer.poll_counted(&mut stats)).collect();
    assert_eq!(got, [Some(0), Some(1), Some(2), None], "poll is FIFO, then empty");
    assert_eq!(stats.attempts, 3, "one CAS per task when nobody competes: {stats:?}");
    assert_eq!((stats.failures, stats.empty), (0, 1), "{stats:?}");
    // Alone, nothing moves `base` under a poll and no slot is caught half-pushed: a recheck or
    // a stall counted here is a round counted that never happened.
    assert_eq!(
        (stats.rechecks, stats.stalls),
        (0, 0),
        "no competition, no push in progress: {stats:?}"
    );
    assert_eq!(owner.queue().base.load(Ordering::Relaxed), 3, "base moved past the three tasks");
}

fn owner_and_thief_take_from_opposite_ends<P: PollOps>() {
    let (owner, stealer) = new_with::<u32, P>(8);
    for i in 0..4 {
        owner.push(i).unwrap();
    }
    assert_eq!(
        (stealer.poll(), owner.pop(), stealer.poll(), owner.pop()),
        (Some(0), Some(3), Some(1), Some(2))
    );
    assert_eq!((stealer.poll(), owner.pop()), (None, None));
}

fn empty_poll_changes_nothing<P: PollOps>() {
    let (owner, stealer) = new_with::<u32, P>(4);
    assert_eq!(stealer.poll(), None);
    owner.push(7).unwrap();
    assert_eq!(owner.pop(), Some(7));
    assert_eq!(stealer.poll(), None);
    let q = owner.queue();
    assert_eq!((q.base.load(Ordering::Relaxed), q.top.load(Ordering::Relaxed)), (0, 0));
}

fn polls_around_the_ring<P: PollOps>() {
    // 100 tasks through a 4-slot queue: every slot is reused many times.
    let (owner, stealer) = new_with::<u32, P>(4);
    let mut next = 0;
    for i in 0..100 {
        owner.push(i).unwrap();
        if owner.len() == 3 {
            for _ in 0..2 {
                assert_eq!(stealer.poll(), Some(next));
                next += 1;
            }
        }
    }
    while let Some(t) = stealer.poll() {
        assert_eq!(t, next);
        next += 1;
    }
    assert_eq!(next, 100);
}

fn full_hands_the_task_back_and_drop_frees_the_rest<P: PollOps>() {
    let drops = Arc::new(AtomicUsize::new(0));
    let job = |id| Job::new(id, &drops);
    {
        let (owner, stealer) = new_with::<Job, P>(2);
        owner.push(job(0)).unwrap();
        owner.push(job(1)).unwrap();
        let back = owner.push(job(2)).expect_err("two slots hold two tasks");
        assert_eq!(back.into_task().id, 2);
        assert_eq!(
            drops.load(Ordering::Relaxed),
            1,
            "the refused task was handed back, then dropped here"
        );
        assert_eq!(stealer.poll().map(|j| j.id), Some(0));
    } // the queue drops with task 1 still in it
    assert_eq!(
        drops.load(Ordering::Relaxed),
        3,
        "every task dropped exactly once, including the one left inside"
    );
}

/// A push in progress is not "empty": with `top` moved and the slot not yet filled (the JDK's
/// order inside a push), the thief waits for the slot, counting each round it finds no progress
/// as a stall, and takes the task. Three clauses of `poll`'s contract, each broken by a mutant
/// once: "empty" on two null slots whatever `top` says (`&&` made `||`), a stall spin that goes
/// uncounted, and `top - base` compared as the JDK's `int` subtraction does, also when the push
/// in progress takes the indices past `i32::MAX` (`top_not_above_base`).
fn a_poll_waits_out_a_push_in_progress<P: PollOps + 'static>() {
    for start in [0, i32::MAX] {
        let (owner, stealer) = new_with::<u32, P>(4);
        let q = owner.queue();
        q.base.store(start, Ordering::Relaxed); // an empty queue whose indices start at `start`
        q.top.store(start.wrapping_add(1), Ordering::Relaxed); // the first half of a push, by hand
        let (started, starting) = std::sync::mpsc::channel();
        let thief = std::thread::spawn(move || {
            let mut stats = PollStats::default();
            started.send(()).unwrap();
            (stealer.poll_counted(&mut stats), stats)
        });
        // The thief is about to poll (on a loaded machine its thread may start late): give it
        // time to meet the half push.
        starting.recv().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(50));
        q.slot(start).swap(reclaim::boxed(7), Ordering::SeqCst); // the second half: the task
        let (got, stats) = thief.join().expect("the thief");
        assert_eq!(
            got,
            Some(7),
            "a poll at index {start} during a push waits for its task: {stats:?}"
        );
        assert!(stats.stalls > 0, "the rounds spent waiting count as stalls: {stats:?}");
        // Each waiting round is a stall, nothing else: the queue was never empty (`top` says one
        // task), and nobody moved `base`.
        assert_eq!(
            (stats.attempts, stats.failures, stats.rechecks, stats.empty),
            (1, 0, 0, 0),
            "one CAS, which won; no recheck, no empty result: {stats:?}"
        );
    }
}

/// A million tasks, the owner pushing and popping, thieves on every core polling: each task
/// runs exactly once (bitmap), none leaks or drops twice (drop counter), and every CAS
/// attempt is a success or a failure.
fn a_million_tasks_exactly_once<P: PollOps + 'static>() {
    const N: usize = 1_000_000;
    let thieves = std::thread::available_parallelism().map_or(2, |n| n.get()).max(2);
    let drops = Arc::new(AtomicUsize::new(0));
    let seen: Arc<Vec<AtomicU64>> =
        Arc::new((0..N.div_ceil(64)).map(|_| AtomicU64::new(0)).collect());
    let done = Arc::new(AtomicBool::new(false));
    let run = {
        let seen = seen.clone();
        move |job: Job| {
            let bit = 1u64 << (job.id % 64);
            let before = seen[job.id / 64].fetch_or(bit, Ordering::Relaxed);
            assert_eq!(before & bit, 0, "task {} ran twice", job.id);
        }
    };
    let (owner, stealer) = new_with::<Job, P>(256);
    let handles: Vec<_> = (0..thieves)
        .map(|_| {
            let (stealer, done, run) = (stealer.clone(), done.clone(), run.clone());
            std::thread::spawn(move || {
                let (mut stats, mut got) = (PollStats::default(), 0u64);
                loop {
                    let finished = done.load(Ordering::Acquire);
                    match stealer.poll_counted(&mut stats) {
                        Some(job) => {
                            got += 1;
                            run(job);
                        }
                        None if finished => break,
                        None => std::thread::yield_now(),
                    }
                }
                (stats, got)
            })
        })
        .collect();
    for id in 0..N {
        let mut job = Job::new(id, &drops);
        while let Err(full) = owner.push(job) {
            job = full.into_task();
            if let Some(mine) = owner.pop() {
                run(mine);
            }
        }
        if id % 7 == 0
            && let Some(mine) = owner.pop()
        {
            run(mine);
        }
    }
    while let Some(mine) = owner.pop() {
        run(mine);
    }
    done.store(true, Ordering::Release);
    for h in handles {
        let (stats, got) = h.join().expect("a thief panicked");
        assert_eq!(
            stats.attempts,
            got + stats.failures,
            "attempts = successes + failures: {stats:?}"
        );
    }
    assert!(
        seen.iter().enumerate().all(|(i, w)| {
            let want = if (i + 1) * 64 <= N { u64::MAX } else { (1u64 << (N % 64)) - 1 };
            w.load(Ordering::Relaxed) == want
        }),
        "some task never ran"
    );
    drop(owner);
    drop(stealer);
    assert_eq!(drops.load(Ordering::Relaxed), N, "each task dropped exactly once");
}

seam::tests!(
    ch02_poll;
    poll_takes_the_oldest,
    owner_and_thief_take_from_opposite_ends,
    empty_poll_changes_nothing,
    polls_around_the_ring,
    full_hands_the_task_back_and_drop_frees_the_rest,
    a_poll_waits_out_a_push_in_progress,
    a_million_tasks_exactly_once,
);
