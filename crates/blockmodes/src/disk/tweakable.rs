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

#[allow(unused_imports)] // doc links
use cipher::{BlockCipherDecrypt, BlockCipherEncrypt};

use crate::Result;
use crate::arith::gf128::Block;
use crate::oracle::{self, BlockCipher128Dec};

/// A tweakable block cipher `E: K × T × {0,1}^128 → {0,1}^128`, keyed.
///
/// Implemented by [`crate::xex::Xex`] (tweak (N, i)) and
/// [`crate::ste::StE`] (the tweak space of its inner cipher minus γ).
///
/// ```
/// use blockmodes::cipher::BlockCipherEncrypt;
/// use blockmodes::tweakable::TweakableBlockCipher;
/// use blockmodes::xex::{Xex, XexTweak};
/// let xex = Xex::<blockmodes::Aes128>::new_from_slice(&[7; 16])?;
/// let t = XexTweak { n: [1; 16], i: 3 };
/// // E(K, T, ·) is an ordinary block cipher:
/// let e = xex.fix_tweak(&t)?;
/// let mut b = [9u8; 16];
/// xex.encrypt_block(&t, &mut b)?;
/// let mut c = [9u8; 16].into();
/// BlockCipherEncrypt::encrypt_block(&e, &mut c);
/// assert_eq!(b, <[u8; 16]>::from(c));
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub trait TweakableBlockCipher {
    /// The tweak space 𝒯.
    type Tweak: Copy + PartialEq + core::fmt::Debug;
    /// The block cipher inside (for XEX and StE over XEX: AES).
    type Cipher: BlockCipher128Dec;
    /// The per-tweak work around it (XEX: Δ; StE: the swap, then the inner
    /// cipher's whitening).
    type Whitening: Whitening + 'static;

    /// `E(K, T, ·)`: fix the tweak. Per-tweak work (XEX's Δ) is done here,
    /// once. Fails with a typed error if `tweak` is outside the tweak space
    /// (StE's γ: [`crate::Error::ForbiddenTweak`]; XEX's i = 0).
    ///
    /// ```
    /// use blockmodes::tweakable::TweakableBlockCipher;
    /// use blockmodes::xex::{Xex, XexTweak};
    /// let xex = Xex::<blockmodes::Aes128>::new_from_slice(&[7; 16])?;
    /// let t = XexTweak { n: [1; 16], i: 5 };
    /// let e = xex.fix_tweak(&t)?; // E_K(N) and the delta, once
    /// let mut b = [9u8; 16];
    /// xex.encrypt_block(&t, &mut b)?;
    /// assert_eq!(blockmodes::oracle::encrypt_block(&e, &[9u8; 16]), b);
    /// assert!(xex.fix_tweak(&XexTweak { n: [1; 16], i: 0 }).is_err()); // i >= 1
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn fix_tweak(&self, tweak: &Self::Tweak) -> Result<Fixed<Self>>;

    /// `E(K, T, M)` on one block, in place.
    ///
    /// ```
    /// use blockmodes::tweakable::TweakableBlockCipher;
    /// use blockmodes::xex::{Xex, XexTweak};
    /// let xex = Xex::<blockmodes::Aes128>::new_from_slice(&[7; 16])?;
    /// let (mut b, mut c) = ([0u8; 16], [0u8; 16]);
    /// xex.encrypt_block(&XexTweak { n: [1; 16], i: 1 }, &mut b)?;
    /// xex.encrypt_block(&XexTweak { n: [1; 16], i: 2 }, &mut c)?;
    /// assert_ne!(b, c); // another tweak, another permutation
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    fn encrypt_block(&self, tweak: &Self::Tweak, block: &mut Block) -> Result<()> {
        let e = self.fix_tweak(tweak)?;
        *block = oracle::encrypt_block(&e, block);
        Ok(())
    }

    /// `E^-1(K, T, C)` on one block, in place.
    ///
    /// ```
    /// use blockmodes::tweakable::TweakableBlockCipher;
    /// use blockmodes::xex::{Xex, XexTweak};
    /// let xex = Xex::<blockmodes::Aes128>::new_from_slice(&[7; 16])?;
    /// let t = XexTweak { n: [1; 16], i: 1 };
    /// let mut b = *b"sixteen byte msg";
    /// xex.encrypt_block(&t, &mut b)?;
    /// xex.decrypt_block(&t, &mut b)?;
    /// assert_eq!(&b, b"sixteen byte msg");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
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

use crate::disk::fixed::{FixedTweak, Whitening};
