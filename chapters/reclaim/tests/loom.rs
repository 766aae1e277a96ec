//! Loom models of the reclamation protocol, each with a registry (and an inbox) of the model's
//! own: a box is reused only after every thread that was pinned when its batch was sealed has
//! unpinned, whether its owner took it or a thief handed it back. If a reuse could race a
//! thief's read, loom reports a causality violation on the cell.
//!
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=3 cargo test -p reclaim --release --test loom`
#![cfg(loom)]

use loom::thread;

/// Chapter 2's pins (`reclaim::pins`), with a registry of the model's own. A thief pins, reads
/// a task pointer out of a slot and reads the task behind it, and unpins. The owner empties
/// the slot with a swap, seals (notes the threads pinned now), waits until they have passed,
/// and reuses the memory: it writes a newer task into it. If the reuse could race the thief's
/// read, loom reports a causality violation on the cell. This models the protocol that the
/// queue models above skip: under loom, `reclaim::pin` marks nothing and a taken box is
/// freed at once, which is safe there only because those models never wrap a slot while a
/// thief holds its pointer.
fn a_box_is_reused_only_after_the_pins_that_saw_it(thieves: usize) {
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::sync::atomic::AtomicPtr;
    use loom::sync::atomic::Ordering::{Acquire, SeqCst};
    use reclaim::pins::Registry;

    reclaim::sync::model(move || {
        let registry = Arc::new(Registry::new());
        let task = Box::into_raw(Box::new(UnsafeCell::new(7u32)));
        let slot = Arc::new(AtomicPtr::new(task));
        let handles: Vec<_> = (0..thieves)
            .map(|_| {
                let (registry, slot) = (registry.clone(), slot.clone());
                thread::spawn(move || {
                    let me = registry.register();
                    me.enter();
                    let p = slot.load(Acquire); // as `poll` reads a slot
                    // SAFETY: a non-null pointer read while pinned is not reused before the unpin.
                    let seen = (!p.is_null()).then(|| unsafe { (*p).with(|v| *v) });
                    me.leave();
                    registry.deregister(&me);
                    seen
                })
            })
            .collect();
        let _me = registry.register(); // unpinned: `pinned_now` looks at it and must skip it
        let p = slot.swap(std::ptr::null_mut(), SeqCst); // the owner's take
        let pinned = registry.pinned_now();
        while !pinned.passed() {
            thread::yield_now();
        }
        // SAFETY: the pins noted have passed: no thief can still read the old task here.
        unsafe { (*p).with_mut(|v| *v = 8) }; // the reuse: a newer task, same memory
        for h in handles {
            let seen = h.join().unwrap();
            assert!(matches!(seen, None | Some(7)), "a thief read the newer task: {seen:?}");
        }
        // SAFETY: from Box::into_raw above; every thread that read it has been joined.
        drop(unsafe { Box::from_raw(p) });
    });
}

/// The same, for a box handed back (`reclaim::handback`): thief A pins and reads the task,
/// as above; thief B takes it with a CAS, unpins, and hands the box back to the owner's inbox
/// (`take_sending_box_home`). The owner, which never took it itself, seals with `seal_returned`, waits
/// for the pins it noted, and reuses the memory. A seal that looks at the pins before it
/// empties its inbox can miss A and race A's read: loom reports it on the cell.
fn a_box_handed_back_is_reused_only_after_the_pins_that_saw_it() {
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::sync::atomic::AtomicPtr;
    use loom::sync::atomic::Ordering::{Acquire, Relaxed, SeqCst};
    use reclaim::handback::{Inbox, seal_returned};
    use reclaim::pins::Registry;

    type Cell = UnsafeCell<u32>;
    /// A box's address, as the inbox holds it.
    struct Addr(*mut Cell);
    // SAFETY: only an address; every dereference in this model has an argument of its own.
    unsafe impl Send for Addr {}

    reclaim::sync::model(|| {
        let registry = Arc::new(Registry::new());
        let inbox = Arc::new(Inbox::<Addr>::new());
        let task = Box::into_raw(Box::new(Cell::new(7)));
        let slot = Arc::new(AtomicPtr::new(task));
        let reader = {
            let (registry, slot) = (registry.clone(), slot.clone());
            thread::spawn(move || {
                let me = registry.register();
                me.enter();
                let p = slot.load(Acquire);
                // SAFETY: a non-null pointer read while pinned is not reused before the unpin.
                let seen = (!p.is_null()).then(|| unsafe { (*p).with(|v| *v) });
                me.leave();
                seen
            })
        };
        let taker = {
            let (registry, slot, inbox) = (registry.clone(), slot.clone(), inbox.clone());
            thread::spawn(move || {
                let me = registry.register();
                me.enter();
                let p = slot.load(Acquire);
                let won = !p.is_null()
                    && slot.compare_exchange(p, std::ptr::null_mut(), SeqCst, Relaxed).is_ok();
                me.leave(); // the pin ends at the CAS, as in chapter 7's `steal`
                if won {
                    // as a thief's outbox sends its block, under one lock
                    assert!(inbox.send(Addr(p), 1).is_ok(), "the owner's inbox is open");
                }
            })
        };
        // The owner: seal until the box has come back, then wait for the pins noted with it.
        let _me = registry.register(); // unpinned: `pinned_now` looks at it and must skip it
        let mut open = Vec::new();
        let pinned = loop {
            let pinned = seal_returned(&inbox, &mut open, &registry);
            if !open.is_empty() {
                break pinned;
            }
            thread::yield_now();
        };
        while !pinned.passed() {
            thread::yield_now();
        }
        let Addr(p) = open.pop().expect("the box came back");
        // SAFETY: the pins noted after the box came back have passed: no thief still reads it.
        unsafe { (*p).with_mut(|v| *v = 8) }; // the reuse
        taker.join().unwrap();
        let seen = reader.join().unwrap();
        assert!(matches!(seen, None | Some(7)), "a thief read the newer task: {seen:?}");
        // SAFETY: from Box::into_raw above; every thread that read it has been joined.
        drop(unsafe { Box::from_raw(p) });
    });
}

#[test]
fn a_box_is_reused_only_after_the_pins_of_one_thief() {
    a_box_is_reused_only_after_the_pins_that_saw_it(1);
}

#[test]
fn a_box_is_reused_only_after_the_pins_of_two_thieves() {
    a_box_is_reused_only_after_the_pins_that_saw_it(2);
}

#[test]
fn a_box_handed_back_is_reused_only_after_its_pins() {
    a_box_handed_back_is_reused_only_after_the_pins_that_saw_it();
}
