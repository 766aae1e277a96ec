//! The home that a queue's stolen boxes go back to ([`BoundHome`]): bound once, by the thread
//! that pushes there, and looked at by a thief on every steal.

use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering::Acquire, Ordering::Release};
use std::sync::{Arc, OnceLock};

use crate::Home;

/// A queue's home (chapter 4's `WorkQueue` holds one): the home of the thread that pushes
/// there, or none for a queue with many pushers (a submission queue), whose thieves keep what
/// they take.
///
/// A thief asks one question on every steal, "is this box mine?", and only when it is not
/// does it need the home itself. So beside the home, kept in a `OnceLock`, the home's address
/// waits in an atomic of its own: one load answers the question (a `OnceLock` read and an
/// `Option` were four more instructions per steal under valgrind).
///
/// Invariant: `addr` is null, or the address of the home that `home` holds, stored after
/// `home` was set. (std's atomic under loom too: one binding, before any thief of the models.)
pub struct BoundHome {
    home: OnceLock<Option<Arc<Home>>>,
    addr: AtomicPtr<Home>,
}

impl BoundHome {
    /// No home bound yet: thieves keep what they take until one is.
    pub const fn new() -> BoundHome {
        BoundHome { home: OnceLock::new(), addr: AtomicPtr::new(null_mut()) }
    }

    /// A home bound to `home` from the start.
    pub fn bound_to(home: Option<Arc<Home>>) -> BoundHome {
        let bound = BoundHome::new();
        bound.bind(home);
        bound
    }

    /// Binds `home`, once (`None`: many threads push here). Returns false if one was bound
    /// already.
    pub fn bind(&self, home: Option<Arc<Home>>) -> bool {
        let addr = home.as_ref().map_or(null_mut(), |h| Arc::as_ptr(h).cast_mut());
        let bound = self.home.set(home).is_ok();
        if bound {
            // Release: a thief whose Acquire load reads the address finds `home` set.
            self.addr.store(addr, Release);
        }
        bound
    }

    /// The bound home, if there is one.
    pub fn get(&self) -> Option<&Arc<Home>> {
        self.home.get().and_then(Option::as_ref)
    }

    /// The bound home's address, or null (none bound yet, or none). Acquire: pairs with
    /// `bind`'s store, so that `get` then finds the home.
    #[inline]
    #[cfg_attr(loom, allow(dead_code))] // under loom a thief keeps every box
    pub(crate) fn addr(&self) -> *const Home {
        self.addr.load(Acquire)
    }
}

impl Default for BoundHome {
    fn default() -> BoundHome {
        BoundHome::new()
    }
}
