//! The vectors that stolen boxes travel home in (`outbox.rs`): a home gives each one back,
//! emptied, for its thieves' next sends, so that a thief and its home stop calling the
//! allocator for them. A test binary of its own, for its allocator (`counting/`) counts what
//! the thief's thread asks of the allocator.

#![cfg(not(loom))]

mod counting;
use counting::{counting, counts};

use std::sync::{Arc, mpsc};
use std::thread;

use reclaim::{
    BATCH, BoundHome, Home, SEND_EVERY, boxed, home, send_pending, take_own, take_sending_box_home,
};

/// Two rounds: the pusher pushes four blocks' worth of tasks, a thief steals them all and
/// sends the boxes home, and the pusher's next seal takes them in. In the first round the thief
/// allocates the vectors; in the second it sends in the ones the first round's seal gave back,
/// and allocates nothing. (A home that frees the emptied vectors fails this: tried, with the
/// mutant `empties_never_kept`.)
#[test]
fn a_thief_sends_boxes_home_in_vectors_its_home_gave_back() {
    let (to_thief, pushed_rx) = mpsc::channel::<(Vec<usize>, Arc<Home>)>();
    let (to_pusher, allocs_rx) = mpsc::channel::<usize>();
    let thief = thread::spawn(move || {
        while let Ok((pushed, home)) = pushed_rx.recv() {
            let home = BoundHome::bound_to(Some(home)); // as the pusher's queue holds it
            counting(true);
            let before = counts().0;
            for (i, p) in pushed.iter().enumerate() {
                // SAFETY: made by `boxed` on the pusher's thread, whose `home` this is, and
                // handed to this thread alone (as a CAS would).
                let task = unsafe { take_sending_box_home(*p as *mut u64, &home) };
                assert_eq!(task, Some(i as u64));
            }
            send_pending();
            let allocs = counts().0 - before;
            counting(false);
            to_pusher.send(allocs).expect("the pusher waits");
        }
    });
    thread::spawn(move || {
        for round in 0..2 {
            let pushed = (0..4 * SEND_EVERY).map(|i| boxed(i as u64) as usize).collect();
            to_thief.send((pushed, home())).expect("the thief waits");
            let allocs = allocs_rx.recv().expect("the thief steals them all");
            if round == 0 {
                assert!(allocs > 0, "the first blocks need vectors: is the allocator counting?");
            } else {
                assert_eq!(allocs, 0, "the thief allocated though its home had vectors to give");
            }
            // BATCH takes of its own: the last one seals, and the seal takes the blocks in.
            for i in 0..BATCH {
                // SAFETY: from `boxed` on this thread; no one else saw it.
                assert_eq!(unsafe { take_own(boxed(i as u64)) }, Some(i as u64));
            }
        }
    })
    .join()
    .expect("the pusher");
    thief.join().expect("the thief");
}
