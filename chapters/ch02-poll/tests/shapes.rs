//! crossbeam-deque's test shapes (`seam::shapes`) against chapter 2's queue: a fixed ring,
//! sized to hold each shape's tasks, whose thieves run the `poll` under test.
#![cfg(not(loom))]

use std::marker::PhantomData;

use ch02_poll::{Owner, PollOps, Stealer, new_with};
use seam::shapes::Deque;

/// Chapter 2's queue with thieves running `P`.
struct Ring<P>(PhantomData<P>);

impl<P: PollOps + 'static> Deque for Ring<P> {
    type Owner<T: Send + 'static> = Owner<T>;
    type Stealer<T: Send + 'static> = Stealer<T, P>;
    fn new<T: Send + 'static>(tasks: usize) -> (Owner<T>, Stealer<T, P>) {
        new_with::<T, P>(tasks.next_power_of_two().max(2))
    }
    fn push<T: Send + 'static>(owner: &Owner<T>, task: T) -> Result<(), T> {
        owner.push(task).map_err(|full| full.into_task())
    }
    fn pop<T: Send + 'static>(owner: &Owner<T>) -> Option<T> {
        owner.pop()
    }
    fn steal<T: Send + 'static>(stealer: &Stealer<T, P>) -> Option<T> {
        stealer.poll()
    }
    fn len<T: Send + 'static>(owner: &Owner<T>) -> usize {
        owner.len()
    }
}

seam::shapes!(ch02_poll, Ring);
