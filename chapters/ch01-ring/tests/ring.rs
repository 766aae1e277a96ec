//! Behaviour of the ring, run against the reference (`reference::`) and, when the
//! grader builds with `--features exercise`, against the reader's code (`exercise::`).
//!
//! Each check is a plain function generic over the mechanism; `seam::tests!` (at the end)
//! instantiates each one for both, from one list of names.

use std::collections::VecDeque;

use ch01_ring::{Full, Ring, RingOps};
use proptest::prelude::*;

/// Indices to start from: zero, and just before the two places where an index wraps,
/// `i32::MAX -> i32::MIN` and (read as bits) `u32::MAX -> 0`, that is `-1 -> 0`.
const STARTS: [i32; 3] = [0, i32::MAX - 2, -3];

fn lifo_is_newest_first<O: RingOps>() {
    for start in STARTS {
        let mut r: Ring<u32, O> = Ring::with_ops(4, 64).starting_at(start);
        for i in 0..3 {
            r.push(i).unwrap();
        }
        assert_eq!(
            (r.pop(), r.pop(), r.pop(), r.pop()),
            (Some(2), Some(1), Some(0), None),
            "start {start}"
        );
        assert_eq!(r.top(), start, "pop must move top back to where it started");
    }
}

fn fifo_is_oldest_first<O: RingOps>() {
    for start in STARTS {
        let mut r: Ring<u32, O> = Ring::with_ops(4, 64).starting_at(start);
        for i in 0..3 {
            r.push(i).unwrap();
        }
        let got = [r.poll_fifo(), r.poll_fifo(), r.poll_fifo(), r.poll_fifo()];
        assert_eq!(got, [Some(0), Some(1), Some(2), None], "start {start}");
        assert_eq!(r.base(), start.wrapping_add(3), "poll_fifo must move base forward");
    }
}

fn indices_wrap_past_i32_and_u32_max<O: RingOps>() {
    // 10 tasks through a 4-slot ring whose indices cross i32::MAX (and, as bits, u32::MAX).
    for start in [i32::MAX - 4, -5] {
        let mut r: Ring<i64, O> = Ring::with_ops(4, 4).starting_at(start);
        let mut oldest = 0;
        for i in 0..10i64 {
            r.push(i).unwrap();
            if r.len() == 4 {
                for _ in 0..2 {
                    assert_eq!(r.poll_fifo(), Some(oldest), "start {start}, after pushing {i}");
                    oldest += 1;
                }
            }
        }
        assert_eq!(r.top(), start.wrapping_add(10));
        assert_eq!(r.capacity(), 4);
        let rest: Vec<_> = std::iter::from_fn(|| r.pop()).collect();
        assert_eq!(rest, (oldest..10).rev().collect::<Vec<_>>(), "start {start}");
    }
}

fn slot_is_index_masked<O: RingOps>() {
    // Every slot of the array, and only the slot `index & (cap - 1)`, holds the task of `index`.
    for start in STARTS {
        let mut r: Ring<i32, O> = Ring::with_ops(8, 8).starting_at(start);
        for k in 0..5 {
            r.push(start.wrapping_add(k)).unwrap();
        }
        for (slot, task) in r.raw().array.iter().enumerate() {
            if let Some(index) = task {
                assert_eq!(
                    slot,
                    (*index as u32 as usize) & 7,
                    "task of index {index} is in slot {slot}"
                );
            }
        }
        assert_eq!(r.raw().array.iter().flatten().count(), 5);
    }
}

/// `slot_of` alone, on every kind of index: negative, wrapped past `i32::MAX`, and (as bits)
/// past `u32::MAX`, for arrays up to the JDK's largest. The tests above reach it only through
/// a push that calls it.
fn slot_of_masks_every_index<O: RingOps>() {
    for cap in [1usize, 2, 8, 1 << 30] {
        for index in [i32::MIN, i32::MIN + 1, -9, -3, -1, 0, 1, 7, 8, 9, i32::MAX - 1, i32::MAX] {
            assert_eq!(
                O::slot_of(cap, index),
                (index as u32 as usize) & (cap - 1),
                "slot_of(capacity {cap}, index {index}): the index's low bits, as unsigned"
            );
        }
    }
}

/// `grow` alone, on a ring whose indices wrap past `i32::MAX`: twice the slots, `base` and
/// `top` as they were, and each task in its own index's slot of the new array.
fn grow_alone_doubles_and_keeps_each_index<O: RingOps>() {
    let start = i32::MAX - 1;
    let mut raw: ch01_ring::RawRing<i32> = ch01_ring::RawRing::new(4, 64, start);
    for k in 0..3 {
        let index = start.wrapping_add(k);
        raw.array[(index as u32 as usize) & 3] = Some(index); // as the reference's push would
    }
    raw.top = start.wrapping_add(3);
    O::grow(&mut raw);
    assert_eq!(raw.array.len(), 8, "grow doubles the array");
    assert_eq!(
        (raw.base, raw.top),
        (start, start.wrapping_add(3)),
        "grow moves tasks, not indices"
    );
    for (slot, task) in raw.array.iter().enumerate() {
        if let Some(index) = task {
            assert_eq!(slot, (*index as u32 as usize) & 7, "task of index {index} in slot {slot}");
        }
    }
    assert_eq!(raw.array.iter().flatten().count(), 3, "every task moved, none copied twice");
}

fn grows_by_doubling_when_full<O: RingOps>() {
    for start in STARTS {
        let mut r: Ring<u32, O> = Ring::with_ops(2, 1 << 10).starting_at(start);
        let mut caps = vec![r.capacity()];
        for i in 0..100 {
            let before = r.capacity();
            r.push(i).unwrap();
            // Below the maximum a push never leaves the array full: the push that fills it
            // grows it (the JDK's `room == 0`), not the push after, nor the one before.
            assert!(
                r.len() < r.capacity(),
                "after push {i}: {} tasks in all {} slots; the push that fills the array \
                 grows it, not the next one",
                r.len(),
                r.capacity()
            );
            assert!(
                r.capacity() == before || r.len() == before,
                "push {i} grew {before} slots to {} with {} tasks: only the push that fills \
                 the array grows it",
                r.capacity(),
                r.len()
            );
            // Growing moves tasks, never indices: base stays, top counts the pushes.
            let pushed = i32::try_from(i).unwrap() + 1;
            assert_eq!(
                (r.base(), r.top()),
                (start, start.wrapping_add(pushed)),
                "after push {i} (capacity {}): the indices are never reset",
                r.capacity()
            );
            if *caps.last().unwrap() != r.capacity() {
                caps.push(r.capacity());
            }
        }
        assert_eq!(caps, [2, 4, 8, 16, 32, 64, 128], "capacities seen while pushing 100 tasks");
        assert!((0..100).rev().eq(std::iter::from_fn(|| r.pop())), "every task back, newest first");
    }
}

fn growth_keeps_a_wrapped_ring_in_order<O: RingOps>() {
    // Make the tasks wrap around the physical end of the array, then force growth.
    let mut r: Ring<u32, O> = Ring::with_ops(4, 64);
    for i in 0..3 {
        r.push(i).unwrap();
    }
    assert_eq!(r.poll_fifo(), Some(0));
    assert_eq!(r.poll_fifo(), Some(1)); // base = 2, one task at slot 2
    for i in 3..9 {
        r.push(i).unwrap(); // wraps to slots 3, 0, 1, then grows
    }
    let got: Vec<_> = std::iter::from_fn(|| r.poll_fifo()).collect();
    assert_eq!(got, (2..9).collect::<Vec<_>>());
}

fn full_hands_the_task_back<O: RingOps>() {
    for start in STARTS {
        let mut r: Ring<String, O> = Ring::with_ops(2, 4).starting_at(start);
        for i in 0..4 {
            r.push(i.to_string())
                .unwrap_or_else(|e| panic!("push {i} of 4 into a ring of max 4 slots: {e}"));
        }
        let err: Full<String> =
            r.push("five".into()).expect_err("a fifth task cannot fit in 4 slots");
        assert_eq!(err.capacity, 4);
        assert_eq!(err.into_task(), "five", "the rejected task must come back");
        assert_eq!(r.len(), 4, "a refused push changes nothing");
        let all: Vec<_> = std::iter::from_fn(|| r.poll_fifo()).collect();
        assert_eq!(all, ["0", "1", "2", "3"], "nothing lost");
        r.push("again".into()).expect("room again after taking");
    }
}

fn empty_ring_gives_none<O: RingOps>() {
    let mut r: Ring<u8, O> = Ring::with_ops(2, 2);
    assert_eq!((r.pop(), r.poll_fifo()), (None, None));
    assert_eq!(
        (r.base(), r.top(), r.len()),
        (0, 0, 0),
        "taking from empty must not move the indices"
    );
}

/// One step of a random run, applied to the ring and to a `VecDeque` model.
#[derive(Clone, Debug)]
enum Op {
    Push(u16),
    Pop,
    PollFifo,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![3 => any::<u16>().prop_map(Op::Push), 1 => Just(Op::Pop), 1 => Just(Op::PollFifo)]
}

fn start() -> impl Strategy<Value = i32> {
    prop_oneof![Just(0), (i32::MAX - 40)..=i32::MAX, -40..0i32, any::<i32>()]
}

/// 512 random runs of up to 200 operations, each from a random start index: the ring and
/// the model agree on every result (proptest shrinks a failing run to a minimal one).
fn agrees_with_vecdeque<O: RingOps>() {
    let config = ProptestConfig { cases: 512, failure_persistence: None, ..Default::default() };
    let runs = (start(), proptest::collection::vec(op(), 0..200));
    let result = proptest::test_runner::TestRunner::new(config)
        .run(&runs, |(start, ops)| one_run_agrees::<O>(start, &ops));
    if let Err(e) = result {
        panic!("the ring and VecDeque disagree: {e}");
    }
}

/// Runs `ops` on a ring (initial capacity 2, maximum 32) and on the model; every
/// result, the length and the final contents must agree.
fn one_run_agrees<O: RingOps>(start: i32, ops: &[Op]) -> Result<(), TestCaseError> {
    const MAX: usize = 32;
    let mut ring: Ring<u16, O> = Ring::with_ops(2, MAX).starting_at(start);
    let mut model = VecDeque::new();
    for (step, op) in ops.iter().enumerate() {
        match *op {
            Op::Push(t) => match ring.push(t) {
                Ok(()) => {
                    prop_assert!(
                        model.len() < MAX,
                        "step {}: push accepted beyond max capacity",
                        step
                    );
                    model.push_back(t);
                }
                Err(full) => {
                    prop_assert_eq!(
                        model.len(),
                        MAX,
                        "step {}: push refused below max capacity",
                        step
                    );
                    prop_assert_eq!(
                        full.into_task(),
                        t,
                        "step {}: refused task not handed back",
                        step
                    );
                }
            },
            Op::Pop => prop_assert_eq!(ring.pop(), model.pop_back(), "step {}: pop", step),
            Op::PollFifo => {
                prop_assert_eq!(ring.poll_fifo(), model.pop_front(), "step {}: poll_fifo", step)
            }
        }
        prop_assert_eq!(ring.len(), model.len(), "step {}: len", step);
        prop_assert!(ring.capacity().is_power_of_two() && ring.capacity() >= ring.len());
    }
    let rest: Vec<_> = std::iter::from_fn(|| ring.poll_fifo()).collect();
    prop_assert_eq!(rest, Vec::from(model));
    Ok(())
}

seam::tests!(
    ch01_ring;
    lifo_is_newest_first,
    fifo_is_oldest_first,
    indices_wrap_past_i32_and_u32_max,
    slot_is_index_masked,
    slot_of_masks_every_index,
    grow_alone_doubles_and_keeps_each_index,
    grows_by_doubling_when_full,
    growth_keeps_a_wrapped_ring_in_order,
    full_hands_the_task_back,
    empty_ring_gives_none,
    agrees_with_vecdeque,
);
