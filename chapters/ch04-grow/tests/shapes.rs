//! crossbeam-deque's test shapes (`seam::shapes`) against chapter 4's queue: it starts at 2
//! slots, whatever a shape will push, so that every shape grows it while thieves steal.
#![cfg(not(loom))]

use std::marker::PhantomData;

use ch04_grow::{GrowOps, Owner, Stealer, new_with};
use seam::shapes::Deque;

/// Chapter 4's queue, growing through `G`.
struct Growing<G>(PhantomData<G>);

impl<G: GrowOps + 'static> Deque for Growing<G> {
    type Owner<T: Send + 'static> = Owner<T, G>;
    type Stealer<T: Send + 'static> = Stealer<T>;
    fn new<T: Send + 'static>(_tasks: usize) -> (Owner<T, G>, Stealer<T>) {
        new_with::<T, G>(2, 1 << 30)
    }
    fn push<T: Send + 'static>(owner: &Owner<T, G>, task: T) -> Result<(), T> {
        owner.push(task).map_err(|full| full.into_task())
    }
    fn pop<T: Send + 'static>(owner: &Owner<T, G>) -> Option<T> {
        owner.pop()
    }
    fn steal<T: Send + 'static>(stealer: &Stealer<T>) -> Option<T> {
        stealer.poll()
    }
    fn len<T: Send + 'static>(owner: &Owner<T, G>) -> usize {
        owner.len()
    }
}

seam::shapes!(ch04_grow, Growing);
