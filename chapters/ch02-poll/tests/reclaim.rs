//! Tests of `reclaim`: a taken task's box is not reused while a thread pinned before its batch
//! was sealed may still hold it, and is reused after. A test binary of its own, so that no
//! other test's thread holds a pin meanwhile; and its tests take turns (`SERIAL`), since one of
//! them holds a pin on purpose.
#![cfg(not(loom))]

use std::collections::HashSet;
use std::sync::{Mutex, mpsc};
use std::thread;

use ch02_poll::reclaim::{BATCH, boxed, pin, take_own};

/// Held by each test for its whole run.
static SERIAL: Mutex<()> = Mutex::new(());

/// Pushes and takes `n` tasks on this thread, one at a time, and returns the box addresses used.
fn cycle(n: usize) -> Vec<usize> {
    (0..n)
        .map(|i| {
            let p = boxed(i as u64);
            // SAFETY: `p` came from `boxed` and no slot or thread ever saw it.
            assert_eq!(unsafe { take_own(p) }, Some(i as u64));
            p as usize
        })
        .collect()
}

/// The first batch is not even sealed before its last take: none of its boxes may come back
/// before that. (Handing a box straight back for reuse fails this: tried. So does freeing it at
/// once, since `malloc` returns the chunk just freed.)
#[test]
fn a_taken_box_is_not_reused_within_its_batch() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    std::thread::spawn(|| {
        let seen = cycle(BATCH - 1);
        let distinct: HashSet<_> = seen.iter().collect();
        assert_eq!(distinct.len(), seen.len(), "a box was reused before its batch was sealed");
    })
    .join()
    .expect("the test thread");
}

/// Once their pins have cleared, boxes are reused: twenty batches of push and take go through
/// a few batches' worth of boxes, not twenty. (Keeping every taken box fails this: tried.
/// Freeing them instead passes, since `malloc` hands the same chunks back: slower, not wrong.)
#[test]
fn boxes_are_reused_once_their_pins_have_cleared() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    std::thread::spawn(|| {
        let seen = cycle(20 * BATCH);
        let distinct: HashSet<_> = seen.iter().collect();
        assert!(
            distinct.len() <= 8 * BATCH,
            "{} distinct boxes for {} pushes: taken boxes are not being reused",
            distinct.len(),
            seen.len()
        );
    })
    .join()
    .expect("the test thread");
}

/// A thread that stays pinned holds back every batch sealed meanwhile: twenty batches, all
/// new boxes. Once it unpins, those boxes come back. (Sealing without looking at the pins fails
/// the first half: tried.)
#[test]
fn a_pinned_thread_holds_back_the_batches_sealed_meanwhile() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (pinned_tx, pinned_rx) = mpsc::channel();
    let (unpin_tx, unpin_rx) = mpsc::channel::<()>();
    let thief = thread::spawn(move || {
        let pin = pin();
        pinned_tx.send(()).expect("the test waits for the pin");
        let _ = unpin_rx.recv();
        drop(pin);
    });
    pinned_rx.recv().expect("the thief pins");
    thread::spawn(move || {
        let held = cycle(20 * BATCH);
        let distinct: HashSet<_> = held.iter().copied().collect();
        assert_eq!(distinct.len(), held.len(), "a box was reused while a thread was pinned");
        unpin_tx.send(()).expect("the thief waits");
        thief.join().expect("the thief");
        let after = cycle(20 * BATCH);
        let back = after.iter().filter(|p| distinct.contains(p)).count();
        assert!(back > 0, "no box came back after the pinned thread unpinned");
    })
    .join()
    .expect("the test thread");
}
