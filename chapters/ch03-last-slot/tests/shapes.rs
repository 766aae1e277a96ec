//! crossbeam-deque's test shapes (`seam::shapes`) against chapter 3's queue: a fixed ring,
//! sized to hold each shape's tasks, whose owner takes with the `TakeOps` under test (LIFO
//! pops; chapter 2's `poll` for the thieves).
#![cfg(not(loom))]

use std::marker::PhantomData;

use ch03_last_slot::{Owner, Stealer, TakeOps, new_with};
use seam::shapes::Deque;

/// Chapter 3's queue with an owner taking through `O`.
struct Ring<O>(PhantomData<O>);

impl<O: TakeOps + 'static> Deque for Ring<O> {
    type Owner<T: Send + 'static> = Owner<T, O>;
    type Stealer<T: Send + 'static> = Stealer<T>;
    fn new<T: Send + 'static>(tasks: usize) -> (Owner<T, O>, Stealer<T>) {
        new_with::<T, O>(tasks.next_power_of_two().max(2))
    }
    fn push<T: Send + 'static>(owner: &Owner<T, O>, task: T) -> Result<(), T> {
        owner.push(task).map_err(|full| full.into_task())
    }
    fn pop<T: Send + 'static>(owner: &Owner<T, O>) -> Option<T> {
        owner.pop()
    }
    fn steal<T: Send + 'static>(stealer: &Stealer<T>) -> Option<T> {
        stealer.poll()
    }
    fn len<T: Send + 'static>(owner: &Owner<T, O>) -> usize {
        owner.len()
    }
}

seam::shapes!(ch03_last_slot, Ring);
