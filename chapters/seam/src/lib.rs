//! The part of the exercise seam that every chapter shares (README, "How a chapter is wired").
//!
//! A chapter's checks are plain functions generic over the chapter's trait (`PollOps`,
//! `TakeOps`, ...). Two implementations exist: `Reference`, the chapter's own module, and, when
//! the grader builds with `--features exercise`, `exercise::Exercise`, the reader's file. The
//! macros here instantiate each check for both, from one list of names:
//!
//! - [`tests!`] in `tests/*.rs` (and `tests/loom.rs`): `reference::NAME` always,
//!   `exercise::NAME` under the feature, the prefix the grader filters on;
//! - [`gate!`] in `benches/gate.rs`: the benchmark gate's `main`, timing both in one run
//!   (the grader reads the times back with [`criterion::mean_ns`]).
//!
//! The chapter's build script, `exercise-build.rs` in this folder, picks which file is the
//! exercise. `shapes` holds crossbeam-deque's test shapes for the queues of chapters 2-4, and
//! `model` (under `--cfg loom`) the task and the exactly-once check of every loom model.

pub mod criterion;
mod job;
#[cfg(not(loom))]
pub use job::Job;
#[cfg(loom)]
pub mod model;
pub mod shapes;

/// Runs each named check, a function `fn NAME<X: Trait>()` of the calling file, as
/// `reference::NAME` against `$krate::Reference` and, when the calling crate is built with its
/// `exercise` feature, as `exercise::NAME` against `$krate::exercise::Exercise`.
///
/// ```ignore
/// seam::tests!(ch02_poll; poll_takes_the_oldest, empty_poll_changes_nothing);
/// ```
#[macro_export]
macro_rules! tests {
    ($krate:ident; $($name:ident),+ $(,)?) => {
        /// The checks against the chapter's reference.
        mod reference {
            $(
                #[test]
                fn $name() {
                    super::$name::<$krate::Reference>();
                }
            )+
        }

        /// The same checks against the reader's answer (`cargo grade` turns the feature on).
        #[cfg(feature = "exercise")]
        mod exercise {
            $(
                #[test]
                fn $name() {
                    super::$name::<$krate::exercise::Exercise>();
                }
            )+
        }
    };
}

/// One benchmark of a batch: push the numbers `0..$batch` with `$push` (the number is `$i`),
/// then take with `$take` until it gives `None`. Each chapter's bench runs its queue and
/// crossbeam-deque's through this one loop, so that the two measure the same work.
///
/// ```ignore
/// seam::batch_bench!(g, "crossbeam Worker", BATCH, |i| worker.push(black_box(i)), || worker.pop());
/// ```
#[macro_export]
macro_rules! batch_bench {
    ($group:expr, $name:expr, $batch:expr, |$i:ident| $push:expr, || $take:expr) => {
        $group.bench_function($name, |b| {
            b.iter(|| {
                for $i in 0..$batch {
                    $push;
                }
                while let Some(t) = $take {
                    std::hint::black_box(t);
                }
            })
        })
    };
}

/// The benchmark gate's `main`: criterion times the calling file's
/// `fn workload<X>(g: &mut BenchmarkGroup<'_, WallTime>, id: &str)` for `Reference` and
/// `Exercise` alternately, twice each, in one group `gate`. The grader keeps the faster run of
/// each side: whichever goes first on a busy machine otherwise pays for the warm-up of both.
/// The calling file brings `Reference` and `Exercise` into scope.
#[macro_export]
macro_rules! gate {
    () => {
        fn gate(c: &mut criterion::Criterion) {
            let mut g = c.benchmark_group("gate");
            for round in 1..=2 {
                workload::<Reference>(&mut g, &format!("reference-{round}"));
                workload::<Exercise>(&mut g, &format!("exercise-{round}"));
            }
            g.finish();
        }

        criterion::criterion_group!(benches, gate);
        criterion::criterion_main!(benches);
    };
}
