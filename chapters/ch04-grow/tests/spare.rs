//! The owner's spare boxes (`src/spare.rs`): a pop's box goes to the next push at its index,
//! and to no other.
#![cfg(not(loom))]

use ch04_grow::WorkQueue;
use ch04_grow::sync::Ordering::Relaxed;

/// The box in the slot of `index` (null if empty).
fn slot(q: &WorkQueue<u64>, index: i32) -> *mut u64 {
    q.array().at(index).load(Relaxed) // Relaxed: one thread here
}

#[test]
fn a_pop_leaves_its_box_to_the_next_push_at_its_index() {
    let (owner, _stealer) = ch04_grow::new::<u64>(8);
    let q = owner.queue();
    owner.push(1).unwrap();
    owner.push(2).unwrap();
    let (b0, b1) = (slot(q, 0), slot(q, 1));
    assert_eq!((owner.pop(), owner.pop()), (Some(2), Some(1)));
    owner.push(3).unwrap();
    owner.push(4).unwrap();
    assert_eq!((slot(q, 0), slot(q, 1)), (b0, b1), "each push took the box of its index");
    assert_eq!((owner.pop(), owner.pop()), (Some(4), Some(3)), "with its own task");
}

#[test]
fn a_stolen_box_is_no_spare() {
    let (owner, stealer) = ch04_grow::new::<u64>(8);
    let q = owner.queue();
    owner.push(1).unwrap();
    let b0 = slot(q, 0);
    assert_eq!(stealer.poll(), Some(1));
    owner.push(2).unwrap(); // index 1
    owner.push(3).unwrap(); // index 2
    assert!(slot(q, 1) != b0 && slot(q, 2) != b0, "a thief's box waits for the pins");
}
