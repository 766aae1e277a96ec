/// Initial capacity of a worker's ring, as in the JDK (`INITIAL_QUEUE_CAPACITY = 1 << 6`).
pub const INITIAL_QUEUE_CAPACITY: usize = 1 << 6;

/// Largest capacity growth reaches by default. JDK 25 has no named limit: `growArray`
/// stops when `cap << 1` overflows an `int`, so the largest array it makes is `1 << 30`.
pub const DEFAULT_MAX_CAPACITY: usize = 1 << 30;

// ANCHOR: raw_ring
/// The state of a single-owner ring, field for field the JDK's `WorkQueue`
/// (`array`, `base`, `top`) minus everything that concerns other threads.
///
/// Invariants, kept by every function in [`ops`](crate::ops):
/// - `array.len()` is a power of two, at least 2 and at most `max_capacity`;
/// - `0 <= top.wrapping_sub(base) <= array.len()`: the ring holds `top - base` tasks;
/// - the tasks sit at the slots of indices `base, base + 1, .., top - 1`
///   (wrapping), each index `i` in slot `i & (array.len() - 1)`;
///   every other slot is `None`.
pub struct RawRing<T> {
    /// The slots. `None` is an empty slot, like a `null` in the JDK's `ForkJoinTask<?>[]`.
    pub array: Box<[Option<T>]>,
    /// Index of the oldest task: where FIFO takes (and, from chapter 2, where thieves poll).
    /// A Java `int` that wraps: compare indices only through `wrapping_sub`.
    pub base: i32,
    /// Index of the next push. Only the owner moves it; it wraps like `base`.
    pub top: i32,
    /// Growth stops here; a power of two. A push that finds the ring full at this
    /// capacity is refused with [`Full`](crate::Full).
    pub max_capacity: usize,
}
// ANCHOR_END: raw_ring

impl<T> RawRing<T> {
    /// An empty ring of `capacity` slots whose first task will get index `start`.
    ///
    /// # Panics
    /// If `capacity` or `max_capacity` is not a power of two of at least 2, or
    /// `capacity > max_capacity`: these are programming errors, not run-time conditions.
    pub fn new(capacity: usize, max_capacity: usize, start: i32) -> Self {
        assert!(
            capacity >= 2 && capacity.is_power_of_two(),
            "ring capacity must be a power of two >= 2, got {capacity}"
        );
        assert!(
            max_capacity.is_power_of_two()
                && max_capacity >= capacity
                && max_capacity <= DEFAULT_MAX_CAPACITY,
            "max capacity must be a power of two between the capacity ({capacity}) and {DEFAULT_MAX_CAPACITY}, got {max_capacity}"
        );
        RawRing { array: empty_array(capacity), base: start, top: start, max_capacity }
    }

    /// Number of tasks held: `top - base`, read as the signed difference of two wrapping indices.
    pub fn len(&self) -> usize {
        self.top.wrapping_sub(self.base) as usize
    }

    /// True when `top == base`.
    pub fn is_empty(&self) -> bool {
        self.top == self.base
    }

    /// Number of slots in the array.
    pub fn capacity(&self) -> usize {
        self.array.len()
    }
}

/// A boxed slice of `n` empty slots (works for any `T`, unlike `vec![None; n]`).
pub fn empty_array<T>(n: usize) -> Box<[Option<T>]> {
    std::iter::repeat_with(|| None).take(n).collect()
}
