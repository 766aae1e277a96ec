//! [`ThreadPool`] itself: start (its [`Builder`]), submit, join from outside, stats, close and
//! shutdown.

use super::*;

/// The pool, with the reference waiting and waking: the everyday name.
///
/// ```
/// let pool = ch07_pool::ThreadPool::new(4);
/// assert_eq!(pool.join(|| 1 + 1, || 2 + 2), (2, 4));
/// ```
pub type ThreadPool = ThreadPoolWith<Reference>;

/// A work-stealing pool built from chapters 1-6: `parallelism` workers, each owning a queue at
/// an odd index; external submission through chapter 5's submission queues; fork/join with
/// helping; idle workers park and are signalled. Generic over its waiting and waking `I`
/// (the reference, as [`ThreadPool`], or the reader's exercise, which the grader plugs in).
pub struct ThreadPoolWith<I: WaitOps> {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    ops: PhantomData<fn() -> I>,
}

impl<I: WaitOps> ThreadPoolWith<I> {
    /// A pool of `parallelism` (at least 1) worker threads, with the default stack size and
    /// thread names `ch07-worker-N`. [`Builder`] sets the others.
    pub fn new(parallelism: usize) -> Self {
        Builder::new(parallelism).build_with::<I>()
    }

    fn start(b: Builder) -> Self {
        let parallelism = b.parallelism;
        assert!(parallelism >= 1, "a pool needs at least one worker");
        let len = queues_len(parallelism);
        let shared = Arc::new(Shared {
            queues: Queues::new(len, parallelism, 0),
            nsteals: (0..len).map(|_| CachePadded::new(AtomicU32::new(0))).collect(),
            steal_count: AtomicU64::new(0),
            sleep: CachePadded::new(Sleep::new(parallelism)),
            submitting: CachePadded::new(AtomicUsize::new(0)),
            shutdown: AtomicBool::new(false),
            panics: AtomicU64::new(0),
            broken: AtomicBool::new(false),
            broken_by: std::sync::Mutex::new(None),
            parallelism,
            rule: Rule::of::<I>(),
        });
        let workers = (0..parallelism)
            .map(|w| {
                let shared = shared.clone();
                let thread = std::thread::Builder::new().name(format!("{}{w}", b.name_prefix));
                let thread = match b.stack_size {
                    Some(bytes) => thread.stack_size(bytes),
                    None => thread,
                };
                thread.spawn(move || worker_thread::<I>(&shared, w)).expect("spawn a worker thread")
            })
            .collect();
        ThreadPoolWith { shared, workers, ops: PhantomData }
    }

    /// Runs `f` on the pool and returns a handle to its result. From outside the pool the task
    /// goes to a submission queue, from a worker to its own queue. After `shutdown` the task is
    /// rejected and handed back inside the error.
    pub fn submit<F, R>(&self, f: F) -> Result<Handle<R>, Rejected<F>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        submit_to::<I, F, R>(&self.shared, f)
    }

    /// Runs `a` and `b`, possibly in parallel, and returns both results. Called from a worker of
    /// this pool it forks `b` and runs `a` itself; from outside it submits the whole join and
    /// waits. A panic in either reaches the caller (after both have finished).
    ///
    /// # Panics
    /// After [`close`](Self::close) or [`shutdown`](Self::shutdown), from outside the pool: the
    /// pool accepts no new task. [`try_join`](Self::try_join) says so with an error instead.
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.try_join(a, b).unwrap_or_else(|_| {
            panic!(
                "ThreadPool::join called after the pool was closed: a closed pool accepts no new \
                 task (try_join returns the error instead)"
            )
        })
    }

    /// [`join`](Self::join), or, when the pool is closed and this is called from outside it,
    /// `Err(Rejected((a, b)))`: both closures back, unrun. (On one of its workers a join always
    /// runs: a fork that the closed pool rejects runs in place.)
    pub fn try_join<A, B, RA, RB>(&self, a: A, b: B) -> Result<(RA, RB), Rejected<(A, B)>>
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        if on_worker_of(&self.shared).is_some() {
            return Ok(join_in_task(a, b)); // on a worker, a rejected fork runs in place
        }
        // From outside, the whole join is one task that lives in this frame, as join_in_task's
        // fork does, and for the same reason may borrow: this call neither returns nor unwinds
        // before the task has run. The pair waits in a cell, so that a rejected join can give
        // it back (a closure's captures cannot be taken out of it).
        let pair = std::sync::Mutex::new(Some((a, b)));
        let job = Pending::new(|| {
            let taken = pair.lock().unwrap_or_else(|e| e.into_inner()).take();
            let (a, b) = taken.expect("a submitted join runs once");
            join_in_task(a, b)
        });
        // SAFETY: `job` stays in this frame until its slot is done (below); nothing unwinds out
        // of the frame meanwhile (a panic in the wait aborts).
        let task = unsafe { job.on_stack() };
        if let Err(unrun) = push(&self.shared, None, task) {
            drop(unrun); // a rejected task never ran, and an on-stack one drops to nothing
            drop(job); // its closure borrows `pair`
            let taken = pair.into_inner().unwrap_or_else(|e| e.into_inner());
            return Err(Rejected(taken.expect("a rejected join never ran")));
        }
        let pool: Helps = wait_or_help::<I>;
        let waited = catch_unwind(AssertUnwindSafe(|| {
            wait_until(&job.slot.done, Some((&self.shared, pool)))
        }));
        if let Err(panic) = waited {
            abort_in_join(Some(&*panic)); // e.g. the pool broke: the task may still run later
        }
        // SAFETY: `done` is true: the task has stored its result and will not touch `job`.
        let result = unsafe { job.slot.take() };
        Ok(result.unwrap_or_else(|p| resume_unwind(p)))
    }

    /// Parallelism, steal count, queued tasks, sleepers and panics, read without stopping anyone.
    pub fn stats(&self) -> Stats {
        let s = &self.shared;
        Stats {
            parallelism: s.parallelism,
            steal_count: get_steal_count(&s.steal_count, &s.nsteals),
            queued_task_count: s.queues.iter().map(|(_, q)| q.work().len()).sum(),
            sleeping: s.sleep.sleeping(),
            panics: s.panics.load(Relaxed),
        }
    }

    /// Stops accepting tasks; runs every task already accepted; stops and joins the workers.
    /// Returns the final stats (the steal count is exact). [JDK: `shutdown` + `awaitTermination`]
    pub fn shutdown(mut self) -> Stats {
        self.stop();
        self.stats()
    }

    /// Stops accepting tasks: every later `submit` (and every `fork` inside a task) is rejected
    /// with its task handed back. Tasks already accepted still run. [JDK: `shutdown`, which
    /// rejects only outside submissions: a worker's fork still goes into its queue]
    pub fn close(&self) {
        // SeqCst: pairs with `push`'s announce-then-check and with `may_exit`.
        self.shared.shutdown.store(true, SeqCst);
        self.shared.sleep.signal_all();
    }

    /// Closes, then joins the workers. Dropped on one of its own workers (a task held the last
    /// handle), the pool cannot join the thread it runs on: that worker is left to finish on its
    /// own (it exits once every queue is empty) and the others are joined.
    fn stop(&mut self) {
        self.close();
        if on_worker_of(&self.shared).is_some() {
            let me = std::thread::current().id();
            self.workers.retain(|w| w.thread().id() != me); // detached, not joined
        }
        join_workers(&mut self.workers);
    }
}

/// How to start a pool: parallelism, each worker's stack size, its threads' names. [rayon:
/// `ThreadPoolBuilder`; JDK: the `ForkJoinPool` constructor's parallelism and thread factory]
///
/// A worker's stack grows with helping: a worker that waits for a forked task runs other tasks
/// on top of the waiting frame, and they may wait and help in turn, so a deep recursion forked
/// on one worker can nest many frames per level. Give such a pool larger stacks.
///
/// ```
/// let pool = ch07_pool::Builder::new(2).stack_size(16 << 20).thread_name("fib-").build();
/// assert_eq!(pool.join(|| 1, || 2), (1, 2));
/// ```
#[derive(Clone, Debug)]
pub struct Builder {
    parallelism: usize,
    /// Bytes per worker stack; `None`: the standard library's default (2 MiB today).
    stack_size: Option<usize>,
    name_prefix: String,
}

impl Builder {
    /// `parallelism` workers (at least 1), default stacks, threads named `ch07-worker-N`.
    pub fn new(parallelism: usize) -> Builder {
        Builder { parallelism, stack_size: None, name_prefix: "ch07-worker-".into() }
    }

    /// Each worker thread's stack, in bytes.
    pub fn stack_size(mut self, bytes: usize) -> Builder {
        self.stack_size = Some(bytes);
        self
    }

    /// Worker threads are named `prefix` followed by their number.
    pub fn thread_name(mut self, prefix: impl Into<String>) -> Builder {
        self.name_prefix = prefix.into();
        self
    }

    /// Starts the pool, with the reference mechanism.
    pub fn build(self) -> ThreadPool {
        self.build_with::<Reference>()
    }

    /// Starts the pool with the waiting and waking of `I` (the grader's `Exercise`).
    pub fn build_with<I: WaitOps>(self) -> ThreadPoolWith<I> {
        ThreadPoolWith::start(self)
    }
}

impl<I: WaitOps> Drop for ThreadPoolWith<I> {
    fn drop(&mut self) {
        self.stop();
    }
}

fn submit_to<I: WaitOps, F, R>(shared: &Arc<Shared>, f: F) -> Result<Handle<R>, Rejected<F>>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let task = spawn(shared, on_worker_of(shared), f)?;
    Ok(Handle { task, pool: Some((shared.clone(), wait_or_help::<I>)) })
}
