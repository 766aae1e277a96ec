//! Who pays for the pin's fence: the thief on every steal, or the seal once a batch.
//!
//! A pin and a seal meet as in Dekker's algorithm (`pins.rs`): the thief marks its counter,
//! then reads slots; the seal empties slots, then reads counters. Each side needs a full fence
//! between its write and its reads, and the thief's side runs on every steal, the seal's once
//! per [`BATCH`](crate::BATCH) takes. Linux's `membarrier` moves the cost to the rare side:
//! with `MEMBARRIER_CMD_PRIVATE_EXPEDITED` the seal makes every thread of this process that is
//! running now execute a full fence (an interrupt to each of their cores) before the call
//! returns, and a thread that is not running has already passed one, in its context switch.
//! The thief then needs only to keep the *compiler* from moving its slot reads above its mark.
//! (Userspace RCU and folly's hazard pointers use the same pairing, the "asymmetric fence".)
//!
//! Why that is enough, for a pinning thread P and a seal S. P's fence, forced by S, falls at
//! some point of P's program. If it falls before P's mark, P's slot reads come after it, so
//! after S's call began, and S's takes (which S ordered before its call) are visible to them:
//! P reads the slot emptied. If it falls after P's mark, the mark is visible before S's call
//! returns, so S's look at the counters, after the call, sees P pinned and waits for it.
//!
//! Where `membarrier` is missing (not Linux, an old kernel, a sandbox that forbids it) the
//! thief keeps its full fence (`pins.rs`), and a seal's own fence pairs with it. Loom cannot
//! model `membarrier`: its models check the symmetric pair, of which this is an implementation.

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

const UNDECIDED: u8 = 0;
/// Seals call `membarrier`; pins only fence the compiler.
const ASYMMETRIC: u8 = 1;
/// Each side fences for itself.
const SYMMETRIC: u8 = 2;

/// Decided once, before the first pin of the first registered thread (`decide`), and never
/// changed after: a pin that sees [`ASYMMETRIC`] pairs with seals that all see it too, since a
/// seal decides (or reads the decision) before it looks at any counter.
static MODE: AtomicU8 = AtomicU8::new(UNDECIDED);

/// Whether pins may leave their fence to the seals. Relaxed: the value never changes once it
/// is not [`UNDECIDED`], and a pin that reads a stale `UNDECIDED` just fences for itself.
#[inline(always)] // on every steal
pub(crate) fn seals_fence_for_pins() -> bool {
    MODE.load(Relaxed) == ASYMMETRIC
}

/// Chooses the mode, once: asymmetric if this process could register for expedited
/// `membarrier`. Called when a thread first registers its pin counter, and by every seal.
pub(crate) fn decide() -> bool {
    let mode = MODE.load(Relaxed); // Relaxed: see `seals_fence_for_pins`
    if mode != UNDECIDED {
        return mode == ASYMMETRIC;
    }
    // `RECLAIM_FENCE=symmetric` keeps the fence on the pins: to time the difference, and for
    // the tests to run that path where `membarrier` works (`scripts/test.sh`).
    let forced = std::env::var_os("RECLAIM_FENCE").is_some_and(|v| v == "symmetric");
    let chosen = if !forced && register() { ASYMMETRIC } else { SYMMETRIC };
    // Two threads may both register; registering twice is harmless, and both choose alike.
    // Relaxed: the registration is the kernel's state, not this variable's.
    let _ = MODE.compare_exchange(UNDECIDED, chosen, Relaxed, Relaxed);
    MODE.load(Relaxed) == ASYMMETRIC
}

/// Who fences for a pin, for the probes' labels: `membarrier` (the seals) or `fence` (each pin).
pub(crate) fn label() -> &'static str {
    if decide() { "membarrier" } else { "fence" }
}

/// The seal's side: after the seal's takes, before its look at the counters. A full fence for
/// this thread and, where pins leave theirs to seals, one on every running thread.
pub(crate) fn heavy_fence() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst); // SeqCst: the seal's own
    if decide() {
        let done = expedited();
        // Registration succeeded, so the call cannot fail but by a kernel bug: then no pin
        // would be safe, and no value can be returned that is.
        assert!(done, "membarrier failed after its registration");
    }
}

#[cfg(target_os = "linux")]
fn register() -> bool {
    membarrier(libc::MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED)
}

#[cfg(target_os = "linux")]
fn expedited() -> bool {
    membarrier(libc::MEMBARRIER_CMD_PRIVATE_EXPEDITED)
}

#[cfg(target_os = "linux")]
fn membarrier(cmd: libc::c_int) -> bool {
    // SAFETY: `membarrier(cmd, flags = 0, cpu_id = 0)` reads no memory of ours.
    unsafe { libc::syscall(libc::SYS_membarrier, cmd, 0, 0) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn register() -> bool {
    false
}

#[cfg(not(target_os = "linux"))]
fn expedited() -> bool {
    false
}
