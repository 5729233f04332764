//! Lane-wise batching for modes that run several chains or back-to-back batches at once (pXCBC's segments, XCBC's decryption): internals, public only as `blockmodes::hazmat::lanes`.

#[allow(unused_imports)]
use super::*;

/// The batch length of [`decrypt_par_b2b`]: at most this many blocks per
/// [`ParWorkB2b::before`] call.
pub const B2B_BATCH: usize = 64;

/// The work of [`decrypt_par_b2b`]: as the oracle's `ParWork`, but the mode keeps each
/// batch's cipher inputs in a buffer of its own and names where the outputs
/// go, so `after` can still read the inputs (no copy of them) and the
/// outputs can land straight in the caller's buffer.
pub trait ParWorkB2b {
    /// Prepare the inputs of blocks `start .. start + k` (`k <= B2B_BATCH`)
    /// and return them with the slice that receives their outputs, both
    /// `k` blocks long.
    fn before(&mut self, start: usize, k: usize) -> (&[Block], &mut [Block]);
    /// The outputs of blocks `start .. start + k` are in place.
    fn after(&mut self, start: usize, k: usize);
}

/// Decipher `n_blocks` blocks buffer to buffer, in batches of
/// [`B2B_BATCH`] blocks prepared and consumed by `work`, through the
/// backend's widest parallel call. Full batches reach `work` with a
/// constant `k`, so the compiler specializes it for them.
///
/// ```
/// use blockmodes::hazmat::lanes::{B2B_BATCH, ParWorkB2b, decrypt_par_b2b};
/// use blockmodes::Block;
/// use cipher::{BlockCipherDecrypt, KeyInit};
/// // ECB decryption of 100 blocks, the ciphertext kept intact.
/// struct Ecb<'a> { ct: &'a [Block], pt: &'a mut [Block] }
/// impl ParWorkB2b for Ecb<'_> {
///     fn before(&mut self, start: usize, k: usize) -> (&[Block], &mut [Block]) {
///         (&self.ct[start..start + k], &mut self.pt[start..start + k])
///     }
///     fn after(&mut self, _start: usize, _k: usize) {}
/// }
/// let aes = aes::Aes128::new(&[7u8; 16].into());
/// let ct = [[3u8; 16]; 100];
/// let mut pt = [[0u8; 16]; 100];
/// decrypt_par_b2b(&aes, 100, &mut Ecb { ct: &ct, pt: &mut pt });
/// let mut b = cipher::Block::<aes::Aes128>::from(ct[99]);
/// aes.decrypt_block(&mut b);
/// assert_eq!(pt[99], <[u8; 16]>::from(b));
/// ```
#[inline]
pub fn decrypt_par_b2b<C: BlockCipher128Dec>(
    cipher: &C,
    n_blocks: usize,
    work: &mut impl ParWorkB2b,
) {
    struct Closure<'a, W> {
        n_blocks: usize,
        work: &'a mut W,
    }
    impl<W> BlockSizeUser for Closure<'_, W> {
        type BlockSize = U16;
    }
    impl<W: ParWorkB2b> BlockCipherDecClosure for Closure<'_, W> {
        #[inline(always)]
        fn call<B: BlockCipherDecBackend<BlockSize = U16>>(self, backend: &B) {
            let mut start = 0;
            while self.n_blocks - start >= B2B_BATCH {
                let (inp, out) = self.work.before(start, B2B_BATCH);
                b2b_batch::<B>(
                    inp,
                    out,
                    |i, o| backend.decrypt_par_blocks(InOut::from((i, o))),
                    |b| backend.decrypt_block_inplace(b),
                );
                self.work.after(start, B2B_BATCH);
                start += B2B_BATCH;
            }
            if start < self.n_blocks {
                let k = self.n_blocks - start;
                let (inp, out) = self.work.before(start, k);
                b2b_batch::<B>(
                    inp,
                    out,
                    |i, o| backend.decrypt_par_blocks(InOut::from((i, o))),
                    |b| backend.decrypt_block_inplace(b),
                );
                self.work.after(start, k);
            }
        }
    }
    if n_blocks > 0 {
        cipher.decrypt_with_backend(Closure { n_blocks, work });
    }
}

/// `out = cipher(inp)` for one batch: whole backend widths through the
/// parallel call, the rest one block at a time.
#[inline(always)]
pub(super) fn b2b_batch<P>(
    inp: &[Block],
    out: &mut [Block],
    mut par: impl FnMut(&ParBlocks<P>, &mut ParBlocks<P>),
    mut one: impl FnMut(&mut CipherBlock<P>),
) where
    P: ParBlocksSizeUser<BlockSize = U16>,
{
    let width = P::ParBlocksSize::USIZE;
    let k = inp.len().min(out.len());
    let (inp, out) = (
        Array::cast_slice_from_core(&inp[..k]),
        Array::cast_slice_from_core_mut(&mut out[..k]),
    );
    let mut done = 0;
    while k - done >= width {
        let i = <&ParBlocks<P>>::try_from(&inp[done..done + width]);
        let o = <&mut ParBlocks<P>>::try_from(&mut out[done..done + width]);
        if let (Ok(i), Ok(o)) = (i, o) {
            par(i, o);
        }
        done += width;
    }
    for (i, o) in inp[done..].iter().zip(out[done..].iter_mut()) {
        *o = *i;
        one(o);
    }
}

/// The work of [`encrypt_chains`]: independent chains enciphered in lock
/// step, round by round.
pub trait ChainWork {
    /// Write round `r`'s inputs to `inputs` (one block per chain), given
    /// `prev`, round `r - 1`'s outputs (zeros for round 0).
    fn before(&mut self, r: usize, prev: &[Block], inputs: &mut [Block]);
    /// Consume round `r`'s outputs.
    fn after(&mut self, r: usize, outputs: &[Block]);
    /// Consume round `r`'s outputs while round `r - 1`'s are still at hand
    /// (`previous`; empty for round 0), e.g. to store two rounds of a chain
    /// together. [`encrypt_chains`] calls this; the default calls
    /// [`after`](Self::after).
    #[inline(always)]
    fn after_with_previous(&mut self, r: usize, outputs: &[Block], previous: &[Block]) {
        let _ = previous;
        self.after(r, outputs);
    }
}

/// Encipher `lanes <= B2B_BATCH` independent chains in lock step for
/// `rounds` rounds: round r enciphers block r of every chain, whose input
/// may depend on the chain's previous output (CBC-like chains, pXCBC's
/// segments).
///
/// Three batches take turns: round r + 1 is prepared and enciphered in one
/// while the others still hold round r's and round r - 1's outputs, and
/// `work.after_with_previous(r)` is called only then (the last round's at
/// the end), so that the processor may run it alongside the cipher. Each
/// round is one parallel call when `lanes` fills the backend's width; a
/// narrower round of at least a quarter of the width fills a full call
/// with dummy lanes, a narrower one goes one block at a time.
///
/// ```
/// use blockmodes::hazmat::lanes::{encrypt_chains, ChainWork};
/// use blockmodes::Block;
/// use cipher::{BlockCipherEncrypt, KeyInit};
/// // CBC-MAC of two 3-block messages in lock step.
/// struct TwoMacs { msgs: [[Block; 3]; 2], tags: [Block; 2] }
/// impl ChainWork for TwoMacs {
///     fn before(&mut self, r: usize, prev: &[Block], inputs: &mut [Block]) {
///         for (lane, b) in inputs.iter_mut().enumerate() {
///             *b = blockmodes::hazmat::gf128::xor(&prev[lane], &self.msgs[lane][r]);
///         }
///     }
///     fn after(&mut self, _r: usize, outputs: &[Block]) {
///         self.tags.copy_from_slice(outputs);
///     }
/// }
/// let aes = aes::Aes128::new(&[7u8; 16].into());
/// let mut w = TwoMacs { msgs: [[[1; 16]; 3], [[2; 16]; 3]], tags: [[0; 16]; 2] };
/// encrypt_chains(&aes, 2, 3, &mut w);
/// let mut one = cipher::Block::<aes::Aes128>::default();
/// for _ in 0..3 {
///     for x in one.iter_mut() { *x ^= 2; }
///     aes.encrypt_block(&mut one);
/// }
/// assert_eq!(w.tags[1], <[u8; 16]>::from(one));
/// ```
#[inline]
pub fn encrypt_chains<C: BlockCipher128>(
    cipher: &C,
    lanes: usize,
    rounds: usize,
    work: &mut impl ChainWork,
) {
    struct Closure<'a, W> {
        lanes: usize,
        rounds: usize,
        work: &'a mut W,
    }
    impl<W> BlockSizeUser for Closure<'_, W> {
        type BlockSize = U16;
    }
    impl<W: ChainWork> BlockCipherEncClosure for Closure<'_, W> {
        #[inline(always)]
        fn call<B: BlockCipherEncBackend<BlockSize = U16>>(self, backend: &B) {
            let width = B::ParBlocksSize::USIZE;
            let lanes = self.lanes;
            // Cache-line aligned, as in `run_batches`.
            let mut aligned = Align64([[[0u8; 16]; B2B_BATCH]; 3]);
            let bufs = &mut aligned.0;
            for r in 0..self.rounds {
                // Round r in batch r mod 3, r - 1 in the next-but-one,
                // r - 2 in the next.
                let [a, b, c] = &mut *bufs;
                let (cur, prev, earlier) = match r % 3 {
                    0 => (a, &*c, &*b),
                    1 => (b, &*a, &*c),
                    _ => (c, &*b, &*a),
                };
                self.work.before(r, &prev[..lanes], &mut cur[..lanes]);
                let blocks = Array::cast_slice_from_core_mut(&mut cur[..]);
                let mut done = 0;
                while done < lanes {
                    let k = (lanes - done).min(width);
                    let whole = blocks.get_mut(done..done + width);
                    match whole.map(<&mut ParBlocks<B>>::try_from) {
                        // A full call, with dummy lanes if k < width.
                        Some(Ok(b)) if width > 1 && 4 * k >= width => {
                            backend.encrypt_par_blocks_inplace(b)
                        }
                        _ => {
                            for b in blocks[done..done + k].iter_mut() {
                                backend.encrypt_block_inplace(b);
                            }
                        }
                    }
                    done += k;
                }
                if r > 0 {
                    let earlier = if r > 1 { &earlier[..lanes] } else { &[] };
                    self.work
                        .after_with_previous(r - 1, &prev[..lanes], earlier);
                }
            }
            let r = self.rounds - 1;
            let earlier = if r > 0 {
                &bufs[(r + 2) % 3][..lanes]
            } else {
                &[]
            };
            self.work
                .after_with_previous(r, &bufs[r % 3][..lanes], earlier);
            let buf = bufs.as_flattened_mut();
            buf.fill([0; 16]);
            zeroize::optimization_barrier(buf);
        }
    }
    let lanes = lanes.min(B2B_BATCH);
    if lanes > 0 && rounds > 0 {
        cipher.encrypt_with_backend(Closure {
            lanes,
            rounds,
            work,
        });
    }
}
