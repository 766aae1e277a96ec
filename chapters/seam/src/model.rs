//! What every chapter's loom models share (compiled only under `--cfg loom`): a task whose
//! contents loom watches, and the exactly-once check.

use loom::cell::UnsafeCell;

/// A task whose contents loom watches: written by the owner when made, read by whoever
/// takes it. A take that does not synchronize with the push is a causality violation.
pub struct Task {
    /// Which task (0, 1, ...).
    pub id: usize,
    data: UnsafeCell<usize>,
}

/// Task `id`, carrying `id * 10`.
pub fn task(id: usize) -> Task {
    Task { id, data: UnsafeCell::new(id * 10) }
}

/// Reads the contents (loom checks the read is ordered after the owner's write) and
/// returns the id.
pub fn run(t: Task) -> usize {
    // SAFETY: whoever holds the Task owns it; loom checks the ordering of this read.
    let data = t.data.with(|p| unsafe { *p });
    assert_eq!(data, t.id * 10, "task {} carried the wrong contents", t.id);
    t.id
}

/// Asserts that every id in `0..n` appears exactly once across the lists.
pub fn exactly_once(n: usize, lists: &[&[usize]]) {
    let mut seen = vec![0; n];
    for &id in lists.iter().flat_map(|l| l.iter()) {
        seen[id] += 1;
    }
    assert!(
        seen.iter().all(|&c| c == 1),
        "each task taken exactly once, got counts {seen:?} from {lists:?}"
    );
}
