//! Tweakable block ciphers (Liskov, Rivest, Wagner): `E(K, T, M)`, a
//! permutation of one 128-bit block for each key K and tweak T.
//!
//! The disk ciphers of this crate ([`crate::xex`], [`crate::ste`],
//! [`crate::ete`]) share one abstraction, [`TweakableBlockCipher`]. Its one
//! essential operation is the paper's notation `E(K, T, ·)`: **fixing the
//! tweak gives an ordinary block cipher** ([`TweakableBlockCipher::fix_tweak`]),
//! a `cipher` 0.5 [`BlockCipherEncrypt`] + [`BlockCipherDecrypt`] with 16-byte
//! blocks. That is what EtE needs (`ECB(M : F(K, γ1, ·))`,
//! `WB(T, X : F(K, γ2, ·))`), and because the fixed permutation is a real
//! `cipher` block cipher, any mode of this crate (EME here) runs over it
//! unchanged, in batches through the underlying cipher's parallel backend.
//!
//! **Why not `cipher::tweak::TweakBlockCipherEncrypt`?** `cipher` 0.5 has
//! tweakable traits, with a fixed-size byte-string tweak. They do not fit:
//! * they have no multi-block (parallel) backend call, so every block would
//!   be one AES call and XEX/EtE would lose the VAES speed (64 blocks per
//!   call) that the targets need;
//! * their calls cannot fail, but StE must refuse its reserved tweak γ and
//!   XEX the index i = 0 with a typed error (never a panic);
//! * XEX's tweak (N, i) is a block and an integer, and per-tweak work
//!   (XEX's `Δ = 2^i E_K(N)`) must be done once, not per block.
//!
//! Fixing the tweak keeps both the batching and the caching: the fixed
//! permutation is a [`FixedTweak`] that wraps the inner cipher's backend with
//! a per-batch [`Whitening`] (XEX's Δ, StE's swap), so a 64-block VAES call
//! stays one 64-block call at every layer.

use cipher::{
    Block as CipherBlock, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt,
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, ParBlocks,
    ParBlocksSizeUser, array::Array, consts::U16, inout::InOut, inout::InOutBuf, typenum::Unsigned,
};

use crate::Result;
use crate::arith::gf128::Block;
use crate::oracle::{self, BlockCipher128, BlockCipher128Dec};

/// A tweakable block cipher `E: K × T × {0,1}^128 → {0,1}^128`, keyed.
///
/// Implemented by [`crate::xex::Xex`] (tweak (N, i)) and
/// [`crate::ste::StE`] (the tweak space of its inner cipher minus γ).
///
/// ```
/// use blockmodes::tweakable::TweakableBlockCipher;
/// use blockmodes::xex::{Xex, XexTweak};
/// use blockmodes::oracle::encrypt_block;
/// let xex = Xex::<blockmodes::Aes128>::new_from_slice(&[7; 16])?;
/// let t = XexTweak { n: [1; 16], i: 3 };
/// // E(K, T, ·) is an ordinary block cipher:
/// let e = xex.fix_tweak(&t)?;
/// let mut b = [9u8; 16];
/// xex.encrypt_block(&t, &mut b)?;
/// assert_eq!(b, encrypt_block(&e, &[9u8; 16]));
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub trait TweakableBlockCipher {
    /// The tweak space 𝒯.
    type Tweak: Copy + PartialEq + core::fmt::Debug;
    /// The block cipher inside (for XEX and StE over XEX: AES).
    type Cipher: BlockCipher128Dec;
    /// The per-tweak work around it (XEX: Δ; StE: the swap, then the inner
    /// cipher's whitening).
    type Whitening: Whitening;

    /// `E(K, T, ·)`: fix the tweak. Per-tweak work (XEX's Δ) is done here,
    /// once. Fails with a typed error if `tweak` is outside the tweak space
    /// (StE's γ: [`crate::Error::ForbiddenTweak`]; XEX's i = 0).
    fn fix_tweak(&self, tweak: &Self::Tweak) -> Result<Fixed<Self>>;

    /// `E(K, T, M)` on one block, in place.
    fn encrypt_block(&self, tweak: &Self::Tweak, block: &mut Block) -> Result<()> {
        let e = self.fix_tweak(tweak)?;
        *block = oracle::encrypt_block(&e, block);
        Ok(())
    }

    /// `E^-1(K, T, C)` on one block, in place.
    fn decrypt_block(&self, tweak: &Self::Tweak, block: &mut Block) -> Result<()> {
        let e = self.fix_tweak(tweak)?;
        *block = oracle::decrypt_block(&e, block);
        Ok(())
    }
}

/// The block cipher `E(K, T, ·)` of a tweakable block cipher `E` with its
/// tweak fixed.
pub type Fixed<E> =
    FixedTweak<<E as TweakableBlockCipher>::Cipher, <E as TweakableBlockCipher>::Whitening>;

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
