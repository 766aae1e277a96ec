//! The bits of the phase word, after JDK 25's `ForkJoinPool` constants.
//!
//! ```text
//!  31                              17  16  15                               0
//! +----------------------------------+----+----------------------------------+
//! |        version (15 bits)         |IDLE|       queue id (SMASK bits)      |
//! +----------------------------------+----+----------------------------------+
//! ```
//!
//! A submission queue is locked when IDLE is clear. `tryLockPhase` adds IDLE to an unlocked
//! phase: bit 16 goes from 1 to 0 and the carry adds one to the version. `unlockPhase` adds
//! IDLE again: bit 16 back to 1, version unchanged. So one lock and unlock move the word by
//! `2 * IDLE`, one step of the version field: the version counts lock cycles, which is what
//! makes it a seqlock.

// ANCHOR: constants
/// Bit 16: set when the queue is unlocked (a submission queue) or inactive (a worker's).
/// (JDK: `IDLE = 1 << 16`)
pub const IDLE: i32 = 1 << 16;
/// The low 16 bits: the queue's id. [JDK: `SMASK = 0xffff`]
pub const SMASK: i32 = 0xffff;
/// The ids an external submitter may pick: even (bit 0 clear), below 0x4000.
/// [JDK: `EXTERNAL_ID_MASK = 0x3ffe`]
pub const EXTERNAL_ID_MASK: i32 = 0x3ffe;
// ANCHOR_END: constants

/// A phase word taken apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fields {
    /// Bits 0-15.
    pub id: i32,
    /// Bit 16.
    pub idle: bool,
    /// Bits 17-31 (unsigned).
    pub version: u32,
}

/// Takes `phase` apart.
pub fn decode(phase: i32) -> Fields {
    Fields { id: phase & SMASK, idle: phase & IDLE != 0, version: (phase as u32) >> 17 }
}

/// Puts a phase word together (the inverse of [`decode`]).
pub fn encode(f: Fields) -> i32 {
    ((f.version << 17) as i32) | if f.idle { IDLE } else { 0 } | (f.id & SMASK)
}

/// One queue in the article's probe format: `idx=8 phase=0x000139b8 idBits=14776 IDLE=true`.
pub fn describe(index: usize, phase: i32) -> String {
    let f = decode(phase);
    format!("idx={index} phase={:#010x} idBits={} IDLE={}", phase as u32, f.id, f.idle)
}
