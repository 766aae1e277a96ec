//! Tests of the workers' scan (`scan.rs`): a stalled queue is passed over, not waited on.
#![cfg(not(loom))]

use std::sync::atomic::Ordering::SeqCst;
use std::sync::{Arc, mpsc};
use std::time::Duration;

use ch05_phase::Queues;
use ch06_nsteals::push_job;
use ch07_pool::scan::{Polled, scan, try_poll};
use reclaim::take_own;

/// Three worker queues (indices 1, 3, 5). Queue 1 holds tasks 10 and 11, and is *stalled*: the
/// slot at `base` has been emptied as a thief's CAS does, and `base` not moved yet, as if that
/// thief had been descheduled between its two stores. Returns the queues and the stalled base.
fn stalled_queues() -> (Arc<Queues<u64>>, i32) {
    let queues = Arc::new(Queues::new(8, 3, 0));
    push_job(&queues, Some(1), 10).expect("room");
    push_job(&queues, Some(1), 11).expect("room");
    let q = queues.get(1).expect("worker queue 1").work();
    let b = q.base.load(SeqCst);
    let taken = q.array().at(b).swap(std::ptr::null_mut(), SeqCst);
    // SAFETY: the swap emptied the slot, so this thread alone holds the task.
    assert_eq!(unsafe { take_own(taken) }, Some(10), "the task at base");
    (queues, b)
}

/// Runs `f` on another thread; fails the test if it has not returned within two seconds
/// (chapter 4's `poll` would spin until the stalled thief moves `base`, which never happens).
fn within_2s<R: Send + 'static>(what: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(f()));
    rx.recv_timeout(Duration::from_secs(2))
        .unwrap_or_else(|_| panic!("{what}: still waiting on the stalled queue after 2 s"))
}

#[test]
fn try_poll_reports_a_stall_instead_of_waiting() {
    let (queues, b) = stalled_queues();
    let qs = queues.clone();
    let got = within_2s("try_poll", move || taken(try_poll(qs.get(1).unwrap().work())));
    assert_eq!(got, Polled::Stalled, "a stalled queue is neither empty nor a task");
    // The stalled thief moves base: the next task is there to take.
    queues.get(1).unwrap().work().base.store(b + 1, SeqCst);
    let next = try_poll(queues.get(1).unwrap().work());
    assert_eq!(taken(next), Polled::Task(Some(11)));
}

#[test]
fn a_scan_passes_a_stalled_queue_by() {
    let (queues, _) = stalled_queues();
    push_job(&queues, Some(3), 30).expect("room");
    // From every start and stride, worker 5's scan takes queue 3's task, whichever it meets first.
    for r in [0u32, 1, 2, 3, 0x9e37_79b9, 0x0001_0000, 0xffff_ffff] {
        let qs = queues.clone();
        let got = within_2s("scan", move || scan(&qs, 5, r));
        assert_eq!(got, Polled::Task((3, 30)), "scan from r = {r:#x}");
        push_job(&queues, Some(3), 30).expect("room");
    }
    // With only the stalled queue left, the scan says so, rather than "empty".
    while let Polled::Task(_) = scan(&queues, 1, 7) {}
    let qs = queues.clone();
    assert_eq!(within_2s("scan", move || scan(&qs, 5, 7)), Polled::Stalled);
}

/// `try_poll`'s answer, with the task moved out of the pointer its CAS took.
fn taken(p: Polled<*mut u64>) -> Polled<Option<u64>> {
    match p {
        // SAFETY: the pointer came out of its slot through try_poll's CAS.
        Polled::Task(t) => Polled::Task(unsafe { take_own(t) }),
        Polled::Empty => Polled::Empty,
        Polled::Stalled => Polled::Stalled,
    }
}
