//! The block cipher as an oracle.
//!
//! Every mode in this crate sees its block cipher only through the `cipher`
//! crate's traits, with 16-byte blocks ([`BlockCipher128`]). This module
//! holds the one piece of machinery every parallel mode shares: handing the
//! cipher's multi-block backend (AES-NI: 8 blocks per step, VAES-512: 64)
//! full batches, with the mode's own whitening before and after each batch
//! ([`ParWork`], [`encrypt_par`], [`decrypt_par`]; buffer to buffer:
//! [`ParWorkB2b`], [`decrypt_par_b2b`]; independent chains in lock step:
//! [`ChainWork`], [`encrypt_chains`]; one serial chain: [`encrypt_chain`]).
//!
//! It also holds [`Counting`], a wrapper that counts block-cipher calls, used
//! by the tests to check each paper's cost claim.

pub(crate) mod scratch;
use scratch::Align64;

use cipher::{
    Block as CipherBlock, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt,
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, KeyInit,
    KeySizeUser, ParBlocks, ParBlocksSizeUser, array::Array, consts::U16, inout::InOut,
    typenum::Unsigned,
};

use zeroize::Zeroize;

use crate::arith::gf128::Block;
use crate::error::Error;

#[cfg(all(feature = "alloc", target_has_atomic = "64", target_has_atomic = "ptr"))]
mod counting;
#[cfg(all(feature = "alloc", target_has_atomic = "64", target_has_atomic = "ptr"))]
pub use counting::{CallCount, Counting};

pub(crate) mod lanes;
pub(crate) use lanes::*;

/// Any block cipher with 128-bit blocks that can encipher.
pub trait BlockCipher128: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> {}
impl<C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>> BlockCipher128 for C {}

/// Any block cipher with 128-bit blocks that can encipher and decipher.
pub trait BlockCipher128Dec: BlockCipher128 + BlockCipherDecrypt {}
impl<C: BlockCipher128 + BlockCipherDecrypt> BlockCipher128Dec for C {}

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

/// [`Error::InvalidKeyLength`] for a key of `got` bytes offered to `C`.
pub(crate) fn key_len_error<C: KeySizeUser>(got: usize) -> Error {
    Error::InvalidKeyLength {
        expected: C::KeySize::USIZE,
        got,
    }
}

#[cfg(all(test, feature = "alloc"))]
mod b2b_and_chains_tests {
    use super::*;
    use cipher::{BlockCipherEncrypt, KeyInit};

    /// CBC-MAC of `lanes` chains of `rounds` blocks, in lock step.
    struct Macs {
        msgs: Vec<Vec<Block>>,
        tags: Vec<Block>,
        seen: Vec<usize>,
    }
    impl ChainWork for Macs {
        fn before(&mut self, r: usize, prev: &[Block], inputs: &mut [Block]) {
            for (lane, b) in inputs.iter_mut().enumerate() {
                *b = crate::arith::gf128::xor(&prev[lane], &self.msgs[lane][r]);
            }
        }
        fn after(&mut self, r: usize, outputs: &[Block]) {
            self.seen.push(r);
            self.tags.copy_from_slice(outputs);
        }
    }

    fn serial_mac(aes: &aes::Aes128, msg: &[Block]) -> Block {
        let mut c = cipher::Block::<aes::Aes128>::default();
        for m in msg {
            for (x, y) in c.iter_mut().zip(m) {
                *x ^= y;
            }
            aes.encrypt_block(&mut c);
        }
        c.into()
    }

    #[test]
    fn chains_match_serial_chains_at_every_width() {
        let aes = aes::Aes128::new(&[9u8; 16].into());
        for lanes in [1usize, 3, 15, 16, 20, 63, 64] {
            for rounds in [1usize, 2, 5] {
                let msgs: Vec<Vec<Block>> = (0..lanes)
                    .map(|l| (0..rounds).map(|r| [(l * 31 + r) as u8; 16]).collect())
                    .collect();
                let mut w = Macs {
                    msgs,
                    tags: vec![[0; 16]; lanes],
                    seen: vec![],
                };
                encrypt_chains(&aes, lanes, rounds, &mut w);
                assert_eq!(w.seen, (0..rounds).collect::<Vec<_>>());
                for l in 0..lanes {
                    assert_eq!(w.tags[l], serial_mac(&aes, &w.msgs[l]), "{lanes} {rounds}");
                }
                // One call per block through a one-block backend.
                let (c, count) = Counting::new(aes.clone());
                let mut w2 = Macs {
                    msgs: w.msgs.clone(),
                    tags: vec![[0; 16]; lanes],
                    seen: vec![],
                };
                encrypt_chains(&c, lanes, rounds, &mut w2);
                assert_eq!(count.get(), (lanes * rounds) as u64);
                assert_eq!(w2.tags, w.tags);
            }
        }
    }

    /// Every round's outputs, and what `after_with_previous` offered as
    /// the round before.
    struct Rounds {
        outputs: Vec<Vec<Block>>,
        previous: Vec<Vec<Block>>,
    }
    impl ChainWork for Rounds {
        fn before(&mut self, r: usize, prev: &[Block], inputs: &mut [Block]) {
            for (lane, (b, p)) in inputs.iter_mut().zip(prev).enumerate() {
                *b = *p;
                b[0] ^= (r * 7 + lane) as u8;
            }
        }
        fn after(&mut self, _r: usize, _outputs: &[Block]) {
            unreachable!("encrypt_chains calls after_with_previous");
        }
        fn after_with_previous(&mut self, r: usize, outputs: &[Block], previous: &[Block]) {
            assert_eq!(self.outputs.len(), r);
            self.outputs.push(outputs.to_vec());
            self.previous.push(previous.to_vec());
        }
    }

    #[test]
    fn after_with_previous_sees_the_round_before() {
        let aes = aes::Aes128::new(&[5u8; 16].into());
        for lanes in [1usize, 15, 16, 64] {
            for rounds in 1usize..=7 {
                let mut w = Rounds {
                    outputs: vec![],
                    previous: vec![],
                };
                encrypt_chains(&aes, lanes, rounds, &mut w);
                assert_eq!(w.outputs.len(), rounds);
                assert!(w.previous[0].is_empty());
                for r in 1..rounds {
                    assert_eq!(w.previous[r], w.outputs[r - 1], "{lanes} lanes, round {r}");
                }
            }
        }
    }

    struct Ecb<'a> {
        ct: &'a [Block],
        pt: &'a mut [Block],
        calls: Vec<(usize, usize)>,
    }
    impl ParWorkB2b for Ecb<'_> {
        fn before(&mut self, start: usize, k: usize) -> (&[Block], &mut [Block]) {
            self.calls.push((start, k));
            (&self.ct[start..start + k], &mut self.pt[start..start + k])
        }
        fn after(&mut self, _start: usize, _k: usize) {}
    }

    #[test]
    fn b2b_matches_single_blocks() {
        let aes = aes::Aes128::new(&[3u8; 16].into());
        for n in [1usize, 5, 63, 64, 65, 130] {
            let ct: Vec<Block> = (0..n).map(|j| [j as u8; 16]).collect();
            let mut pt = vec![[0u8; 16]; n];
            let mut w = Ecb {
                ct: &ct,
                pt: &mut pt,
                calls: vec![],
            };
            decrypt_par_b2b(&aes, n, &mut w);
            let starts: Vec<usize> = w.calls.iter().map(|c| c.0).collect();
            assert_eq!(starts, (0..n).step_by(B2B_BATCH).collect::<Vec<_>>());
            for (c, p) in ct.iter().zip(&pt) {
                assert_eq!(decrypt_block(&aes, c), *p);
            }
        }
    }
}
