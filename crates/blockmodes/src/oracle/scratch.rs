//! Per-call scratch space shared by the modes: a per-thread buffer (so a
//! call neither allocates nor clears kilobytes of stack before it starts)
//! and the wipe every user of it owes when done.

use core::cell::RefCell;
use std::thread::LocalKey;

use crate::arith::gf128::Block;

/// Per-thread scratch space: allocated once per thread (not zeroed per
/// call), handed to `f`, which must [`wipe`] what it used. If the thread's
/// scratch is already in use (a mode nested in another), `f` gets a fresh
/// one.
pub(crate) fn with_scratch<T: Default + 'static, R>(
    key: &'static LocalKey<RefCell<Option<Box<T>>>>,
    f: impl FnOnce(&mut T) -> R,
) -> R {
    key.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => f(slot.get_or_insert_with(Box::default)),
        Err(_) => f(&mut Box::default()),
    })
}

/// Wipe scratch blocks (offsets, chaining values, sums): plain stores the
/// compiler vectorizes, kept by an optimization barrier (as `oracle` wipes
/// its batch buffer); `zeroize` on byte arrays writes byte by byte.
#[inline(always)]
pub(crate) fn wipe(blocks: &mut [Block]) {
    // As bytes: `fill([0; 16])` came out as one 16-byte store per block.
    blocks.as_flattened_mut().fill(0);
    zeroize::optimization_barrier(blocks);
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static TEST: RefCell<Option<Box<[Block; 4]>>> = const { RefCell::new(None) };
    }

    #[test]
    fn scratch_is_reused_and_nested_calls_get_their_own() {
        with_scratch(&TEST, |outer| {
            outer[0] = [7; 16];
            with_scratch(&TEST, |inner| assert_eq!(inner[0], [0; 16]));
            wipe(&mut outer[..1]);
        });
        with_scratch(&TEST, |s| assert_eq!(s[0], [0; 16]));
    }

    #[test]
    fn wipe_clears_every_byte() {
        let mut b = [[0xa5u8; 16]; 5];
        wipe(&mut b[1..4]);
        assert_eq!(b, [[0xa5; 16], [0; 16], [0; 16], [0; 16], [0xa5; 16]]);
    }
}
