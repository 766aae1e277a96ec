//! Loom models (`LOOM_MAX_PREEMPTIONS=3`) of the park/signal handshake, with idle workers and
//! a producer around a stand-in queue (a task counter): if a wake-up can be lost, some schedule
//! leaves a worker parked forever with a task waiting, and loom reports the deadlock. And of
//! fork/join on two workers over a real chapter 4 queue.
//!
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=3 cargo test -p ch07-pool --release --test loom`
#![cfg(loom)]

use ch07_pool::sync::Ordering::{Relaxed, SeqCst};
use ch07_pool::sync::{Arc, AtomicUsize};
use ch07_pool::{Sleep, WaitOps};
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
    ch07_pool::sync::model(|| {
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
    ch07_pool::sync::model(|| {
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

/// Fork/join on two workers: worker A has forked `b` into its own queue (a chapter 4 queue of
/// 4 slots) and now waits for it with `help_until`, popping its own queue; worker B polls A's
/// queue twice. Whoever gets `b` runs it; it must run exactly once, and A's wait must end in
/// every schedule, including the ones where B never gets it (A must run it itself).
fn a_forked_task_runs_once_and_the_join_ends<I: WaitOps + 'static>() {
    ch07_pool::sync::model(|| {
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

seam::tests!(
    ch07_pool;
    one_worker_one_task,
    two_workers_two_tasks,
    a_forked_task_runs_once_and_the_join_ends,
);
