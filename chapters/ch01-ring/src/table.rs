//! A text picture of a ring: one row per slot, with `base` and `top` marked.

use std::fmt::{Debug, Write};

use crate::RawRing;
use crate::ops::slot_of;

/// Renders the slots of `q` as a table: slot number, content, and which of the
/// indices `base` and `top` (and the logical index) land on it.
///
/// ```
/// let mut ring = ch01_ring::Ring::with_capacity(4, 8);
/// ring.push('x').unwrap();
/// let t = ch01_ring::table::render(ring.raw());
/// assert!(t.contains("'x'") && t.contains("base") && t.contains("top"));
/// ```
pub fn render<T: Debug>(q: &RawRing<T>) -> String {
    let cap = q.capacity();
    let mut out = format!("capacity={cap} base={} top={} len={}\n", q.base, q.top, q.len());
    out.push_str("slot | index       | task       | marks\n");
    for (slot, task) in q.array.iter().enumerate() {
        let index = logical_index(q, slot);
        let mut marks = Vec::new();
        // Empty, base and top share a slot: both are marked. Full, top has wrapped onto base's
        // slot, which is not free: only base is marked there.
        if slot_of(cap, q.base) == slot {
            marks.push("base");
        }
        if slot_of(cap, q.top) == slot && q.len() < cap {
            marks.push("top");
        }
        let task = task.as_ref().map_or("-".to_string(), |t| format!("{t:?}"));
        let index = index.map_or("-".to_string(), |i| i.to_string());
        let row = format!("{slot:>4} | {index:>11} | {task:<10} | {}", marks.join(" "));
        let _ = writeln!(out, "{}", row.trim_end());
    }
    out
}

/// The logical index whose task sits in `slot`, if that slot is inside `base..top`.
pub fn logical_index<T>(q: &RawRing<T>, slot: usize) -> Option<i32> {
    let cap = q.capacity();
    let offset = slot.wrapping_sub(slot_of(cap, q.base)) & (cap - 1);
    (offset < q.len()).then(|| q.base.wrapping_add(offset as i32))
}
