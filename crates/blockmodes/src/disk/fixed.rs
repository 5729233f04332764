//! A tweakable block cipher with its tweak fixed, as a `cipher` block cipher:
//! the inner cipher's backend wrapped with a per-batch [`Whitening`]. Public
//! only through [`crate::hazmat`] (it is what
//! [`TweakableBlockCipher::fix_tweak`](crate::tweakable::TweakableBlockCipher::fix_tweak) returns).

use cipher::{
    Block as CipherBlock, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt,
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, ParBlocks,
    ParBlocksSizeUser, array::Array, consts::U16, inout::InOut, inout::InOutBuf, typenum::Unsigned,
};

use crate::arith::gf128::Block;
use crate::oracle::{BlockCipher128, BlockCipher128Dec};
use zeroize::Zeroize;

/// Work done on a batch of blocks around the inner cipher of a
/// [`FixedTweak`]: XEX xors Δ on both sides, StE swaps K and H before
/// enciphering and after deciphering.
///
/// Each method sees a whole batch (up to the backend's parallel width), so it
/// can be written as a plain loop the compiler vectorizes.
pub trait Whitening {
    /// Applied to the inputs before the inner cipher enciphers them.
    fn before_encrypt(&self, blocks: &mut [Block]);
    /// Applied to the outputs after the inner cipher enciphered them.
    fn after_encrypt(&self, blocks: &mut [Block]);
    /// Applied to the inputs before the inner cipher deciphers them.
    fn before_decrypt(&self, blocks: &mut [Block]);
    /// Applied to the outputs after the inner cipher deciphered them.
    fn after_decrypt(&self, blocks: &mut [Block]);

    /// `Some(c)` if this whitening is `x ↦ x ⊕ c` on every side (XEX's Δ),
    /// so a whitening around it can do both in one pass over the batch.
    fn xor_constant(&self) -> Option<&Block> {
        None
    }
}

/// A tweakable block cipher with its tweak fixed: the block cipher
/// `E(K, T, ·)` = `after ∘ C ∘ before`, where C is the inner block cipher and
/// `before`/`after` the tweak's [`Whitening`].
///
/// It implements `cipher`'s [`BlockCipherEncrypt`] and [`BlockCipherDecrypt`]
/// by wrapping the inner cipher's backend: the parallel width is the inner
/// one, and each batch is whitened in one pass.
///
/// ```
/// use blockmodes::tweakable::TweakableBlockCipher;
/// use blockmodes::xex::{Xex, XexTweak};
/// use cipher::BlockCipherEncrypt;
/// let xex = Xex::<blockmodes::Aes128>::new_from_slice(&[1; 16])?;
/// let e = xex.fix_tweak(&XexTweak { n: [0; 16], i: 1 })?; // a FixedTweak
/// let mut blocks = [[0u8; 16].into(); 100];
/// e.encrypt_blocks(&mut blocks); // 100 blocks, batched
/// assert_eq!(blocks[0], blocks[99]); // one fixed permutation
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone)]
pub struct FixedTweak<C, W> {
    cipher: C,
    whitening: W,
}

impl<C, W> core::fmt::Debug for FixedTweak<C, W> {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FixedTweak").finish_non_exhaustive()
    }
}

impl<C, W> FixedTweak<C, W> {
    /// The permutation `w.after ∘ cipher ∘ w.before`.
    pub fn new(cipher: C, whitening: W) -> Self {
        Self { cipher, whitening }
    }

    /// The cipher and the whitening (to wrap more whitening around the same
    /// cipher, as StE does, in one layer).
    pub fn into_parts(self) -> (C, W) {
        (self.cipher, self.whitening)
    }
}

impl<C, W> BlockSizeUser for FixedTweak<C, W> {
    type BlockSize = U16;
}

impl<C: BlockCipher128, W: Whitening> BlockCipherEncrypt for FixedTweak<C, W> {
    #[inline]
    fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = U16>) {
        self.cipher.encrypt_with_backend(Closure {
            f,
            w: &self.whitening,
        })
    }
}

impl<C: BlockCipher128Dec, W: Whitening> BlockCipherDecrypt for FixedTweak<C, W> {
    #[inline]
    fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = U16>) {
        self.cipher.decrypt_with_backend(Closure {
            f,
            w: &self.whitening,
        })
    }
}

/// The caller's closure, handed a whitened backend instead of the inner one.
struct Closure<'a, F, W> {
    f: F,
    w: &'a W,
}

impl<F, W> BlockSizeUser for Closure<'_, F, W> {
    type BlockSize = U16;
}

impl<F: BlockCipherEncClosure<BlockSize = U16>, W: Whitening> BlockCipherEncClosure
    for Closure<'_, F, W>
{
    #[inline(always)]
    fn call<B: BlockCipherEncBackend<BlockSize = U16>>(self, backend: &B) {
        self.f.call(&Backend {
            inner: backend,
            w: self.w,
        })
    }
}

impl<F: BlockCipherDecClosure<BlockSize = U16>, W: Whitening> BlockCipherDecClosure
    for Closure<'_, F, W>
{
    #[inline(always)]
    fn call<B: BlockCipherDecBackend<BlockSize = U16>>(self, backend: &B) {
        self.f.call(&Backend {
            inner: backend,
            w: self.w,
        })
    }
}

/// The inner backend with the whitening around each call.
struct Backend<'a, B, W> {
    inner: &'a B,
    w: &'a W,
}

impl<B, W> BlockSizeUser for Backend<'_, B, W> {
    type BlockSize = U16;
}

impl<B: ParBlocksSizeUser, W> ParBlocksSizeUser for Backend<'_, B, W> {
    type ParBlocksSize = B::ParBlocksSize;
}

#[inline(always)]
fn one(b: &mut Array<u8, U16>) -> &mut [Block] {
    core::slice::from_mut(b.as_mut())
}

/// Run `par` on `blocks` (fewer than the parallel width) padded into one
/// parallel batch when there are at least [`PAD_FROM`] of them, else `tail`
/// on them as they are (one-block calls, which pipeline: cheaper than a
/// padded 64-lane call for a handful of blocks, such as EME's middle
/// blocks).
/// Fewest blocks worth padding into a full parallel call.
const PAD_FROM: usize = 16;

#[inline(always)]
fn tail_batch<P: ParBlocksSizeUser<BlockSize = U16>>(
    blocks: &mut [CipherBlock<P>],
    par: impl FnOnce(&mut ParBlocks<P>),
    tail: impl FnOnce(&mut [CipherBlock<P>]),
) {
    let n = blocks.len();
    if n >= PAD_FROM && n < P::ParBlocksSize::USIZE {
        let mut buf: ParBlocks<P> = Default::default();
        buf[..n].copy_from_slice(blocks);
        par(&mut buf);
        blocks.copy_from_slice(&buf[..n]);
        for b in buf.iter_mut() {
            b.as_mut_slice().zeroize();
        }
    } else {
        tail(blocks);
    }
}

impl<B: BlockCipherEncBackend<BlockSize = U16>, W: Whitening> BlockCipherEncBackend
    for Backend<'_, B, W>
{
    #[inline(always)]
    fn encrypt_block(&self, block: InOut<'_, '_, CipherBlock<Self>>) {
        let b = block.into_out_with_copied_in();
        self.w.before_encrypt(one(b));
        self.inner.encrypt_block_inplace(b);
        self.w.after_encrypt(one(b));
    }

    #[inline(always)]
    fn encrypt_par_blocks(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
        let b = blocks.into_buf().into_out_with_copied_in();
        self.w.before_encrypt(Array::cast_slice_to_core_mut(b));
        if let Some(p) = Array::slice_as_mut_array(b) {
            self.inner.encrypt_par_blocks_inplace(p);
        }
        self.w.after_encrypt(Array::cast_slice_to_core_mut(b));
    }

    #[inline(always)]
    fn encrypt_tail_blocks(&self, blocks: InOutBuf<'_, '_, CipherBlock<Self>>) {
        let b = blocks.into_out_with_copied_in();
        self.w.before_encrypt(Array::cast_slice_to_core_mut(b));
        tail_batch::<B>(
            b,
            |p| self.inner.encrypt_par_blocks_inplace(p),
            |t| self.inner.encrypt_tail_blocks_inplace(t),
        );
        self.w.after_encrypt(Array::cast_slice_to_core_mut(b));
    }
}

impl<B: BlockCipherDecBackend<BlockSize = U16>, W: Whitening> BlockCipherDecBackend
    for Backend<'_, B, W>
{
    #[inline(always)]
    fn decrypt_block(&self, block: InOut<'_, '_, CipherBlock<Self>>) {
        let b = block.into_out_with_copied_in();
        self.w.before_decrypt(one(b));
        self.inner.decrypt_block_inplace(b);
        self.w.after_decrypt(one(b));
    }

    #[inline(always)]
    fn decrypt_par_blocks(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
        let b = blocks.into_buf().into_out_with_copied_in();
        self.w.before_decrypt(Array::cast_slice_to_core_mut(b));
        if let Some(p) = Array::slice_as_mut_array(b) {
            self.inner.decrypt_par_blocks_inplace(p);
        }
        self.w.after_decrypt(Array::cast_slice_to_core_mut(b));
    }

    #[inline(always)]
    fn decrypt_tail_blocks(&self, blocks: InOutBuf<'_, '_, CipherBlock<Self>>) {
        let b = blocks.into_out_with_copied_in();
        self.w.before_decrypt(Array::cast_slice_to_core_mut(b));
        tail_batch::<B>(
            b,
            |p| self.inner.decrypt_par_blocks_inplace(p),
            |t| self.inner.decrypt_tail_blocks_inplace(t),
        );
        self.w.after_decrypt(Array::cast_slice_to_core_mut(b));
    }
}
