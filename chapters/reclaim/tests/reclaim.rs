//! Tests of `reclaim`: a taken task's box is not reused while a thread pinned before its batch
//! was sealed may still hold it, and is reused after. A test binary of its own, so that no
//! other test's thread holds a pin meanwhile; and its tests take turns (`SERIAL`), since one of
//! them holds a pin on purpose.
#![cfg(not(loom))]

use std::collections::HashSet;
use std::sync::{Arc, Mutex, mpsc};
use std::thread;

use reclaim::{
    BATCH, BoundHome, BoxCounts, HOME_SEAL, Home, SEND_EVERY, boxed, home, note_reused, pin,
    send_pending, take_own, take_sending_box_home,
};

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

/// Once the thread that pushed has exited, the counts are exact: each `boxed` call is one box
/// reused or allocated, and each `note_reused` one more reuse. (`SERIAL` keeps the other tests'
/// threads from adding to the totals meanwhile.)
#[test]
fn every_box_handed_out_is_counted_once() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (pushes, noted) = (20 * BATCH + 7, 5);
    let before = BoxCounts::now();
    std::thread::spawn(move || {
        cycle(pushes);
        (0..noted).for_each(|_| note_reused());
    })
    .join()
    .expect("the test thread");
    let counts = BoxCounts::now().since(before);
    assert_eq!(counts.reused + counts.allocated, (pushes + noted) as u64, "{counts:?}");
    assert!(counts.allocated <= 8 * BATCH as u64, "most boxes are recycled: {counts:?}");
}

/// Boxes that came home from a thief, in blocks, are counted once each when their pusher hands
/// them out again. (Making a block ready without adding to the count of boxes entered fails
/// this: the mutant `block_not_counted`.)
#[test]
fn every_box_that_came_home_is_counted_once() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let before = BoxCounts::now();
    steal_beside(HOME_SEAL, send_pending, |_| {
        for p in push_only(HOME_SEAL) {
            // SAFETY: made by `boxed` just above; no slot or other thread ever saw it.
            unsafe { take_own(p as *mut u64) };
        }
    });
    let counts = BoxCounts::now().since(before);
    assert_eq!(counts.reused + counts.allocated, 2 * HOME_SEAL as u64, "{counts:?}");
    let back = HOME_SEAL as u64;
    assert!(counts.reused >= back, "the boxes that came home went out again: {counts:?}");
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

/// A thread that pins and stays pinned until the sender returned sends (or is dropped); returns
/// once the pin is held.
fn hold_a_pin() -> (mpsc::Sender<()>, thread::JoinHandle<()>) {
    let (pinned_tx, pinned_rx) = mpsc::channel();
    let (unpin_tx, unpin_rx) = mpsc::channel::<()>();
    let holder = thread::spawn(move || {
        let pin = pin();
        pinned_tx.send(()).expect("the test waits for the pin");
        let _ = unpin_rx.recv();
        drop(pin);
    });
    pinned_rx.recv().expect("the holder pins");
    (unpin_tx, holder)
}

/// A thread that stays pinned holds back every batch sealed meanwhile: twenty batches, all
/// new boxes. Once it unpins, the next seal makes those boxes ready, and pushes that need more
/// boxes than one batch reuse them. (Sealing without looking at the pins fails the first half:
/// tried. The ready boxes are a stack, so a cycle of push and take after the unpin would reuse
/// only the newest batch's boxes and never reach the held ones.)
#[test]
fn a_pinned_thread_holds_back_the_batches_sealed_meanwhile() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (unpin_tx, thief) = hold_a_pin();
    thread::spawn(move || {
        let held = cycle(20 * BATCH);
        let distinct: HashSet<_> = held.iter().copied().collect();
        assert_eq!(distinct.len(), held.len(), "a box was reused while a thread was pinned");
        unpin_tx.send(()).expect("the thief waits");
        thief.join().expect("the thief");
        let _ = cycle(BATCH); // its last take seals: the held batches' pins have cleared
        let after = push_only(20 * BATCH);
        let back = after.iter().filter(|p| distinct.contains(p)).count();
        assert!(back > 0, "no box came back after the pinned thread unpinned");
        for p in after {
            // SAFETY: from `boxed` on this thread; no one else saw it.
            unsafe { take_own(p as *mut u64) };
        }
    })
    .join()
    .expect("the test thread");
}

/// Pushes `n` tasks on this thread without taking them: the box addresses, for a thief.
fn push_only(n: usize) -> Vec<usize> {
    (0..n).map(|i| boxed(i as u64) as usize).collect()
}

/// Pushes `n` tasks on a thread of its own while a thief beside it steals every one
/// (`take_sending_box_home`, to the pusher's home) and then calls `then`; once all are stolen, the pusher
/// runs `look` on the box addresses, the thief still alive (so its boxes cannot come back
/// through the allocator).
fn steal_beside(n: usize, then: fn(), look: impl FnOnce(&[usize]) + Send + 'static) {
    let (boxes_tx, boxes_rx) = mpsc::channel::<(Vec<usize>, Arc<Home>)>();
    let (stolen_tx, stolen_rx) = mpsc::channel::<()>();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let thief = thread::spawn(move || {
        let (pushed, home) = boxes_rx.recv().expect("the pusher's boxes");
        let home = BoundHome::bound_to(Some(home)); // as the pusher's queue holds it
        for (i, p) in pushed.iter().enumerate() {
            // SAFETY: made by `boxed` on the pusher's thread, whose `home` this is, and handed
            // to this thread alone (as a CAS would).
            let task = unsafe { take_sending_box_home(*p as *mut u64, &home) };
            assert_eq!(task, Some(i as u64));
        }
        then();
        stolen_tx.send(()).expect("the pusher waits");
        let _ = done_rx.recv(); // alive until the pusher has looked
    });
    thread::spawn(move || {
        let pushed = push_only(n);
        boxes_tx.send((pushed.clone(), home())).expect("the thief waits");
        stolen_rx.recv().expect("the thief steals them all");
        look(&pushed);
        done_tx.send(()).expect("the thief waits");
    })
    .join()
    .expect("the pusher");
    thief.join().expect("the thief");
}

/// A thief hands the boxes it steals back to their pusher: a pusher whose every task was stolen
/// (it never takes, so it never seals on its own) gets them back once `HOME_SEAL` of them have
/// come home, and pushes into them. (A thief that keeps them, as `take_keeping_box` does, fails
/// this: tried.)
#[test]
fn stolen_boxes_go_back_to_their_pusher() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    steal_beside(
        3 * HOME_SEAL,
        || {},
        |pushed| {
            let again = push_only(3 * HOME_SEAL);
            let pushed: HashSet<_> = pushed.iter().collect();
            let back = again.iter().filter(|p| pushed.contains(p)).count();
            assert!(back >= HOME_SEAL, "{back} of the pusher's stolen boxes came back to it");
            for p in again {
                // SAFETY: from `boxed` on this thread; no one else saw it.
                unsafe { take_own(p as *mut u64) };
            }
        },
    );
}

/// A pusher whose boxes come home seals for them only once `HOME_SEAL` wait: with one box fewer
/// home, its next push takes a new box from the allocator. Each seal may interrupt every running
/// thread of the process (`barrier.rs`), so it waits for that many. (Sealing once a batch's worth
/// is home, as it did before, fails this: the mutant `home_seals_every_batch`.)
#[test]
fn a_pusher_seals_for_what_came_home_only_once_home_seal_wait() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    steal_beside(HOME_SEAL - 1, send_pending, |pushed| {
        let pushed: HashSet<_> = pushed.iter().copied().collect();
        let p = boxed(0u64);
        assert!(!pushed.contains(&(p as usize)), "a push sealed before HOME_SEAL boxes came home");
        // SAFETY: from `boxed` on this thread; no one else saw it.
        unsafe { take_own(p) };
    });
}

/// A thief about to wait sends home what its outbox holds (`send_pending`), however few: fewer
/// boxes than an outbox sends at once, stolen and sent so, come back into their pusher's pushes
/// while the thief is still alive. (A `send_pending` that does nothing fails this: the boxes
/// would wait in the outbox until the thief steals more or exits.)
#[test]
fn a_thief_about_to_wait_sends_its_boxes_home() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    steal_beside(SEND_EVERY / 2, send_pending, |pushed| {
        // Its own takes seal batches, and each seal collects what came home.
        let later: HashSet<_> = cycle(20 * BATCH).into_iter().collect();
        let back = pushed.iter().filter(|p| later.contains(p)).count();
        assert!(back > 0, "none of the {} boxes the thief sent home came back", pushed.len());
    });
}

/// A box stolen after its pusher has exited stays with the thief (its home is closed): the
/// task comes out whole, and the thief reuses the box. (Dropping it instead fails this:
/// nothing comes back.)
#[test]
fn a_box_whose_pusher_has_exited_stays_with_the_thief() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (pushed, home) = thread::spawn(|| (push_only(BATCH), home())).join().expect("the pusher");
    let home = BoundHome::bound_to(Some(home)); // as the pusher's queue holds it
    thread::spawn(move || {
        for (i, p) in pushed.iter().enumerate() {
            // SAFETY: made by `boxed` on the pusher's thread, whose `home` this is; handed to
            // this thread alone.
            let task = unsafe { take_sending_box_home(*p as *mut u64, &home) };
            assert_eq!(task, Some(i as u64));
        }
        let later: HashSet<_> = cycle(20 * BATCH).into_iter().collect();
        let back = pushed.iter().filter(|p| later.contains(p)).count();
        assert!(back > 0, "none of the boxes kept by the thief was reused");
    })
    .join()
    .expect("the thief");
}

/// A batch that a pin held back at its seal comes back at its pusher's next push once that pin
/// has cleared, though nothing more comes home to seal. (Looking at the held batches again only
/// at the next seal fails this: the pusher then asked the allocator for every push: tried.)
#[test]
fn a_held_batch_comes_back_at_the_next_push_once_its_pin_clears() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (unpin_tx, holder) = hold_a_pin();
    steal_beside(HOME_SEAL, send_pending, move |pushed| {
        let pushed: HashSet<_> = pushed.iter().copied().collect();
        // `HOME_SEAL` boxes have come home: this push seals them, noting the holder's pin.
        let during = boxed(0u64);
        assert!(!pushed.contains(&(during as usize)), "a box came back while its pin was held");
        unpin_tx.send(()).expect("the holder waits");
        holder.join().expect("the holder");
        let after = boxed(1u64);
        assert!(
            pushed.contains(&(after as usize)),
            "the pin cleared, yet the next push asked the allocator for a new box"
        );
        for p in [during, after] {
            // SAFETY: from `boxed` on this thread; no one else saw it.
            unsafe { take_own(p) };
        }
    });
}
