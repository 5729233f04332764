//! The block cipher as an oracle.
//!
//! Every mode in this crate sees its block cipher only through the `cipher`
//! crate's traits, with 16-byte blocks ([`BlockCipher128`]). This module
//! holds the one piece of machinery every parallel mode shares: handing the
//! cipher's multi-block backend (AES-NI: 8 blocks per step, VAES-512: 64)
//! full batches, with the mode's own whitening before and after each batch
//! ([`ParWork`], [`encrypt_par`], [`decrypt_par`]).
//!
//! It also holds [`Counting`], a wrapper that counts block-cipher calls, used
//! by the tests to check each paper's cost claim.

use core::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use cipher::{
    Block as CipherBlock, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt,
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, KeyInit,
    KeySizeUser, ParBlocks, ParBlocksSizeUser, array::Array, consts::U1, consts::U16, inout::InOut,
    typenum::Unsigned,
};

use crate::gf128::Block;

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
    let mut buf: ParBlocks<P> = Default::default();
    let mut start = 0;
    while start < n_blocks {
        let k = width.min(n_blocks - start);
        {
            let blocks = Array::cast_slice_to_core_mut(&mut buf[..k]);
            work.before(start, blocks);
        }
        if k == width || k >= 4 {
            par(&mut buf);
        } else {
            for b in buf[..k].iter_mut() {
                one(b);
            }
        }
        work.after(start, Array::cast_slice_to_core(&buf[..k]));
        start += k;
    }
    // Wipe the batch buffer (it held whitened data). Plain stores the compiler
    // vectorizes, kept by the black box: `zeroize` writes byte by byte
    // (volatile), about 1000 cycles for a 64-block buffer, a measurable share
    // of every call.
    buf = Default::default();
    core::hint::black_box(&buf);
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

/// A block cipher that counts how many blocks it enciphers or deciphers.
///
/// Its backend reports a parallel width of one block, so every block the mode
/// asks for is counted once and no lanes are padded.
///
/// ```
/// use blockmodes::oracle::{Counting, encrypt_block};
/// use cipher::KeyInit;
/// let (aes, count) = Counting::new(aes::Aes128::new(&[0u8; 16].into()));
/// encrypt_block(&aes, &[0u8; 16]);
/// assert_eq!(count.get(), 1);
/// ```
pub struct Counting<C> {
    inner: C,
    count: CallCount,
}

/// A shared handle on a [`Counting`] cipher's call counter.
#[derive(Clone, Default, Debug)]
pub struct CallCount(Arc<AtomicU64>);

impl CallCount {
    /// Calls so far.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
    /// Set the counter back to zero.
    pub fn reset(&self) {
        self.0.store(0, Ordering::Relaxed)
    }
    fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
}

impl<C> Counting<C> {
    /// Wrap `inner`; the handle reads the count.
    pub fn new(inner: C) -> (Self, CallCount) {
        let count = CallCount::default();
        (
            Self {
                inner,
                count: count.clone(),
            },
            count,
        )
    }
}

impl<C: Clone> Clone for Counting<C> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            count: self.count.clone(),
        }
    }
}

impl<C: KeySizeUser> KeySizeUser for Counting<C> {
    type KeySize = C::KeySize;
}

impl<C: KeyInit> KeyInit for Counting<C> {
    fn new(key: &cipher::Key<Self>) -> Self {
        Self::new(C::new(key)).0
    }
}

impl<C: BlockSizeUser> BlockSizeUser for Counting<C> {
    type BlockSize = C::BlockSize;
}

struct CountingBackend<'a, B> {
    inner: &'a B,
    count: &'a CallCount,
}
impl<B: BlockSizeUser> BlockSizeUser for CountingBackend<'_, B> {
    type BlockSize = B::BlockSize;
}
impl<B: BlockSizeUser> ParBlocksSizeUser for CountingBackend<'_, B> {
    type ParBlocksSize = U1;
}
impl<B: BlockCipherEncBackend> BlockCipherEncBackend for CountingBackend<'_, B> {
    fn encrypt_block(&self, block: InOut<'_, '_, CipherBlock<Self>>) {
        self.count.add(1);
        self.inner.encrypt_block(block);
    }
}
impl<B: BlockCipherDecBackend> BlockCipherDecBackend for CountingBackend<'_, B> {
    fn decrypt_block(&self, block: InOut<'_, '_, CipherBlock<Self>>) {
        self.count.add(1);
        self.inner.decrypt_block(block);
    }
}

struct WrapEnc<'a, F> {
    f: F,
    count: &'a CallCount,
}
impl<F: BlockSizeUser> BlockSizeUser for WrapEnc<'_, F> {
    type BlockSize = F::BlockSize;
}
impl<F: BlockCipherEncClosure> BlockCipherEncClosure for WrapEnc<'_, F> {
    fn call<B: BlockCipherEncBackend<BlockSize = Self::BlockSize>>(self, backend: &B) {
        self.f.call(&CountingBackend {
            inner: backend,
            count: self.count,
        })
    }
}
impl<F: BlockCipherDecClosure> BlockCipherDecClosure for WrapEnc<'_, F> {
    fn call<B: BlockCipherDecBackend<BlockSize = Self::BlockSize>>(self, backend: &B) {
        self.f.call(&CountingBackend {
            inner: backend,
            count: self.count,
        })
    }
}

impl<C: BlockCipherEncrypt> BlockCipherEncrypt for Counting<C> {
    fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = Self::BlockSize>) {
        self.inner.encrypt_with_backend(WrapEnc {
            f,
            count: &self.count,
        })
    }
}

impl<C: BlockCipherDecrypt> BlockCipherDecrypt for Counting<C> {
    fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = Self::BlockSize>) {
        self.inner.decrypt_with_backend(WrapEnc {
            f,
            count: &self.count,
        })
    }
}
