//! Loom models: every interleaving (up to LOOM_MAX_PREEMPTIONS preemptions) of an owner
//! and one or two thieves on a 4-slot queue. Each model checks that every task is taken
//! exactly once, that a thief reads the contents the owner wrote (loom reports a causality
//! violation otherwise), and the property its name states.
//!
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=3 cargo test -p ch02-poll --release --test loom`
#![cfg(loom)]

use ch02_poll::model::{Task, exactly_once, run, task};
use ch02_poll::{PollOps, Stealer, new_with};
use loom::thread;

fn thief<P: PollOps + 'static>(
    s: &Stealer<Task, P>,
    polls: usize,
) -> thread::JoinHandle<Vec<usize>> {
    let s = s.clone();
    thread::spawn(move || (0..polls).filter_map(|_| s.poll().map(run)).collect())
}

/// The owner pops while a thief polls: the last task is raced for by swap and CAS.
fn owner_and_thief_race<P: PollOps + 'static>() {
    loom::model(|| {
        let (owner, stealer) = new_with::<Task, P>(4);
        owner.push(task(0)).unwrap();
        let th = thief(&stealer, 2);
        owner.push(task(1)).unwrap();
        let mut mine = Vec::new();
        while let Some(t) = owner.pop() {
            mine.push(run(t));
        }
        let theirs = th.join().unwrap();
        exactly_once(2, &[&mine, &theirs]);
    });
}

/// Two thieves poll while the owner pushes: the thieves race each other's CAS and base
/// update, and may meet a slot announced by `top` but not yet written.
///
/// The owner does not pop here: with two thieves both spinning on an owner preempted inside
/// its pop, loom's search can alternate the two spinners forever ("maximum number of
/// branches"). Owner-versus-thief races are modelled with one thief, below and above.
fn two_thieves_and_a_pushing_owner<P: PollOps + 'static>() {
    loom::model(|| {
        let (owner, stealer) = new_with::<Task, P>(4);
        owner.push(task(0)).unwrap();
        let (a, b) = (thief(&stealer, 1), thief(&stealer, 1));
        owner.push(task(1)).unwrap();
        let (a, b) = (a.join().unwrap(), b.join().unwrap());
        let mine: Vec<usize> = std::iter::from_fn(|| owner.pop().map(run)).collect();
        exactly_once(2, &[&mine, &a, &b]);
    });
}

/// Three tasks and two single polls, with the owner idle: the queue is never empty during
/// either poll, so both must get a task. An empty slot at base is not an empty queue.
fn a_poll_never_misses_a_present_task<P: PollOps + 'static>() {
    loom::model(|| {
        let (owner, stealer) = new_with::<Task, P>(4);
        for id in 0..3 {
            owner.push(task(id)).unwrap();
        }
        let (a, b) = (thief(&stealer, 1), thief(&stealer, 1));
        let (a, b) = (a.join().unwrap(), b.join().unwrap());
        assert_eq!((a.len(), b.len()), (1, 1), "a poll returned empty while tasks were present");
        let rest: Vec<usize> = std::iter::from_fn(|| owner.pop().map(run)).collect();
        exactly_once(3, &[&a, &b, &rest]);
    });
}

/// The owner pops the last task while a thief polls it, then keeps working: whoever won,
/// base and top must still agree, so the next push is neither lost nor taken twice.
fn the_queue_survives_a_lost_last_task<P: PollOps + 'static>() {
    loom::model(|| {
        let (owner, stealer) = new_with::<Task, P>(4);
        owner.push(task(0)).unwrap();
        let th = thief(&stealer, 1);
        let mut mine: Vec<usize> = owner.pop().map(run).into_iter().collect();
        owner.push(task(1)).unwrap();
        let theirs = th.join().unwrap();
        mine.extend(std::iter::from_fn(|| owner.pop().map(run)));
        mine.extend(std::iter::from_fn(|| stealer.poll().map(run)));
        exactly_once(2, &[&mine, &theirs]);
    });
}

/// The owner wraps around a full 4-slot ring while a thief that read `base` early polls:
/// slot 0 then holds index 4's task, and only the `base != b` recheck (made sound by the
/// Acquire loads) stops the thief from taking it as index 0's. The owner's thread also
/// plays the second thief, so that loom can afford every interleaving.
fn a_reused_slot_is_not_taken_for_its_old_index<P: PollOps + 'static>() {
    loom::model(|| {
        let (owner, stealer) = new_with::<Task, P>(4);
        for id in 0..4 {
            owner.push(task(id)).unwrap();
        }
        let late = thief(&stealer, 1);
        let mut mine: Vec<usize> = stealer.poll().map(run).into_iter().collect();
        if let Err(full) = owner.push(task(4)) {
            mine.push(run(full.into_task())); // no room yet: the owner runs it itself
        }
        let late = late.join().unwrap();
        mine.extend(std::iter::from_fn(|| owner.pop().map(run)));
        exactly_once(5, &[&mine, &late]);
        assert!(
            stealer.poll().is_none() && owner.is_empty(),
            "base and top agree that the queue is empty"
        );
    });
}

macro_rules! models {
    ($ops:ty) => {
        #[test]
        fn owner_and_thief_race() {
            super::owner_and_thief_race::<$ops>();
        }
        #[test]
        fn two_thieves_and_a_pushing_owner() {
            super::two_thieves_and_a_pushing_owner::<$ops>();
        }
        #[test]
        fn a_poll_never_misses_a_present_task() {
            super::a_poll_never_misses_a_present_task::<$ops>();
        }
        #[test]
        fn the_queue_survives_a_lost_last_task() {
            super::the_queue_survives_a_lost_last_task::<$ops>();
        }
        #[test]
        fn a_reused_slot_is_not_taken_for_its_old_index() {
            super::a_reused_slot_is_not_taken_for_its_old_index::<$ops>();
        }
    };
}

/// Chapter 2's pins (`reclaim::pins`), with a registry of the model's own. A thief pins, reads
/// a task pointer out of a slot and reads the task behind it, and unpins. The owner empties
/// the slot with a swap, seals (notes the threads pinned now), waits until they have passed,
/// and reuses the memory: it writes a newer task into it. If the reuse could race the thief's
/// read, loom reports a causality violation on the cell. This models the protocol that the
/// queue models above skip: under loom, `reclaim::pin` marks nothing and a taken box is
/// freed at once, which is safe there only because those models never wrap a slot while a
/// thief holds its pointer.
fn a_box_is_reused_only_after_the_pins_that_saw_it(thieves: usize) {
    use ch02_poll::reclaim::pins::Registry;
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::sync::atomic::AtomicPtr;
    use loom::sync::atomic::Ordering::{Acquire, SeqCst};

    loom::model(move || {
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
/// (`take_stolen`). The owner, which never took it itself, seals with `seal_returned`, waits
/// for the pins it noted, and reuses the memory. A seal that looks at the pins before it
/// empties its inbox can miss A and race A's read: loom reports it on the cell.
fn a_box_handed_back_is_reused_only_after_the_pins_that_saw_it() {
    use ch02_poll::reclaim::handback::{Inbox, seal_returned};
    use ch02_poll::reclaim::pins::Registry;
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::sync::atomic::AtomicPtr;
    use loom::sync::atomic::Ordering::{Acquire, Relaxed, SeqCst};

    type Cell = UnsafeCell<u32>;
    /// A box's address, as the inbox holds it.
    struct Addr(*mut Cell);
    // SAFETY: only an address; every dereference in this model has an argument of its own.
    unsafe impl Send for Addr {}

    loom::model(|| {
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
                    assert!(inbox.send(Addr(p)).is_ok(), "the owner's inbox is open");
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

mod reference {
    models!(ch02_poll::Reference);

    #[test]
    fn a_box_handed_back_is_reused_only_after_the_pins_that_saw_it() {
        super::a_box_handed_back_is_reused_only_after_the_pins_that_saw_it();
    }

    #[test]
    fn a_box_is_reused_only_after_the_pins_that_saw_it() {
        super::a_box_is_reused_only_after_the_pins_that_saw_it(1);
    }

    #[test]
    fn a_box_is_reused_only_after_two_thieves_pins() {
        super::a_box_is_reused_only_after_the_pins_that_saw_it(2);
    }
}

#[cfg(feature = "exercise")]
mod exercise {
    models!(ch02_poll::exercise::Exercise);
}
