//! The threaded sums of the parallel MACs (PMAC's Σ, XECB-MAC's w): the xor
//! of one 16-byte value per piece of a message, the pieces shared out among
//! the calling thread and rayon's global pool.
//!
//! The calling thread works from the first moment: the pool's threads are
//! asked to join (one `spawn` each, inside [`rayon::in_place_scope`], which
//! runs its body on the calling thread) and every thread, the caller
//! included, takes the next piece from one atomic counter until none is
//! left. A pool thread that wakes late finds less work, so nobody waits
//! for the slowest start, and no piece is ever sized in advance for a
//! thread. (`par_chunks` from a thread outside the pool hands the whole
//! job to the pool and blocks the caller: its core idles while the pool's
//! threads wake, which at 1 MiB was a third of the time of the MAC on one
//! core.)
//!
//! The result does not depend on which thread takes which piece: xor is
//! associative and commutative, and each piece's value depends only on its
//! index. Cost: one atomic increment per piece and one lock per thread.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::arith::gf128::{Block, xor_in_place};

/// `work(0) xor work(1) xor ... xor work(pieces - 1)`, the pieces computed
/// by the calling thread and up to `rayon::current_num_threads() - 1` pool
/// threads. The partial sums are wiped after use (they are secret: a
/// MAC's Σ).
pub(crate) fn xor_pieces(pieces: usize, work: impl Fn(usize) -> Block + Sync) -> Block {
    let next = AtomicUsize::new(0);
    let mut total = Mutex::new([0u8; 16]);
    // Take pieces until none is left; fold this thread's xor into `total`.
    let take = || {
        let mut acc = [0u8; 16];
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= pieces {
                break;
            }
            let mut part = work(i);
            xor_in_place(&mut acc, &part);
            wipe(&mut part);
        }
        // The lock is never held while `work` runs, so it cannot be
        // poisoned; `into_inner` keeps this path free of a panic anyway.
        let mut t = total.lock().unwrap_or_else(|p| p.into_inner());
        xor_in_place(&mut t, &acc);
        wipe(&mut acc);
    };
    let helpers = rayon::current_num_threads()
        .saturating_sub(1)
        .min(pieces.saturating_sub(1));
    rayon::in_place_scope(|s| {
        for _ in 0..helpers {
            s.spawn(|_| take());
        }
        take();
    });
    // Read and wiped in place (moving it out would leave the bytes behind).
    let t = total.get_mut().unwrap_or_else(|p| p.into_inner());
    let sum = *t;
    wipe(t);
    sum
}

/// [`xor_pieces`] over `blocks` cut into pieces of `per` blocks (the last
/// one shorter): `work(start, piece)` for each, `start` the index in
/// `blocks` of the piece's first block.
pub(crate) fn xor_slices(
    blocks: &[Block],
    per: usize,
    work: impl Fn(usize, &[Block]) -> Block + Sync,
) -> Block {
    let per = per.max(1);
    xor_pieces(blocks.len().div_ceil(per), |k| {
        let start = k * per;
        let piece = blocks
            .get(start..)
            .map_or(&[][..], |r| &r[..r.len().min(per)]);
        work(start, piece)
    })
}

/// Zero a partial sum (as `crate::oracle::scratch::wipe`: plain stores kept
/// by a black box).
fn wipe(b: &mut Block) {
    *b = [0; 16];
    core::hint::black_box(&*b);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_xor_of_every_piece_once() {
        for pieces in [0usize, 1, 2, 3, 17, 100] {
            let value = |i: usize| -> Block {
                (0x9e37_79b9_7f4a_7c15u128.wrapping_mul(i as u128 + 1)).to_le_bytes()
            };
            let mut want = [0u8; 16];
            for i in 0..pieces {
                xor_in_place(&mut want, &value(i));
            }
            assert_eq!(xor_pieces(pieces, value), want, "{pieces} pieces");
        }
    }

    #[test]
    fn slices_cover_every_block_once_with_their_start() {
        let blocks: Vec<Block> = (0..100u128).map(|i| (i * 0x1_0001).to_le_bytes()).collect();
        for (len, per) in [
            (0usize, 4usize),
            (1, 4),
            (7, 4),
            (8, 4),
            (100, 7),
            (100, 100),
            (5, 0),
        ] {
            let blocks = &blocks[..len];
            let mut want = [0u8; 16];
            for b in blocks {
                xor_in_place(&mut want, b);
            }
            let got = xor_slices(blocks, per, |start, piece| {
                assert!(!piece.is_empty() && piece.len() <= per.max(1));
                assert_eq!(piece, &blocks[start..start + piece.len()]);
                assert!(start % per.max(1) == 0);
                let mut acc = [0u8; 16];
                for b in piece {
                    xor_in_place(&mut acc, b);
                }
                acc
            });
            assert_eq!(got, want, "{len} blocks, pieces of {per}");
        }
    }
}
