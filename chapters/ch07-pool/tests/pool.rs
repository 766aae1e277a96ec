//! Tests (not under loom) of the pool, run with the reference waiting and waking
//! (`reference::`) and, with the grader's `--features exercise`, the reader's (`exercise::`).
#![cfg(not(loom))]

use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::atomic::{AtomicU8, AtomicUsize};
use std::sync::mpsc;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use ch07_pool::{ThreadPoolWith, WaitOps, fib};

/// Runs `f` on another thread and fails the test if it takes longer than `secs`: a pool that
/// deadlocks must fail, not hang the suite. (The stuck thread is left behind.)
fn within<R: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("{what}: not done after {secs} s (a deadlock?)"))
}

fn fib_without_cutoff_at_parallelism_1_2_4<I: WaitOps + 'static>() {
    for p in [1, 2, 4] {
        let got = within(30, &format!("fib(25) at parallelism {p}"), move || {
            let pool: ThreadPoolWith<I> = ThreadPoolWith::new(p);
            let v = pool.join(|| fib(25), || fib(2));
            let stats = pool.shutdown();
            (v, stats)
        });
        assert_eq!(got.0, (75_025, 1), "fib(25) at parallelism {p}");
        if p > 1 {
            assert!(got.1.steal_count > 0, "with {p} workers someone stole: {:?}", got.1);
        }
    }
}

fn a_panic_reaches_the_joiner_and_the_pool_goes_on<I: WaitOps + 'static>() {
    within(30, "panicking tasks", || {
        let pool: ThreadPoolWith<I> = ThreadPoolWith::new(2);
        let h = pool.submit(|| -> u32 { panic!("expected panic from a test task") }).unwrap();
        let err = h.join().expect_err("the panic comes back");
        assert_eq!(err.downcast_ref::<&str>(), Some(&"expected panic from a test task"));
        let joined = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.join(|| 1, || -> u32 { panic!("expected panic in a joined task") })
        }));
        assert!(joined.is_err(), "a panic in the forked half reaches the caller of join");
        assert_eq!(pool.submit(|| 7).unwrap().join().unwrap(), 7, "the pool still works");
        // Two panics, each counted once where it started: the submitted task's, and the forked
        // half's (not again in the task that ran the join from outside, which it passed through).
        assert_eq!(pool.shutdown().panics, 2);
    });
}

/// A panic three joins deep, on either side, passes through four tasks and is counted once.
/// (Counting it in every task it unwinds through gave 4: tried.)
fn a_nested_panic_is_counted_once<I: WaitOps + 'static>() {
    within(30, "a nested panic", || {
        for side in ["a", "b"] {
            let pool: ThreadPoolWith<I> = ThreadPoolWith::new(2);
            let deepest = move || -> u32 {
                let boom = || -> u32 { panic!("expected panic, three joins deep") };
                let (x, y) = if side == "a" {
                    ch07_pool::join_in_task(boom, || 1)
                } else {
                    ch07_pool::join_in_task(|| 1, boom)
                };
                x + y
            };
            let h = pool
                .submit(move || {
                    ch07_pool::join_in_task(move || ch07_pool::join_in_task(deepest, || 1).0, || 1)
                        .0
                })
                .unwrap();
            assert!(h.join().is_err(), "the panic reaches the joiner");
            assert_eq!(pool.shutdown().panics, 1, "side {side}: one panic, counted once");
        }
    });
}

/// 1,000,000 tasks, 10,000 of which panic, submitted from outside: every task runs exactly
/// once and the pool still works afterwards.
/// Keeps the 10,000 expected panic messages of the next test out of the output; any other
/// panic is still reported by the default hook.
fn quiet_expected_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = info.payload().downcast_ref::<String>().map(String::as_str).unwrap_or("");
        if !text.contains("fails on purpose") {
            default(info);
        }
    }));
}

fn ten_thousand_panics_among_a_million_tasks<I: WaitOps + 'static>() {
    quiet_expected_panics();
    within(60, "a million tasks", || {
        const N: usize = 1_000_000;
        let pool: ThreadPoolWith<I> = ThreadPoolWith::new(2);
        let ran: Arc<Vec<AtomicU8>> = Arc::new((0..N).map(|_| AtomicU8::new(0)).collect());
        let handles: Vec<_> = (0..N)
            .map(|i| {
                let ran = ran.clone();
                pool.submit(move || {
                    ran[i].fetch_add(1, Relaxed); // Relaxed: read after every join
                    if i % 100 == 0 {
                        panic!("expected: task {i} fails on purpose");
                    }
                })
                .unwrap()
            })
            .collect();
        let failed = handles.into_iter().map(|h| h.join().is_err()).filter(|&e| e).count();
        assert_eq!(failed, N / 100);
        assert!(ran.iter().all(|c| c.load(Relaxed) == 1), "every task ran exactly once");
        assert_eq!(pool.submit(|| 5).unwrap().join().unwrap(), 5);
        assert_eq!(pool.shutdown().panics, (N / 100) as u64);
    });
}

/// Shutdown while 100,000 tasks are queued: every accepted task runs, a later submission is
/// rejected with its task handed back, and the threads are joined.
fn shutdown_under_load_loses_nothing<I: WaitOps + 'static>() {
    within(60, "shutdown under load", || {
        let pool: Arc<ThreadPoolWith<I>> = Arc::new(ThreadPoolWith::new(2));
        let ran: Arc<Vec<AtomicU8>> = Arc::new((0..100_000).map(|_| AtomicU8::new(0)).collect());
        for i in 0..100_000 {
            let ran = ran.clone();
            drop(pool.submit(move || ran[i].fetch_add(1, Relaxed)).unwrap());
        }
        let pool = Arc::into_inner(pool).unwrap();
        let stats = pool.shutdown();
        assert!(ran.iter().all(|c| c.load(Relaxed) == 1), "accepted tasks all ran, once");
        assert_eq!(stats.queued_task_count, 0);
        let pool: ThreadPoolWith<I> = ThreadPoolWith::new(1);
        pool.close();
        let shared = Arc::new(AtomicU8::new(0));
        let s2 = shared.clone();
        let rejected =
            pool.submit(move || s2.fetch_add(1, Relaxed)).err().expect("closed: rejected");
        assert!(rejected.to_string().contains("shut down"), "{rejected}");
        (rejected.0)(); // the task came back and still runs
        assert_eq!(shared.load(Relaxed), 1, "nothing lost");
    });
}

/// Submitters race `close`: each submits until it is rejected, and runs the task it gets back.
/// After `shutdown` returns, every accepted task has run, exactly once: a worker must not exit
/// while a submitter is between its check and its push, nor with a task in a queue.
fn submissions_racing_close_lose_nothing<I: WaitOps + 'static>() {
    within(60, "submissions racing close", || {
        for _ in 0..200 {
            let pool: Arc<ThreadPoolWith<I>> = Arc::new(ThreadPoolWith::new(1));
            let ran = Arc::new(AtomicUsize::new(0));
            let start = Arc::new(Barrier::new(3));
            let submitters: Vec<_> = (0..2)
                .map(|_| {
                    let (pool, ran, start) = (pool.clone(), ran.clone(), start.clone());
                    std::thread::spawn(move || {
                        start.wait();
                        let mut tasks = 0;
                        loop {
                            let ran = ran.clone();
                            tasks += 1;
                            // Relaxed: counted, read after every thread is joined
                            match pool.submit(move || ran.fetch_add(1, Relaxed)) {
                                Ok(handle) => drop(handle),
                                Err(rejected) => {
                                    (rejected.0)(); // handed back: run it here
                                    return tasks;
                                }
                            }
                        }
                    })
                })
                .collect();
            start.wait();
            pool.close();
            let tasks: usize = submitters.into_iter().map(|t| t.join().unwrap()).sum();
            Arc::into_inner(pool).expect("the submitters are gone").shutdown();
            assert_eq!(ran.load(Relaxed), tasks, "every task ran once, in the pool or handed back");
        }
    });
}

/// Tasks forked and never joined still run before `shutdown` returns, though the task that
/// forked them finished long before. (A worker that checks for its exit before draining its
/// own queue fails this: tried.)
fn detached_forks_run_before_shutdown<I: WaitOps + 'static>() {
    within(30, "detached forks", || {
        let pool: ThreadPoolWith<I> = ThreadPoolWith::new(2);
        let ran = Arc::new(AtomicUsize::new(0));
        let r = ran.clone();
        pool.submit(move || {
            for _ in 0..10_000 {
                let r = r.clone();
                drop(ch07_pool::fork(move || r.fetch_add(1, Relaxed)).unwrap()); // Relaxed: as above
            }
        })
        .unwrap()
        .join()
        .unwrap();
        pool.shutdown();
        assert_eq!(ran.load(Relaxed), 10_000);
    });
}

/// A task forks three tasks and all four wait at one barrier, blocking (no helping): the four
/// workers must all be awake. Only the first fork finds its queue empty and signals; the others
/// are woken by the thief before them, which leaves tasks behind (the JDK's rule). A pool that
/// does not pass the signal on deadlocks here (tried: without `propagate`, two workers sleep on).
fn each_waiting_fork_gets_a_worker<I: WaitOps + 'static>() {
    within(30, "four tasks at one barrier on four workers", || {
        let pool: ThreadPoolWith<I> = ThreadPoolWith::new(4);
        for _ in 0..20 {
            let barrier = Arc::new(Barrier::new(4));
            let b = barrier.clone();
            pool.submit(move || {
                let forks: Vec<_> = (0..3)
                    .map(|_| {
                        let b = b.clone();
                        ch07_pool::fork(move || {
                            b.wait();
                        })
                        .unwrap()
                    })
                    .collect();
                b.wait();
                forks.into_iter().for_each(|h| h.join().unwrap());
            })
            .unwrap()
            .join()
            .unwrap();
        }
        pool.shutdown();
    });
}

/// A handle from `fork` does not hold its pool: it can leave the pool inside a result and be
/// joined by a thread outside it, while its task is still waiting to finish (the wait outside
/// a pool, with no pool at hand), and after `shutdown` (a pool runs every task it accepted
/// before it stops). A join that insists on a worker fails this (tried).
fn a_forked_handle_is_joined_outside_its_pool<I: WaitOps + 'static>() {
    within(30, "forked handles joined outside the pool", || {
        let pool: ThreadPoolWith<I> = ThreadPoolWith::new(2);
        let (go, wait) = mpsc::channel::<()>();
        let wait = std::sync::Mutex::new(wait);
        let slow = pool
            .submit(move || {
                ch07_pool::fork(move || {
                    wait.lock().unwrap().recv().unwrap();
                    6 * 7
                })
                .unwrap()
            })
            .unwrap()
            .join()
            .unwrap();
        let joiner = std::thread::spawn(move || slow.join().unwrap());
        std::thread::sleep(Duration::from_millis(20)); // let the joiner start waiting
        go.send(()).unwrap();
        assert_eq!(joiner.join().unwrap(), 42);
        let later = pool.submit(|| ch07_pool::fork(|| 7).unwrap()).unwrap().join().unwrap();
        pool.shutdown();
        assert!(later.is_done(), "shutdown returned before an accepted task ran");
        assert_eq!(later.join().unwrap(), 7);
    });
}

/// A lone worker must run what it waits for. `join_in_task` takes its forked half back when it
/// is on top of the queue and calls it (the JDK's `tryRemoveAndExec`), so fib alone never waits;
/// here `a` forks a detached task above `b`, and the result of a second fork is joined through
/// its handle: both waits need the helping wait (`help_until`) to run a task of the worker's
/// own queue. A wait that only yields deadlocks here (the mutant `join_blocks`). So does one
/// that helps only when it is not itself inside a task run by a wait: the second pool's task
/// `h1`, run by the wait for it, waits for its own forks, which sit in the same queue
/// (`nested_waits_do_not_help`).
fn a_lone_worker_runs_what_it_waits_for<I: WaitOps + 'static>() {
    let got = within(30, "joins on a pool of one worker", || {
        let pool: ThreadPoolWith<I> = ThreadPoolWith::new(1);
        let sum = pool.join(
            || {
                let (a, b) = ch07_pool::join_in_task(
                    || {
                        drop(ch07_pool::fork(|| ()).unwrap()); // detached: lands above `b`
                        20
                    },
                    || 22,
                );
                a + b + ch07_pool::fork(|| 100).unwrap().join().unwrap()
            },
            || 0,
        );
        pool.shutdown();
        sum
    });
    assert_eq!(got, (142, 0));
    let got = within(8, "waits nested in a helped task, on a pool of one worker", || {
        let pool: ThreadPoolWith<I> = ThreadPoolWith::new(1);
        let sum = pool.join(
            || {
                let h1 = ch07_pool::fork(|| {
                    let g1 = ch07_pool::fork(|| 1).unwrap();
                    let g2 = ch07_pool::fork(|| 2).unwrap();
                    g1.join().unwrap() + g2.join().unwrap() // waits inside the wait for h1
                })
                .unwrap();
                let h2 = ch07_pool::fork(|| 10).unwrap();
                h1.join().unwrap() + h2.join().unwrap()
            },
            || 0,
        );
        pool.shutdown();
        sum
    });
    assert_eq!(got, (13, 0));
}

/// `looked_empty`'s contract, on a queue driven by hand: after the owner's push, true exactly
/// when the slot below the new task is empty. Onto an empty queue: true. Onto a task: false
/// (an always-true rule is correct but signals on every fork). Onto a slot a thief emptied:
/// true. And after the ring has wrapped, where "below" is the last slot of the array.
fn looked_empty_reads_the_slot_below_the_new_task<I: WaitOps + 'static>() {
    let (owner, stealer) = ch04_grow::new::<usize>(4);
    let q = owner.queue();
    let push = |t: usize| owner.push(t).unwrap_or_else(|_| unreachable!("room"));
    push(1);
    assert!(I::looked_empty(q), "a push onto an empty queue: the slot below is empty");
    push(2);
    assert!(!I::looked_empty(q), "a push onto task 1: the slot below holds a task");
    // A thief has taken task 1 with its CAS and not yet moved `base`: the slot below is empty
    // though the indices still count task 1. The slot decides, not `base`.
    let taken = q.array().at(0).swap(std::ptr::null_mut(), SeqCst);
    assert!(I::looked_empty(q), "the slot below was emptied by a thief that has not moved base");
    q.array().at(0).swap(taken, SeqCst); // the thief's CAS undone: task 1 is back
    assert_eq!((stealer.poll(), stealer.poll()), (Some(1), Some(2)));
    push(3);
    assert!(I::looked_empty(q), "a push above two stolen tasks: the slot below was emptied");
    push(4); // index 3, the array's last slot
    assert_eq!(owner.pop(), Some(4));
    assert_eq!(stealer.poll(), Some(3));
    push(5); // index 3 again
    push(6); // index 4: slot 0, after the wrap
    assert!(!I::looked_empty(q), "after the wrap, the slot below slot 0 is slot 3 (task 5)");
}

/// `leaves_work`'s contract: after a thief's take, true exactly when a task waits at the new
/// `base`.
fn leaves_work_reads_the_slot_at_base<I: WaitOps + 'static>() {
    let (owner, stealer) = ch04_grow::new::<usize>(4);
    let q = owner.queue();
    for t in 1..=3 {
        owner.push(t).unwrap_or_else(|_| unreachable!("room"));
    }
    assert_eq!(stealer.poll(), Some(1));
    assert!(I::leaves_work(q), "tasks 2 and 3 wait: the next thief needs waking");
    // Nothing orders a thief's load of `top` after the owner's latest push: it may read a `top`
    // that does not count a task already in its slot. The slot at `base` decides.
    q.top.store(1, Relaxed);
    assert!(I::leaves_work(q), "task 2 waits at base, whatever a stale top says");
    q.top.store(3, Relaxed);
    assert_eq!(stealer.poll(), Some(2));
    assert!(I::leaves_work(q), "task 3 waits");
    assert_eq!(stealer.poll(), Some(3));
    assert!(!I::leaves_work(q), "nothing is left behind");
    owner.push(4).unwrap_or_else(|_| unreachable!("room")); // index 3
    owner.push(5).unwrap_or_else(|_| unreachable!("room")); // index 4: slot 0
    assert_eq!(stealer.poll(), Some(4));
    assert!(I::leaves_work(q), "after the wrap, task 5 waits in slot 0");
}

/// `await_work`'s two ends, seen from the idle list: a recheck that finds work takes the worker
/// off the list again (`retract`), so no later signal is spent on a worker that is not asleep;
/// a recheck that finds nothing leaves it announced and parked until a signal.
fn await_work_retracts_or_parks<I: WaitOps + 'static>() {
    within(10, "await_work", || {
        let sleep = Arc::new(ch07_pool::Sleep::new(1));
        I::await_work(&sleep, 0, || true); // work found: must return, not park
        assert_eq!(
            sleep.sleeping(),
            0,
            "await_work found work after announcing and stayed on the idle list: a signal would \
             go to a worker that is not asleep, and the one that is would sleep on"
        );
        let idle = std::thread::spawn({
            let sleep = sleep.clone();
            move || I::await_work(&sleep, 0, || false) // nothing found: announce and park
        });
        while sleep.sleeping() == 0 {
            assert!(!idle.is_finished(), "await_work found nothing and returned without parking");
            std::thread::yield_now();
        }
        std::thread::sleep(Duration::from_millis(50)); // announced: it must now stay parked
        assert!(!idle.is_finished(), "await_work announced, found nothing and returned unwoken");
        sleep.signal();
        idle.join().expect("await_work panicked");
        assert_eq!(sleep.sleeping(), 0, "the woken worker is off the idle list");
    });
}

/// `help_until`'s contract, called directly, with no pool around it to wait again: it returns
/// only once `done()` is true, and keeps calling `run_one` meanwhile, whether or not `run_one`
/// finds anything. (`join_in_task` loops around it as a safety net, so no pool test sees a
/// wait that gives up early: the mutant `help_until_gives_up`.)
fn help_until_returns_only_when_done<I: WaitOps + 'static>() {
    within(10, "help_until with nothing to help", || {
        let calls = AtomicUsize::new(0);
        // Relaxed: one thread; the counter only counts.
        I::help_until(
            || calls.load(Relaxed) >= 50,
            || {
                calls.fetch_add(1, Relaxed);
                false // nothing to run: the task waited for is running elsewhere
            },
        );
        let n = calls.load(Relaxed);
        assert!(
            n >= 50,
            "help_until returned after {n} calls of run_one, while done() was still false: a \
             worker waits until its task is done, helping meanwhile (finding nothing to run is \
             no reason to stop waiting)"
        );
    });
    within(10, "help_until with tasks to help with", || {
        let ran = AtomicUsize::new(0);
        // 23, a prime: a wait that looks at done() only every k tasks overshoots it.
        I::help_until(
            || ran.load(Relaxed) >= 23,
            || {
                ran.fetch_add(1, Relaxed);
                true
            },
        );
        assert_eq!(ran.load(Relaxed), 23, "help_until stops running tasks once done() is true");
    });
    within(10, "help_until when the task is done already", || {
        let ran = AtomicUsize::new(0);
        I::help_until(
            || true,
            || {
                ran.fetch_add(1, Relaxed);
                true
            },
        );
        assert_eq!(
            ran.load(Relaxed),
            0,
            "done() was true on entry: help_until looks before it runs anything (a task it ran \
             first could take any time to finish)"
        );
    });
}

/// After `close`, a join from outside the pool says why it cannot run: `try_join` with an error
/// that holds both closures, `join` with a panic that names the closed pool (it used to be an
/// internal `expect`'s "the pool is running: Rejected(...)"); and a rejected `submit` hands back
/// the closure itself, callable for its typed result (it used to be a boxed job).
fn a_join_after_close_says_the_pool_is_closed<I: WaitOps + 'static>() {
    within(30, "join after close", || {
        let pool: ThreadPoolWith<I> = ThreadPoolWith::new(1);
        pool.close();
        let err = pool.try_join(|| 1, || 2).expect_err("a closed pool rejects the join");
        assert!(err.to_string().contains("shut down"), "the error says why: {err}");
        let (a, b) = err.0; // both closures come back, typed and unrun
        assert_eq!((a(), b()), (1, 2));
        let rejected = pool.submit(|| 6 * 7).err().expect("a closed pool rejects the task");
        assert_eq!((rejected.0)(), 42, "the closure comes back as it was given, result and all");
        let panic =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pool.join(|| 1, || 2)))
                .expect_err("join on a closed pool panics");
        let message = (panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        assert!(message.contains("after the pool was closed"), "the panic says why: {message}");
    });
}

/// A builder's stack size reaches the workers: a recursion 10,000 joins deep, each level a frame
/// of `join_in_task` and one of the recursion, fits in 64 MiB stacks (on the default 2 MiB it
/// overflows and aborts the process: tried). And the workers carry the builder's names.
fn a_built_pool_has_the_stacks_and_names_asked_for<I: WaitOps + 'static>() {
    fn deep(n: u32) -> u32 {
        if n == 0 {
            return 0;
        }
        ch07_pool::join_in_task(move || deep(n - 1), || 1).0 + 1
    }
    within(60, "a deep recursion on a built pool", || {
        let pool: ThreadPoolWith<I> =
            ch07_pool::Builder::new(2).stack_size(64 << 20).thread_name("deep-").build_with();
        assert_eq!(pool.join(|| deep(10_000), || 0), (10_000, 0));
        let name = pool.submit(|| std::thread::current().name().map(str::to_owned)).unwrap();
        let name = name.join().unwrap().expect("workers are named");
        assert!(name.starts_with("deep-"), "a worker named {name}");
    });
}

/// Two pools of one worker each, each worker waiting on a task of the other pool that needs
/// its own pool: a task in pool 1 submits to pool 2 and joins, and that task submits back to
/// pool 1 and joins. The worker of pool 1 must run pool 1's task while it waits; a worker that
/// only sleeps on another pool's handle deadlocks both (tried: every run hung). Both directions,
/// and with the workers first gone to sleep.
fn two_pools_waiting_on_each_other_finish<I: WaitOps + 'static>() {
    within(30, "two one-worker pools installing into each other", || {
        for sleepy in [false, true] {
            let p1: Arc<ThreadPoolWith<I>> = Arc::new(ThreadPoolWith::new(1));
            let p2: Arc<ThreadPoolWith<I>> = Arc::new(ThreadPoolWith::new(1));
            if sleepy {
                std::thread::sleep(Duration::from_millis(20)); // both workers park
            }
            for (from, to) in [(&p1, &p2), (&p2, &p1)] {
                let (back, there) = (from.clone(), to.clone());
                let h = from
                    .submit(move || {
                        let back = back.clone();
                        there
                            .submit(move || back.submit(|| 7).unwrap().join().unwrap())
                            .unwrap()
                            .join()
                            .unwrap()
                    })
                    .unwrap();
                assert_eq!(h.join().unwrap(), 7);
            }
        }
    });
}

/// A task that holds the last handle of its own pool drops it: the pool cannot join the thread
/// it is running on, so it joins the others and leaves that one to finish. (Joining it made the
/// task panic with "failed to join thread: Resource deadlock avoided": tried.)
fn a_pool_dropped_on_its_own_worker_returns_the_result<I: WaitOps + 'static>() {
    within(30, "a pool dropped by its own task", || {
        let pool: Arc<ThreadPoolWith<I>> = Arc::new(ThreadPoolWith::new(2));
        let (go, wait) = mpsc::channel::<()>();
        let last = pool.clone();
        let h = pool
            .submit(move || {
                wait.recv().unwrap(); // until the outside handle is gone
                drop(last);
                7
            })
            .unwrap();
        drop(pool);
        go.send(()).unwrap();
        assert_eq!(h.join().expect("the task returns its value"), 7);
    });
}

fn stats_report_the_pool<I: WaitOps + 'static>() {
    within(30, "stats", || {
        let pool: ThreadPoolWith<I> = ThreadPoolWith::new(3);
        let s = pool.stats();
        assert_eq!((s.parallelism, s.queued_task_count, s.panics), (3, 0, 0));
        for _ in 0..100 {
            pool.submit(|| ()).unwrap().join().unwrap();
        }
        let s = pool.shutdown();
        assert_eq!(s.steal_count, 100, "every externally submitted task is a steal");
    });
}

seam::tests!(
    ch07_pool;
    fib_without_cutoff_at_parallelism_1_2_4,
    a_panic_reaches_the_joiner_and_the_pool_goes_on,
    ten_thousand_panics_among_a_million_tasks,
    shutdown_under_load_loses_nothing,
    submissions_racing_close_lose_nothing,
    detached_forks_run_before_shutdown,
    each_waiting_fork_gets_a_worker,
    a_forked_handle_is_joined_outside_its_pool,
    a_lone_worker_runs_what_it_waits_for,
    looked_empty_reads_the_slot_below_the_new_task,
    leaves_work_reads_the_slot_at_base,
    help_until_returns_only_when_done,
    await_work_retracts_or_parks,
    a_join_after_close_says_the_pool_is_closed,
    a_nested_panic_is_counted_once,
    a_built_pool_has_the_stacks_and_names_asked_for,
    two_pools_waiting_on_each_other_finish,
    a_pool_dropped_on_its_own_worker_returns_the_result,
    stats_report_the_pool,
);

/// A worker that dies outside any task (here an `await_work` that panics: a reader's stub with
/// its `todo!()` does the same) breaks the pool. A thread that waits for a task from outside
/// gives up instead of hanging, and says which panic broke the pool, so that a report card can
/// show it (the worker's own message is lost with a test process that aborts).
#[test]
fn a_broken_pool_names_the_panic_that_broke_it() {
    struct PanicsWhenIdle;
    impl WaitOps for PanicsWhenIdle {
        fn await_work(_: &ch07_pool::Sleep, _: usize, _: impl Fn() -> bool) {
            panic!("an await_work that panics");
        }
        fn looked_empty<T>(q: &ch04_grow::WorkQueue<T>) -> bool {
            ch07_pool::Reference::looked_empty(q)
        }
        fn leaves_work<T>(q: &ch04_grow::WorkQueue<T>) -> bool {
            ch07_pool::Reference::leaves_work(q)
        }
        fn help_until(done: impl Fn() -> bool, run_one: impl FnMut() -> bool) {
            ch07_pool::Reference::help_until(done, run_one)
        }
    }
    let why = within(30, "waiting on a broken pool", || {
        let pool: ThreadPoolWith<PanicsWhenIdle> = ThreadPoolWith::new(1);
        // The worker runs a task submitted before it first goes idle: try until one waits in vain.
        let why = (0..1000).find_map(|_| {
            let handle = pool.submit(|| 1).ok()?;
            let waited = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle.join()));
            waited.err().and_then(|p| p.downcast_ref::<String>().cloned())
        });
        let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(pool)));
        assert!(dropped.is_err(), "dropping the pool reports the worker that died");
        why
    });
    let why = why.expect("a wait gave up on the broken pool");
    assert!(why.contains("an await_work that panics"), "the waiter's message: {why}");
}

/// A handle dropped unjoined, before its task ran and after it finished, and one joined: each
/// task's closure and result are dropped exactly once (a leak counts 0, a double free 2 or a
/// crash). The task and its handle share one allocation and no reference count; whichever is
/// done with it last frees it (`src/done.rs`, `Done::let_go`).
#[test]
fn a_dropped_handle_frees_its_task_once() {
    /// Counts its drops.
    struct Counted(Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Relaxed); // Relaxed: read after the pool's shutdown
        }
    }
    within(30, "dropped handles", || {
        let pool = ch07_pool::ThreadPool::new(1);
        let drops = Arc::new(AtomicUsize::new(0));
        let (go, gate) = mpsc::channel::<()>();
        // Before it ran: the task waits at the gate until its handle is gone.
        let (captured, result) = (Counted(drops.clone()), Counted(drops.clone()));
        let early = pool.submit(move || {
            gate.recv().unwrap();
            drop(captured);
            result
        });
        drop(early.unwrap());
        go.send(()).unwrap();
        // After it finished.
        let result = Counted(drops.clone());
        let late = pool.submit(move || result).unwrap();
        while !late.is_done() {
            std::thread::yield_now();
        }
        drop(late);
        // Joined: the caller drops the result.
        let result = Counted(drops.clone());
        drop(pool.submit(move || result).unwrap().join().unwrap());
        pool.shutdown();
        assert_eq!(drops.load(Relaxed), 4, "2 results and 1 capture of dropped handles, 1 joined");
    });
}
