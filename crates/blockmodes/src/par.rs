//! The threaded sums of the parallel MACs (PMAC's Σ, XECB-MAC's w): the xor
//! of one 16-byte value per piece of a message, the pieces shared out among
//! the calling thread and rayon's global pool.
//!
//! The calling thread works from the first moment: the pool's threads are
//! asked to join (one `spawn` each, inside [`rayon::in_place_scope`], which
//! runs its body on the calling thread), the caller takes pieces from the
//! front of the message and the pool's threads from the back, each the
//! next one not yet taken (one atomic word holds both ends), until the
//! ends meet. A pool thread that wakes late finds less work, so nobody
//! waits for the slowest start, and no piece is ever sized in advance for
//! a thread. (`par_chunks` from a thread outside the pool hands the whole
//! job to the pool and blocks the caller: its core idles while the pool's
//! threads wake, which at 1 MiB was a third of the time of the MAC on one
//! core.) Taking from the two ends keeps each thread on nearly the same
//! half of a message from one call to the next, so a message MACed again
//! is read from each core's own cache.
//!
//! When the caller runs out of pieces while a pool thread is still on its
//! last one (at most one piece, ~4 us at 64 KiB on one core), the caller
//! spins until that thread has folded its sum in, for at most 50 us,
//! instead of sleeping on the scope's latch: a sleeping caller is woken
//! by the pool thread through the kernel, which cost several
//! microseconds per call here (issue 26: 2-core Sapphire Rapids VM, 1 MiB
//! `mac_par`, median 45 -> 40 us with the spin).
//!
//! The result does not depend on which thread takes which piece: xor is
//! associative and commutative, and each piece's value depends only on its
//! index. Cost: one uncontended lock per piece and one per thread.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::arith::gf128::{Block, xor_in_place};

/// `work(0) xor work(1) xor ... xor work(pieces - 1)`, the pieces computed
/// by the calling thread and up to `rayon::current_num_threads() - 1` pool
/// threads. The partial sums are wiped after use (they are secret: a
/// MAC's Σ).
pub(crate) fn xor_pieces(pieces: usize, work: impl Fn(usize) -> Block + Sync) -> Block {
    let ends = Ends::new(pieces);
    let mut total = Mutex::new([0u8; 16]);
    // Pool threads that have begun taking pieces, and those that are done.
    let (started, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    // Take pieces from one end until the ends meet; fold this thread's xor
    // into `total`.
    let take = |back: bool| {
        let mut acc = [0u8; 16];
        while let Some(i) = ends.take(back) {
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
            s.spawn(|_| {
                started.fetch_add(1, Ordering::AcqRel);
                take(true);
                done.fetch_add(1, Ordering::AcqRel);
            });
        }
        take(false);
        // Spin, briefly, while a pool thread finishes its last piece.
        let since = Instant::now();
        while done.load(Ordering::Acquire) < started.load(Ordering::Acquire)
            && since.elapsed() < Duration::from_micros(50)
        {
            core::hint::spin_loop();
        }
    });
    // Read and wiped in place (moving it out would leave the bytes behind).
    let t = total.get_mut().unwrap_or_else(|p| p.into_inner());
    let sum = *t;
    wipe(t);
    sum
}

/// The two ends of `0..pieces` still to be taken: how many pieces were
/// taken from the front and how many from the back, under one lock (taken
/// once per piece, ~4 us of work at 64 KiB: never contended for long).
struct Ends {
    taken: Mutex<(usize, usize)>,
    pieces: usize,
}

impl Ends {
    fn new(pieces: usize) -> Self {
        Self {
            taken: Mutex::new((0, 0)),
            pieces,
        }
    }

    /// The next piece from the front (`back == false`) or the back, or
    /// `None` when every piece is taken.
    fn take(&self, back: bool) -> Option<usize> {
        // Never poisoned: nothing can panic while it is held.
        let mut t = self.taken.lock().unwrap_or_else(|p| p.into_inner());
        let (front, from_back) = *t;
        if front + from_back >= self.pieces {
            return None;
        }
        Some(if back {
            t.1 += 1;
            self.pieces - 1 - from_back
        } else {
            t.0 += 1;
            front
        })
    }
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
    fn the_ends_meet_and_give_every_piece_once() {
        for pieces in [0usize, 1, 2, 5, 16] {
            for pattern in [0u32, 0b1010_1010, 0xffff, 0b0110] {
                let ends = Ends::new(pieces);
                let mut seen = vec![0u32; pieces];
                let mut k = 0;
                while let Some(i) = ends.take(pattern >> (k % 16) & 1 == 1) {
                    seen[i] += 1;
                    k += 1;
                }
                assert!(
                    seen.iter().all(|&c| c == 1),
                    "{pieces} pieces, {pattern:#x}"
                );
                assert_eq!(ends.take(false), None);
                assert_eq!(ends.take(true), None);
            }
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
