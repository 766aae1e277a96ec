//! Tests of `reclaim`: a taken task's box is not reused before its epoch has passed, and is
//! reused after. A test binary of its own, so that no other test's thread holds a pin meanwhile.
#![cfg(not(loom))]

use std::collections::HashSet;

use ch02_poll::reclaim::{BATCH, boxed, take_own};

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
    std::thread::spawn(|| {
        let seen = cycle(BATCH - 1);
        let distinct: HashSet<_> = seen.iter().collect();
        assert_eq!(distinct.len(), seen.len(), "a box was reused before its batch was sealed");
    })
    .join()
    .expect("the test thread");
}

/// Once their epoch has passed, boxes are reused: twenty batches of push and take go through
/// a few batches' worth of boxes, not twenty. (Keeping every taken box fails this: tried.
/// Freeing them instead passes, since `malloc` hands the same chunks back: slower, not wrong.)
#[test]
fn boxes_are_reused_once_their_epoch_has_passed() {
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
