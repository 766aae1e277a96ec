//! Chapter 1: a single-owner ring in the shape of JDK 25's `ForkJoinPool.WorkQueue`.
//!
//! One thread owns the ring. It pushes at `top` and takes either from `top - 1`
//! (LIFO, the default of `WorkQueue.nextLocalTask`) or from `base` (FIFO, the
//! `asyncMode` of a pool). Indices are Java `int`s that move by one and wrap;
//! the slot of index `i` is `i & (capacity - 1)` in a power-of-two array that doubles
//! when it fills. Nothing here is shared yet: chapter 2 lets thieves in.
//!
//! The crate is split the way the exercise is:
//! - [`RawRing`]: the fields and their invariants;
//! - [`ops`]: the mechanism (`slot_of`, `push`, `pop`, `poll_fifo`, `grow`), which is
//!   also the reference solution of the exercise;
//! - [`Ring`]: the API a reader uses, generic over which mechanism runs it
//!   ([`Reference`] by default, `exercise::Exercise` when the grader asks);
//! - [`table`]: a text picture of the slots for probes and notebooks.

mod error;
/// The mechanism: `slot_of`, `push`, `grow`, `pop`, `poll_fifo` (the reference solution).
pub mod ops;
mod raw;
mod ring;
pub mod table;

pub use error::Full;
pub use raw::{DEFAULT_MAX_CAPACITY, INITIAL_QUEUE_CAPACITY, RawRing};
pub use ring::{Reference, Ring, RingOps};

/// The reader's exercise, compiled only with `--features exercise` (the grader's switch).
///
/// The file is `src/exercise.rs` unless `GRADE_EXERCISE_FILE` names another one
/// (the grader uses that to check the reference and the mutants); see `build.rs`.
#[cfg(feature = "exercise")]
pub mod exercise {
    include!(env!("EXERCISE_FILE"));

    /// The exercise's functions, plugged into [`Ring`](crate::Ring) like [`Reference`](crate::Reference).
    pub struct Exercise;
    crate::ring::impl_ring_ops!(Exercise, "exercise");
}
