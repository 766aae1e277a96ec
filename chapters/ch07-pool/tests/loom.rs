//! Loom models (`LOOM_MAX_PREEMPTIONS=3`) of the park/signal handshake, with idle workers and
//! a producer around a stand-in queue (a task counter): if a wake-up can be lost, some schedule
//! leaves a worker parked forever with a task waiting, and loom reports the deadlock. Of the
//! signal rule, over a real chapter 4 queue: a task that needs a worker of its own must get
//! one, whichever push or steal skips its signal. Of fork/join on two workers. And of a thread
//! outside the pool that parks until the task it waits for wakes it, and of a handle that lets
//! go of its task while the task finishes (`src/done.rs`).
//!
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=3 cargo test -p ch07-pool --release --test loom`
#![cfg(loom)]

use ch07_pool::done::Done;
use ch07_pool::sync::Ordering::{Acquire, Relaxed, SeqCst};
use ch07_pool::sync::{Arc, AtomicUsize};
use ch07_pool::sync::{Condvar, Mutex};
use ch07_pool::{Reference, Sleep, WaitOps};
use loom::thread;

/// Takes one task from the stand-in queue, if there is one.
fn try_take(tasks: &AtomicUsize) -> bool {
    let mut n = tasks.load(Relaxed);
    while n > 0 {
        match tasks.compare_exchange(n, n - 1, SeqCst, Relaxed) {
            Ok(_) => return true,
            Err(now) => n = now,
        }
    }
    false
}

/// A worker that runs until it has taken `want` tasks, going idle whenever it finds none.
fn worker<I: WaitOps>(sleep: &Sleep, me: usize, tasks: &AtomicUsize, want: usize) {
    let mut got = 0;
    while got < want {
        if try_take(tasks) {
            got += 1;
        } else {
            // Relaxed: after the announcement's SeqCst fence (see Sleep::announce).
            I::await_work(sleep, me, || tasks.load(Relaxed) > 0);
        }
    }
}

/// One worker, one producer pushing one task. The worker may go idle before, during or after
/// the push; in every schedule it must end up taking the task.
fn one_worker_one_task<I: WaitOps + 'static>() {
    ch07_pool::sync::model_fencing_seqcst_loads(|| {
        let sleep = Arc::new(Sleep::new(1));
        let tasks = Arc::new(AtomicUsize::new(0));
        let w = {
            let (sleep, tasks) = (sleep.clone(), tasks.clone());
            thread::spawn(move || worker::<I>(&sleep, 0, &tasks, 1))
        };
        tasks.fetch_add(1, SeqCst); // the push (SeqCst: the producer's half of the pair)
        sleep.signal();
        w.join().unwrap();
    });
}

/// Two workers, two tasks pushed one by one: each worker must take one, whoever sleeps when.
fn two_workers_two_tasks<I: WaitOps + 'static>() {
    ch07_pool::sync::model_fencing_seqcst_loads(|| {
        let sleep = Arc::new(Sleep::new(2));
        let tasks = Arc::new(AtomicUsize::new(0));
        let ws: Vec<_> = (0..2)
            .map(|me| {
                let (sleep, tasks) = (sleep.clone(), tasks.clone());
                thread::spawn(move || worker::<I>(&sleep, me, &tasks, 1))
            })
            .collect();
        for _ in 0..2 {
            tasks.fetch_add(1, SeqCst);
            sleep.signal();
        }
        for w in ws {
            w.join().unwrap();
        }
    });
}

/// Whether a task waits in the slot at `base`: the signal-rule workers' look (the slot, not
/// `top`, so that an owner between its two stores makes no worker spin: in a model, two
/// spinning threads can take turns forever).
fn has_task(q: &ch04_grow::WorkQueue<usize>) -> bool {
    let b = q.base.load(Relaxed); // Relaxed: a stale base finds an empty slot: the worker parks
    !q.array().at(b).load(Acquire).is_null() // Acquire: as a thief's read of the slot
}

/// An idle worker of the signal-rule models: takes a task from `stealer`'s queue when one
/// waits at `base`, and goes idle otherwise (the reference's `await_work`, so that a failure
/// here is the rule's); after its steal, wakes another worker if the rule says a task is left
/// behind (`leaves_work`); then runs the task, and returns.
fn rule_worker<I: WaitOps>(
    sleep: &Sleep,
    me: usize,
    stealer: &ch04_grow::Stealer<usize>,
    run: impl FnOnce(usize),
) {
    let q = stealer.queue();
    loop {
        if !has_task(q) {
            Reference::await_work(sleep, me, || has_task(q));
        } else if let Some(task) = stealer.poll() {
            if I::leaves_work(q) {
                sleep.signal();
            }
            run(task);
            return;
        }
    }
}

/// The owner's push in the signal-rule models: push, then signal if the rule says so
/// (`looked_empty`).
fn rule_push<I: WaitOps>(sleep: &Sleep, owner: &ch04_grow::Owner<usize>, task: usize) {
    owner.push(task).unwrap_or_else(|_| unreachable!("room"));
    if I::looked_empty(owner.queue()) {
        sleep.signal();
    }
}

/// One idle worker, and an owner that pushes one task onto its empty queue and then waits for
/// the worker to run it (it never runs it itself, as a worker busy with a long task would
/// not). The push must wake the worker, in every schedule; else loom finds both threads
/// blocked.
fn a_push_onto_an_empty_queue_wakes_a_worker<I: WaitOps + 'static>() {
    ch07_pool::sync::model_fencing_seqcst_loads(|| {
        let sleep = Arc::new(Sleep::new(1));
        let (owner, stealer) = ch04_grow::new::<usize>(4);
        let w = {
            let sleep = sleep.clone();
            thread::spawn(move || rule_worker::<I>(&sleep, 0, &stealer, |_| {}))
        };
        rule_push::<I>(&sleep, &owner, 1);
        w.join().unwrap();
    });
}

/// Two idle workers; the owner pushes task 1, then task 2, and waits. Task 1 blocks until
/// task 2 has run, so both need a worker at once. Task 2's push finds task 1 below it and may
/// skip its signal: then the thief that takes task 1 must see task 2 and wake the other worker.
/// The owner's look below and the thief's look above race (each a SeqCst load after a SeqCst
/// read-modify-write); in every schedule one of them must see the other's write.
fn a_steal_that_leaves_a_task_wakes_the_next_worker<I: WaitOps + 'static>() {
    ch07_pool::sync::model_fencing_seqcst_loads(|| {
        let sleep = Arc::new(Sleep::new(2));
        let (owner, stealer) = ch04_grow::new::<usize>(4);
        let ran2 = Arc::new((Mutex::new(false), Condvar::new()));
        let ws: Vec<_> = (0..2)
            .map(|me| {
                let (sleep, stealer, ran2) = (sleep.clone(), stealer.clone(), ran2.clone());
                thread::spawn(move || {
                    rule_worker::<I>(&sleep, me, &stealer, |task| {
                        let (lock, cv) = &*ran2;
                        let mut ran = lock.lock().unwrap();
                        if task == 2 {
                            *ran = true;
                            cv.notify_all();
                        } else {
                            while !*ran {
                                ran = cv.wait(ran).unwrap(); // task 1 needs task 2 to run
                            }
                        }
                    })
                })
            })
            .collect();
        rule_push::<I>(&sleep, &owner, 1);
        rule_push::<I>(&sleep, &owner, 2);
        for w in ws {
            w.join().unwrap();
        }
    });
}

/// Fork/join on two workers: worker A has forked `b` into its own queue (a chapter 4 queue of
/// 4 slots) and now waits for it with `help_until`, popping its own queue; worker B polls A's
/// queue twice. Whoever gets `b` runs it; it must run exactly once, and A's wait must end in
/// every schedule, including the ones where B never gets it (A must run it itself).
fn a_forked_task_runs_once_and_the_join_ends<I: WaitOps + 'static>() {
    ch07_pool::sync::model_fencing_seqcst_loads(|| {
        type Job = Box<dyn FnOnce() + Send>;
        let (owner, stealer) = ch04_grow::new::<Job>(4);
        let ran = Arc::new(AtomicUsize::new(0));
        let r = ran.clone();
        owner
            .push(Box::new(move || {
                r.fetch_add(1, SeqCst);
            }))
            .unwrap_or_else(|_| unreachable!("room"));
        let b = thread::spawn(move || {
            for _ in 0..2 {
                if let Some(job) = stealer.poll() {
                    job();
                }
            }
        });
        I::help_until(
            || ran.load(SeqCst) == 1,
            || match owner.pop() {
                Some(job) => {
                    job();
                    true
                }
                None => false,
            },
        );
        b.join().unwrap();
        assert_eq!(ran.load(SeqCst), 1, "the forked task ran exactly once");
    });
}

/// A thread outside the pool waits for a task's result with `Done::wait`, which parks it; the
/// task's thread writes the result, then calls `Done::set`. In every schedule the waiter wakes
/// (a thread parked for good is a deadlock, which loom reports), sees the result, and the
/// two never touch the parked thread's handle at the same time. Not an exercise: the pool's
/// own code (`src/done.rs`), checked by its library mutants.
#[test]
fn an_outside_waiter_wakes_and_sees_the_result() {
    ch07_pool::sync::model_fencing_seqcst_loads(|| {
        let waited = Arc::new((Done::new(), AtomicUsize::new(0)));
        let task = waited.clone();
        let t = thread::spawn(move || {
            task.1.store(42, Relaxed); // Relaxed: the result; `set` publishes it
            // SAFETY: `task` keeps the `Done` alive; the one call.
            let let_go = unsafe { Done::set(&task.0) };
            assert!(!let_go, "a waiter that waits does not let go");
        });
        waited.0.wait(|| {});
        assert_eq!(waited.1.load(Relaxed), 42, "the waiter woke and saw the result");
        t.join().unwrap();
    });
}

/// A task and its handle, each about to be done with the memory they share: the result (a loom
/// cell, written by the task), the task's `Done`, and how many times it was freed.
type SharedTask = (Done, loom::cell::UnsafeCell<u64>, AtomicUsize);

/// Frees the shared task, as `result::free` does: drops the result, which it must see whole.
fn free(task: &SharedTask) {
    // SAFETY: loom checks the access: the task's write must happen before it.
    let result = task.1.with(|p| unsafe { *p });
    assert_eq!(result, 42, "the one who frees sees the result it drops");
    task.2.fetch_add(1, Relaxed); // Relaxed: counted, then read after both threads joined
}

/// A handle dropped unjoined lets go of its task (`Done::let_go`) while the task finishes
/// (`Done::set`): in every schedule exactly one of the two frees the memory they share (the
/// task if the handle let go first, the handle if the task finished first), and whoever frees
/// it sees the result it drops. The pool's own code (`src/done.rs`), checked by its library
/// mutants.
#[test]
fn the_last_one_out_frees_a_let_go_task() {
    ch07_pool::sync::model_fencing_seqcst_loads(|| {
        let handle: Arc<SharedTask> =
            Arc::new((Done::new(), loom::cell::UnsafeCell::new(0), AtomicUsize::new(0)));
        let task = handle.clone();
        let t = thread::spawn(move || {
            // SAFETY: loom checks the access; no one reads the result before `set`.
            task.1.with_mut(|p| unsafe { *p = 42 });
            // SAFETY: `task` keeps the `Done` alive; the one call.
            if unsafe { Done::set(&task.0) } {
                free(&task);
            }
        });
        // SAFETY: as above; the one waiter, which lets go and touches it no more.
        if unsafe { Done::let_go(&handle.0) } {
            free(&handle);
        }
        t.join().unwrap();
        assert_eq!(handle.2.load(Relaxed), 1, "the shared task is freed exactly once");
    });
}

seam::tests!(
    ch07_pool;
    one_worker_one_task,
    two_workers_two_tasks,
    a_push_onto_an_empty_queue_wakes_a_worker,
    a_steal_that_leaves_a_task_wakes_the_next_worker,
    a_forked_task_runs_once_and_the_join_ends,
);
