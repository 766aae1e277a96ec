//! Under loom: the atomics every chapter uses, each access written down with the line that made
//! it, so that a failing model prints the execution that broke it as a timeline: one column per
//! thread, each atomic operation in the order loom ran it, with its ordering and the value read
//! or written, and the source lines quoted below (the reader's `exercise.rs` among them).
//!
//! Loom checks one execution at a time; [`model`] clears the log at the start of each, and a
//! panic hook prints it when an execution fails (an assertion, a causality violation, a
//! deadlock). Each access is logged when it takes effect (loom may switch threads inside one,
//! before it does); those begun and never finished come last, marked `>>`: the access loom
//! stopped on is among them.

use std::panic::Location;
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, Once};

use loom::sync::atomic::Ordering;

mod render;
use render::render;

/// What one access read or wrote.
#[derive(Clone, Copy)]
pub(crate) enum Value {
    Int(i128),
    Ptr(usize),
    /// Not finished: loom stopped inside it.
    Pending,
}

pub(crate) struct Event {
    /// Which `begin` made it.
    pub(crate) id: usize,
    pub(crate) thread: String,
    pub(crate) at: &'static Location<'static>,
    pub(crate) op: &'static str,
    pub(crate) order: Option<Ordering>,
    /// The operand: a store's value, a CAS's expected and new values, an add's amount.
    pub(crate) arg: Option<(Value, Option<Value>)>,
    pub(crate) result: Value,
    /// For a CAS: whether it succeeded.
    pub(crate) ok: Option<bool>,
}

/// The current execution's accesses, in the order they took effect, then those begun and not
/// finished (loom may switch threads inside an access, before it takes effect); `printed` once
/// it has been shown.
struct Log {
    events: Vec<Event>,
    next_id: usize,
    printed: bool,
}

static LOG: Mutex<Log> = Mutex::new(Log { events: Vec::new(), next_id: 0, printed: false });
static HOOK: Once = Once::new();

fn log() -> std::sync::MutexGuard<'static, Log> {
    LOG.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Whether a SeqCst load is modelled with a SeqCst fence before it (see `load`): set by
/// [`model_fencing_seqcst_loads`] for its models, cleared by [`model`]. One flag for the
/// process: a test binary that used both kinds of model would have to run its models one at a
/// time, as every loom run of this project does (`--test-threads=1`); each uses one kind.
static FENCE_SEQCST_LOADS: AtomicBool = AtomicBool::new(false);

/// `loom::model`, with this log cleared before each execution and printed if one fails. A
/// SeqCst load is loom's own: loom treats SeqCst accesses as AcqRel (loom issue #180), with
/// one rule more for a SeqCst load: it reads no SeqCst store older than the newest SeqCst store
/// to its location (loom 0.7, `match_load_to_stores`; a location's first value does not count
/// as a SeqCst store). It stands no fence before it, so a Relaxed read followed by a SeqCst
/// load of another location stays as unordered as C++20 leaves it, and loom finds what that
/// breaks (chapters 2 and 6 have mutants of it).
pub fn model<F: Fn() + Sync + Send + 'static>(f: F) {
    model_with(false, f);
}

/// [`model`] for code whose argument needs SeqCst loads to be SeqCst (chapter 7's signal
/// rule: a SeqCst write, then a SeqCst load of another location, on both sides; one side must
/// see the other's write). Each SeqCst load is modelled as a SeqCst fence, then the load,
/// which gives C++20's answer there. The fence gives more than a SeqCst load does:
/// - it orders what the thread did before it: a Relaxed read followed by any SeqCst load
///   passes here as if it were Acquire;
/// - loom's SeqCst fence is stronger than C++20's: it joins one clock shared by every SeqCst
///   fence (loom 0.7, `seq_cst_fence`), so a thread after its fence is ordered after all that
///   another thread did before an earlier SeqCst fence, as if the two synchronized.
///
/// These models cannot tell those apart from what C++20 promises.
pub fn model_fencing_seqcst_loads<F: Fn() + Sync + Send + 'static>(f: F) {
    model_with(true, f);
}

fn model_with<F: Fn() + Sync + Send + 'static>(fence_seqcst_loads: bool, f: F) {
    // Relaxed: loom runs a model's threads on this thread, after this store.
    FENCE_SEQCST_LOADS.store(fence_seqcst_loads, std::sync::atomic::Ordering::Relaxed);
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let text = {
                let mut log = log();
                let first = !log.printed && !log.events.is_empty();
                log.printed = true;
                first.then(|| render(&log.events))
            };
            if let Some(text) = text {
                eprintln!("{text}");
            }
            previous(info);
        }));
    });
    loom::model(move || {
        {
            let mut log = log();
            log.events.clear();
            log.printed = false;
        }
        f();
    });
}

#[track_caller]
fn begin(op: &'static str, order: Option<Ordering>, arg: Option<(Value, Option<Value>)>) -> usize {
    let thread = format!("{:?}", loom::thread::current().id());
    let mut log = log();
    if log.events.len() > 100_000 {
        log.events.clear(); // a model run without `model`, which clears it: keep memory bounded
    }
    let at = Location::caller();
    let id = log.next_id;
    log.next_id += 1;
    log.events.push(Event { id, thread, at, op, order, arg, result: Value::Pending, ok: None });
    id
}

/// The access `id` took effect: it moves to the end of the log, with its result.
fn end(id: usize, result: Value, ok: Option<bool>) {
    let mut log = log();
    if let Some(i) = log.events.iter().rposition(|e| e.id == id) {
        let mut e = log.events.remove(i);
        e.result = result;
        e.ok = ok;
        log.events.push(e);
    }
}

/// A fence, written down like an access.
#[track_caller]
pub fn fence(order: Ordering) {
    let i = begin("fence", Some(order), None);
    loom::sync::atomic::fence(order);
    end(i, Value::Int(0), None);
}

/// `new`, `into_inner`, `load`, `store`, `swap` and `compare_exchange` for a wrapper of a loom
/// atomic of values `$t`, each access written down with `$value` (`int` or `ptr`).
macro_rules! logged {
    ($loom:ty, $t:ty, $value:ident) => {
        #[track_caller] // loom names an atomic by where it was made: the caller's line
        pub fn new(v: $t) -> Self {
            Self(<$loom>::new(v))
        }
        pub fn into_inner(self) -> $t {
            self.0.into_inner()
        }
        /// Loom treats SeqCst accesses as AcqRel (loom issue #180: two threads that each
        /// store, then load the other's location, may both read the old values), with one
        /// rule more for a SeqCst load (see [`model`]), and only its fences as SeqCst. Under
        /// [`model_fencing_seqcst_loads`] a SeqCst load is modelled as a SeqCst fence, then
        /// the load; under [`model`], as loom's own load.
        #[track_caller]
        pub fn load(&self, order: Ordering) -> $t {
            let i = begin("load", Some(order), None);
            // Relaxed: set before the model's threads started (`model_with`).
            let fence = FENCE_SEQCST_LOADS.load(std::sync::atomic::Ordering::Relaxed);
            if order == Ordering::SeqCst && fence {
                loom::sync::atomic::fence(Ordering::SeqCst);
            }
            let v = self.0.load(order);
            end(i, $value(v), None);
            v
        }
        #[track_caller]
        pub fn store(&self, v: $t, order: Ordering) {
            let i = begin("store", Some(order), Some(($value(v), None)));
            self.0.store(v, order);
            end(i, $value(v), None);
        }
        #[track_caller]
        pub fn swap(&self, v: $t, order: Ordering) -> $t {
            let i = begin("swap", Some(order), Some(($value(v), None)));
            let old = self.0.swap(v, order);
            end(i, $value(old), None);
            old
        }
        #[track_caller]
        pub fn compare_exchange(
            &self,
            current: $t,
            new: $t,
            success: Ordering,
            failure: Ordering,
        ) -> Result<$t, $t> {
            let i = begin("cas", Some(success), Some(($value(current), Some($value(new)))));
            let r = self.0.compare_exchange(current, new, success, failure);
            let (Ok(was) | Err(was)) = r;
            end(i, $value(was), Some(r.is_ok()));
            r
        }
    };
}

/// An atomic integer: `logged!`'s operations, and the two read-modify-writes the chapters use
/// (`add_or_sub!`).
macro_rules! atomic_int {
    ($name:ident, $t:ty) => {
        /// Loom's atomic of the same name, each access written down (see the module).
        #[derive(Debug)]
        pub struct $name(loom::sync::atomic::$name);

        impl Default for $name {
            #[track_caller]
            fn default() -> Self {
                Self::new(0)
            }
        }

        impl $name {
            logged!(loom::sync::atomic::$name, $t, int);
            add_or_sub!(fetch_add, "add", $t);
            add_or_sub!(fetch_sub, "sub", $t);
        }
    };
}

/// `fetch_add` or `fetch_sub`, written down.
macro_rules! add_or_sub {
    ($method:ident, $op:literal, $t:ty) => {
        #[track_caller]
        pub fn $method(&self, v: $t, order: Ordering) -> $t {
            let i = begin($op, Some(order), Some((int(v), None)));
            let old = self.0.$method(v, order);
            end(i, int(old), None);
            old
        }
    };
}

/// An integer as a logged value (every atomic integer here fits an `i128`).
fn int(v: impl TryInto<i128>) -> Value {
    v.try_into().map_or(Value::Pending, Value::Int)
}

atomic_int!(AtomicI32, i32);
atomic_int!(AtomicU32, u32);
atomic_int!(AtomicU64, u64);
atomic_int!(AtomicUsize, usize);

/// Loom's `AtomicPtr`, each access written down (see the module).
#[derive(Debug)]
pub struct AtomicPtr<T>(loom::sync::atomic::AtomicPtr<T>);

impl<T> Default for AtomicPtr<T> {
    #[track_caller]
    fn default() -> Self {
        Self::new(std::ptr::null_mut())
    }
}

/// A pointer as a logged value.
fn ptr<T>(p: *mut T) -> Value {
    Value::Ptr(p.addr())
}

impl<T> AtomicPtr<T> {
    logged!(loom::sync::atomic::AtomicPtr<T>, *mut T, ptr);
}
