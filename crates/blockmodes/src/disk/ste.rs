//! StE, Swap-then-Encipher (Bellare, Cash, Keelveedhi, CCS 2011, section 3):
//! a tweakable block cipher that can securely encipher its own key.
//!
//! Given a tweakable block cipher E whose key is one block, public
//! parameters γ ∈ 𝒯 (a tweak F may never use) and α ∈ {0,1}^128, and
//! `H = E(K, γ, α)` (computed once per key, kept secret),
//! `F = StE_{γ,α}[E]` with tweak space `𝒯 \ {γ}` is
//!
//! ```text
//! F(K, T, M):     if M = K then E(K, T, H) else if M = H then E(K, T, K) else E(K, T, M)
//! F^-1(K, T, C):  Y ← E^-1(K, T, C); if Y = K then H else if Y = H then K else Y
//! ```
//!
//! The swap of K and H is done in constant time: both comparisons are
//! computed as masks over the whole batch and the result selected without a
//! branch (see [`SteSwap`]). A call with tweak γ is refused with
//! [`Error::ForbiddenTweak`]: the only use of γ is computing H in the
//! constructor.
//!
//! blockmodes instantiates E = XEX over AES-128 ([`SteXexAes128`]) with the
//! spec's `γ = (0^120 ‖ 0x01, 1)` ([`XEX_GAMMA`]) and `α = 0^128`
//! ([`ALPHA`]).

use cipher::consts::U16;
use cipher::{KeyInit, KeySizeUser};
use subtle::{ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

use crate::Aes128;
use crate::arith::gf128::Block;
use crate::disk::fixed::{FixedTweak, Whitening};
use crate::disk::simd::Avx512;
use crate::disk::tweakable::{Fixed, TweakableBlockCipher};
use crate::disk::xex::{Xex, XexTweak};
use crate::error::{Error, Result};
use crate::oracle::BlockCipher128Dec;

/// The spec's γ for StE over XEX: `(0^120 ‖ 0x01, 1)`.
pub const XEX_GAMMA: XexTweak = XexTweak {
    n: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    i: 1,
};

/// The spec's α: `0^128`.
pub const ALPHA: Block = [0; 16];

/// StE over the tweakable block cipher `E`, keyed: holds `E_K`, K and
/// `H = E(K, γ, α)`.
///
/// ```
/// use blockmodes::ste::SteXexAes128;
/// use blockmodes::tweakable::TweakableBlockCipher;
/// use blockmodes::xex::XexTweak;
/// let key = [0x42u8; 16];
/// let f = SteXexAes128::new_from_slice(&key)?;
/// let mut block = key; // enciphering the key itself is what StE is for
/// f.encrypt_block(&XexTweak::T0, &mut block)?;
/// f.decrypt_block(&XexTweak::T0, &mut block)?;
/// assert_eq!(block, key);
/// // γ is not in F's tweak space.
/// assert!(f.encrypt_block(&blockmodes::ste::XEX_GAMMA, &mut block).is_err());
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone)]
pub struct StE<E: TweakableBlockCipher> {
    e: E,
    swap: SteSwap,
    gamma: E::Tweak,
}

impl<E: TweakableBlockCipher> core::fmt::Debug for StE<E> {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StE").finish_non_exhaustive()
    }
}

/// StE over XEX-AES-128, the paper's instantiation.
pub type SteXexAes128 = StE<Xex<Aes128>>;

impl<E: TweakableBlockCipher> StE<E> {
    /// `StE_{γ,α}[E]` under the key K (one block): keys E with K and computes
    /// `H = E(K, γ, α)`.
    ///
    /// ```
    /// use blockmodes::ste::{StE, ALPHA, XEX_GAMMA};
    /// use blockmodes::xex::Xex;
    /// let f = StE::<Xex<blockmodes::Aes128>>::new(&[1; 16], XEX_GAMMA, &ALPHA)?;
    /// assert_eq!(f.gamma(), &XEX_GAMMA);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn new(key: &Block, gamma: E::Tweak, alpha: &Block) -> Result<Self>
    where
        E: KeyInit + KeySizeUser<KeySize = U16>,
    {
        let e = E::new(key.into());
        let mut h = *alpha;
        e.encrypt_block(&gamma, &mut h)?;
        let swap = SteSwap::new(*key, h);
        h.zeroize();
        Ok(Self { e, swap, gamma })
    }

    /// The inner cipher, K and H (for EtE's fused path).
    pub(super) fn parts(&self) -> (&E, &Block, &Block) {
        (&self.e, &self.swap.k, &self.swap.h)
    }

    /// The reserved tweak γ.
    ///
    /// ```
    /// use blockmodes::ste::{SteXexAes128, XEX_GAMMA};
    /// let f = SteXexAes128::new_from_slice(&[1; 16])?;
    /// assert_eq!(f.gamma(), &XEX_GAMMA); // the one tweak F refuses
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn gamma(&self) -> &E::Tweak {
        &self.gamma
    }

    fn check(&self, tweak: &E::Tweak) -> Result<()> {
        if *tweak == self.gamma {
            Err(Error::ForbiddenTweak)
        } else {
            Ok(())
        }
    }
}

impl<C> StE<Xex<C>>
where
    C: BlockCipher128Dec + Clone + KeyInit + KeySizeUser<KeySize = U16>,
{
    /// StE over XEX with the spec's γ and α; the key must be exactly one
    /// block (16 bytes): StE compares message blocks with the key.
    ///
    /// ```
    /// use blockmodes::{ste::SteXexAes128, Error};
    /// assert!(matches!(
    ///     SteXexAes128::new_from_slice(&[0; 32]),
    ///     Err(Error::InvalidKeyLength { expected: 16, got: 32 })
    /// ));
    /// ```
    pub fn new_from_slice(key: &[u8]) -> Result<Self> {
        let key: &Block = key.try_into().map_err(|_| Error::InvalidKeyLength {
            expected: 16,
            got: key.len(),
        })?;
        Self::new(key, XEX_GAMMA, &ALPHA)
    }
}

impl<E: TweakableBlockCipher> TweakableBlockCipher for StE<E> {
    type Tweak = E::Tweak;
    type Cipher = E::Cipher;
    type Whitening = SteWhitening<E::Whitening>;

    /// `F(K, T, ·)`: the inner `E(K, T, ·)` with the swap before enciphering
    /// and after deciphering; refuses γ.
    fn fix_tweak(&self, tweak: &E::Tweak) -> Result<Fixed<Self>> {
        self.check(tweak)?;
        let (cipher, inner) = self.e.fix_tweak(tweak)?.into_parts();
        Ok(FixedTweak::new(
            cipher,
            SteWhitening {
                swap: self.swap.clone(),
                inner,
            },
        ))
    }

    fn encrypt_block(&self, tweak: &E::Tweak, block: &mut Block) -> Result<()> {
        self.check(tweak)?;
        self.swap.swap(core::slice::from_mut(block));
        self.e.encrypt_block(tweak, block)
    }

    fn decrypt_block(&self, tweak: &E::Tweak, block: &mut Block) -> Result<()> {
        self.check(tweak)?;
        self.e.decrypt_block(tweak, block)?;
        self.swap.swap(core::slice::from_mut(block));
        Ok(())
    }
}

/// `F(K, T, ·)`: StE over a tweakable cipher whose fixed permutation is
/// `C` with the whitening `W`.
pub type SteFixed<C, W> = FixedTweak<C, SteWhitening<W>>;

/// StE's whitening around the inner cipher's: the swap before enciphering
/// (then the inner whitening) and after deciphering (after the inner
/// whitening). When the inner whitening is a constant xor (XEX's Δ), the
/// swap and the xor are one pass over the batch.
#[derive(Clone)]
pub struct SteWhitening<W> {
    swap: SteSwap,
    inner: W,
}

impl<W> core::fmt::Debug for SteWhitening<W> {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SteWhitening").finish_non_exhaustive()
    }
}

impl<W: Whitening> Whitening for SteWhitening<W> {
    #[inline(always)]
    fn before_encrypt(&self, blocks: &mut [Block]) {
        match self.inner.xor_constant() {
            Some(c) => self.swap.swap_xor(blocks, c, true),
            None => {
                self.swap.swap(blocks);
                self.inner.before_encrypt(blocks);
            }
        }
    }
    #[inline(always)]
    fn after_encrypt(&self, blocks: &mut [Block]) {
        self.inner.after_encrypt(blocks)
    }
    #[inline(always)]
    fn before_decrypt(&self, blocks: &mut [Block]) {
        self.inner.before_decrypt(blocks)
    }
    #[inline(always)]
    fn after_decrypt(&self, blocks: &mut [Block]) {
        match self.inner.xor_constant() {
            Some(c) => self.swap.swap_xor(blocks, c, false),
            None => {
                self.inner.after_decrypt(blocks);
                self.swap.swap(blocks);
            }
        }
    }
}

/// StE's swap of K and H (an involution: K ↦ H, H ↦ K, anything else
/// unchanged), in constant time.
///
/// For each block: `mask = [M = K] | [M = H]` as all-ones or zero, computed
/// with arithmetic only, then `M ⊕ (mask & (K ⊕ H))`. (If K = H both masks
/// are set and the block stays K = H, which is also what the paper's
/// definition gives.)
///
/// On x86-64 with AVX-512 (checked once, when the key is set) the pass is
/// the vector kernel of `disk::simd`, four blocks per compare (4x the
/// portable loop: StE's fixed-tweak batches run through the cipher's own
/// backend, the engine's included only inside EtE); elsewhere the portable
/// loop below.
#[derive(Clone)]
pub struct SteSwap {
    k: Block,
    h: Block,
    simd: Option<Avx512>,
}

impl core::fmt::Debug for SteSwap {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SteSwap").finish_non_exhaustive()
    }
}

impl SteSwap {
    fn new(k: Block, h: Block) -> Self {
        Self::with_simd(k, h, Avx512::detect())
    }

    /// As `new`, on the given kernel (`None`: the portable loop).
    pub(crate) fn with_simd(k: Block, h: Block, simd: Option<Avx512>) -> Self {
        Self { k, h, simd }
    }

    /// Swap K and H in every block of `blocks`.
    #[inline(always)]
    pub fn swap(&self, blocks: &mut [Block]) {
        if let Some(simd) = self.simd {
            return simd.swap_xor(&self.k, &self.h, &[0; 16], &[0; 16], blocks);
        }
        let (k0, k1) = words(&self.k);
        let (h0, h1) = words(&self.h);
        let (x0, x1) = (k0 ^ h0, k1 ^ h1);
        for b in blocks {
            let (m0, m1) = words(b);
            // `subtle`'s Choice keeps the comparison a mask: the plain
            // `zero_mask` form was compiled to a branch on M == K or M == H
            // (found by .ci/ct under valgrind).
            let hit = ((m0 ^ k0) | (m1 ^ k1)).ct_eq(&0) | ((m0 ^ h0) | (m1 ^ h1)).ct_eq(&0);
            let mask = u64::conditional_select(&0, &u64::MAX, hit);
            b[..8].copy_from_slice(&(m0 ^ (x0 & mask)).to_le_bytes());
            b[8..].copy_from_slice(&(m1 ^ (x1 & mask)).to_le_bytes());
        }
    }
}

impl SteSwap {
    /// One pass of the swap and a xor with `c`: `swap(M) ⊕ c` when
    /// `swap_first`, else `swap(M ⊕ c)`.
    #[inline(always)]
    pub fn swap_xor(&self, blocks: &mut [Block], c: &Block, swap_first: bool) {
        if let Some(simd) = self.simd {
            let (pre, post) = if swap_first {
                (&[0; 16], c)
            } else {
                (c, &[0; 16])
            };
            return simd.swap_xor(&self.k, &self.h, pre, post, blocks);
        }
        let (k0, k1) = words(&self.k);
        let (h0, h1) = words(&self.h);
        let (x0, x1) = (k0 ^ h0, k1 ^ h1);
        let (c0, c1) = words(c);
        let (pre0, pre1) = if swap_first { (0, 0) } else { (c0, c1) };
        let (post0, post1) = if swap_first { (c0, c1) } else { (0, 0) };
        for b in blocks {
            let (m0, m1) = words(b);
            let (m0, m1) = (m0 ^ pre0, m1 ^ pre1);
            // `subtle`'s Choice keeps the comparison a mask: the plain
            // `zero_mask` form was compiled to a branch on M == K or M == H
            // (found by .ci/ct under valgrind).
            let hit = ((m0 ^ k0) | (m1 ^ k1)).ct_eq(&0) | ((m0 ^ h0) | (m1 ^ h1)).ct_eq(&0);
            let mask = u64::conditional_select(&0, &u64::MAX, hit);
            b[..8].copy_from_slice(&(m0 ^ (x0 & mask) ^ post0).to_le_bytes());
            b[8..].copy_from_slice(&(m1 ^ (x1 & mask) ^ post1).to_le_bytes());
        }
    }
}

/// The block as two little-endian words (this shape vectorizes).
#[inline(always)]
fn words(b: &Block) -> (u64, u64) {
    let (lo, hi) = b.split_at(8);
    (
        u64::from_le_bytes(lo.try_into().unwrap_or_default()),
        u64::from_le_bytes(hi.try_into().unwrap_or_default()),
    )
}

impl Drop for SteSwap {
    fn drop(&mut self) {
        self.k.zeroize();
        self.h.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_swap_matches_portable_swap() {
        let mut s = SteSwap::new([1; 16], [2; 16]);
        let c = [0x5cu8; 16];
        for n in 0..=130usize {
            let mut blocks: Vec<Block> = (0..n).map(|i| [(i % 5) as u8; 16]).collect();
            blocks
                .iter_mut()
                .step_by(3)
                .for_each(|b| *b = crate::arith::gf128::xor(b, &c));
            for first in [true, false] {
                let (mut v, mut p) = (blocks.clone(), blocks.clone());
                s.simd = Avx512::detect();
                s.swap_xor(&mut v, &c, first);
                s.simd = None;
                s.swap_xor(&mut p, &c, first);
                assert_eq!(v, p, "{n} {first}");
                s.simd = Avx512::detect();
                s.swap(&mut v);
                s.simd = None;
                s.swap(&mut p);
                assert_eq!(v, p, "{n}");
            }
        }
    }

    #[test]
    fn swap_is_the_spec_swap() {
        let s = SteSwap {
            k: [1; 16],
            h: [2; 16],
            simd: None,
        };
        let mut b = [[1u8; 16], [2; 16], [3; 16]];
        let mut near = [1u8; 16];
        near[15] = 0;
        b[2] = near;
        s.swap(&mut b);
        assert_eq!(b, [[2u8; 16], [1; 16], near]);
    }
}
