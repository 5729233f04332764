//! The calls a mode makes to its block cipher: batches through the
//! cipher's parallel backend with the mode's whitening around them
//! ([`ParWork`], [`encrypt_par`], [`decrypt_par`]), one serial chain
//! ([`encrypt_chain`]), single blocks, raw ECB, and the keyed cipher from a
//! key slice ([`cipher_from_key`]).
//!
//! Engine internals: public only with the `internals` feature (for
//! blockmodes' own CLI, Python package, fuzz targets and tests), with no
//! semver promise.

use super::*;
/// The work a mode does around a batch of block-cipher calls.
///
/// [`encrypt_par`] calls `before` to fill a batch of input blocks (the mode's
/// whitening: `M[i] xor Z[i]`, a counter block, ...), enciphers the batch with
/// the backend's widest parallel call, then calls `after` with the outputs.
/// `start` is the 0-based index of the first block of the batch.
pub trait ParWork {
    /// Fill `blocks` (the inputs of blocks `start..start + blocks.len()`).
    fn before(&mut self, start: usize, blocks: &mut [Block]);
    /// Consume the cipher outputs of blocks `start..start + blocks.len()`.
    fn after(&mut self, start: usize, blocks: &[Block]);
}

/// Encipher `n_blocks` blocks produced and consumed by `work`, in batches of
/// the backend's parallel width.
///
/// A short final batch of 4 or more blocks still goes through one parallel
/// call (the unused lanes are enciphered and discarded): with a 64-wide
/// backend that is faster than enciphering the tail one block at a time.
#[inline]
pub fn encrypt_par<C: BlockCipher128>(cipher: &C, n_blocks: usize, work: &mut impl ParWork) {
    struct Closure<'a, W> {
        n_blocks: usize,
        work: &'a mut W,
    }
    impl<W> BlockSizeUser for Closure<'_, W> {
        type BlockSize = U16;
    }
    impl<W: ParWork> BlockCipherEncClosure for Closure<'_, W> {
        #[inline(always)]
        fn call<B: BlockCipherEncBackend<BlockSize = U16>>(self, backend: &B) {
            run_batches::<B, W>(
                self.n_blocks,
                self.work,
                |b: &mut ParBlocks<B>| backend.encrypt_par_blocks_inplace(b),
                |b: &mut CipherBlock<B>| backend.encrypt_block_inplace(b),
                B::ParBlocksSize::USIZE,
            );
        }
    }
    if n_blocks > 0 {
        cipher.encrypt_with_backend(Closure { n_blocks, work });
    }
}

/// As [`encrypt_par`], with the inverse cipher.
#[inline]
pub fn decrypt_par<C: BlockCipher128Dec>(cipher: &C, n_blocks: usize, work: &mut impl ParWork) {
    struct Closure<'a, W> {
        n_blocks: usize,
        work: &'a mut W,
    }
    impl<W> BlockSizeUser for Closure<'_, W> {
        type BlockSize = U16;
    }
    impl<W: ParWork> BlockCipherDecClosure for Closure<'_, W> {
        #[inline(always)]
        fn call<B: BlockCipherDecBackend<BlockSize = U16>>(self, backend: &B) {
            run_batches::<B, W>(
                self.n_blocks,
                self.work,
                |b: &mut ParBlocks<B>| backend.decrypt_par_blocks_inplace(b),
                |b: &mut CipherBlock<B>| backend.decrypt_block_inplace(b),
                B::ParBlocksSize::USIZE,
            );
        }
    }
    if n_blocks > 0 {
        cipher.decrypt_with_backend(Closure { n_blocks, work });
    }
}

#[inline(always)]
fn run_batches<P, W>(
    n_blocks: usize,
    work: &mut W,
    mut par: impl FnMut(&mut Array<CipherBlock<P>, P::ParBlocksSize>),
    mut one: impl FnMut(&mut CipherBlock<P>),
    width: usize,
) where
    P: ParBlocksSizeUser<BlockSize = U16>,
    W: ParWork,
{
    let mut aligned = Align64::<ParBlocks<P>>(Default::default());
    let buf = &mut aligned.0;
    let mut start = 0;
    // Full batches first, as slices of constant length: the compiler
    // specializes `work` for the backend's width (fixed-length loops it
    // can unroll and interleave with the cipher's rounds).
    while n_blocks - start >= width {
        work.before(start, Array::cast_slice_to_core_mut(&mut buf[..]));
        par(buf);
        work.after(start, Array::cast_slice_to_core(&buf[..]));
        start += width;
    }
    while start < n_blocks {
        let k = width.min(n_blocks - start);
        {
            let blocks = Array::cast_slice_to_core_mut(&mut buf[..k]);
            work.before(start, blocks);
        }
        if k == width || k >= 4 {
            par(buf);
        } else {
            for b in buf[..k].iter_mut() {
                one(b);
            }
        }
        work.after(start, Array::cast_slice_to_core(&buf[..k]));
        start += k;
    }
    // Wipe the last batch with a plain (vectorized) fill the barrier keeps:
    // byte-by-byte volatile writes cost ~500 cycles per call on 1 KiB.
    *buf = Default::default();
    zeroize::optimization_barrier(&*buf);
}

/// `E_K(block)` for one block.
#[inline]
pub fn encrypt_block<C: BlockCipher128>(cipher: &C, block: &Block) -> Block {
    let mut b = CipherBlock::<C>::from(*block);
    cipher.encrypt_block(&mut b);
    b.into()
}

/// `E_K^-1(block)` for one block.
#[inline]
pub fn decrypt_block<C: BlockCipher128Dec>(cipher: &C, block: &Block) -> Block {
    let mut b = CipherBlock::<C>::from(*block);
    cipher.decrypt_block(&mut b);
    b.into()
}

/// Raw ECB over whole blocks, in place, through the parallel backend: the
/// yardstick of `blockmodes bench`.
pub fn ecb_encrypt_blocks<C: BlockCipher128>(cipher: &C, blocks: &mut [Block]) {
    cipher.encrypt_blocks(Array::cast_slice_from_core_mut(blocks));
}

/// The number of blocks the cipher's backend enciphers in one parallel call
/// (VAES-512: 64, AES-NI: 8, [`Counting`]: 1).
///
/// ```
/// use cipher::KeyInit;
/// let aes = aes::Aes128::new(&[0u8; 16].into());
/// assert!(blockmodes::oracle::par_width(&aes) >= 1);
/// ```
pub fn par_width<C: BlockCipher128>(cipher: &C) -> usize {
    struct Width<'a>(&'a mut usize);
    impl BlockSizeUser for Width<'_> {
        type BlockSize = U16;
    }
    impl BlockCipherEncClosure for Width<'_> {
        fn call<B: BlockCipherEncBackend<BlockSize = U16>>(self, _backend: &B) {
            *self.0 = B::ParBlocksSize::USIZE;
        }
    }
    let mut w = 1;
    cipher.encrypt_with_backend(Width(&mut w));
    w.max(1)
}

/// Encipher one serial chain of `rounds` blocks (CBC-like: the input of
/// block r may depend on the output of block r - 1) with no per-block
/// dispatch: `work.before(r, ..)` fills block r, `work.after(r, ..)` reads
/// its output, one block per call. (Independent chains go through
/// [`encrypt_chains`], in lock step.)
///
/// ```
/// use blockmodes::oracle::{encrypt_chain, ParWork};
/// use blockmodes::Block;
/// use cipher::{BlockCipherEncrypt, KeyInit};
/// // CBC-MAC of a 3-block message.
/// struct Mac { msg: [Block; 3], chain: Block }
/// impl ParWork for Mac {
///     fn before(&mut self, r: usize, blocks: &mut [Block]) {
///         blocks[0] = blockmodes::hazmat::gf128::xor(&self.msg[r], &self.chain);
///     }
///     fn after(&mut self, _r: usize, blocks: &[Block]) {
///         self.chain = blocks[0];
///     }
/// }
/// let aes = aes::Aes128::new(&[7u8; 16].into());
/// let mut w = Mac { msg: [[1; 16]; 3], chain: [0; 16] };
/// encrypt_chain(&aes, 3, &mut w);
/// let mut one = cipher::Block::<aes::Aes128>::default();
/// for _ in 0..3 {
///     for x in one.iter_mut() { *x ^= 1; }
///     aes.encrypt_block(&mut one);
/// }
/// assert_eq!(w.chain, <[u8; 16]>::from(one));
/// ```
#[inline]
pub fn encrypt_chain<C: BlockCipher128>(cipher: &C, rounds: usize, work: &mut impl ParWork) {
    struct Closure<'a, W> {
        rounds: usize,
        work: &'a mut W,
    }
    impl<W> BlockSizeUser for Closure<'_, W> {
        type BlockSize = U16;
    }
    impl<W: ParWork> BlockCipherEncClosure for Closure<'_, W> {
        #[inline(always)]
        fn call<B: BlockCipherEncBackend<BlockSize = U16>>(self, backend: &B) {
            // The block stays in a local the compiler holds in a register
            // across `before`, the cipher and `after`.
            let mut one = [CipherBlock::<B>::default()];
            for r in 0..self.rounds {
                self.work.before(r, Array::cast_slice_to_core_mut(&mut one));
                backend.encrypt_block_inplace(&mut one[0]);
                self.work.after(r, Array::cast_slice_to_core(&one));
            }
            one[0].zeroize();
        }
    }
    if rounds > 0 {
        cipher.encrypt_with_backend(Closure { rounds, work });
    }
}
/// The block cipher `C` keyed with `key`, or [`Error::InvalidKeyLength`]
/// naming the length `C` takes: the one place every mode's
/// `new_from_slice` turns a key slice into its oracle.
///
/// ```
/// use blockmodes::{Aes256, Error, oracle::cipher_from_key};
/// assert!(cipher_from_key::<Aes256>(&[0; 32]).is_ok());
/// assert!(matches!(
///     cipher_from_key::<Aes256>(&[0; 16]),
///     Err(Error::InvalidKeyLength { expected: 32, got: 16 })
/// ));
/// ```
pub fn cipher_from_key<C: KeyInit>(key: &[u8]) -> Result<C, Error> {
    C::new_from_slice(key).map_err(|_| key_len_error::<C>(key.len()))
}
