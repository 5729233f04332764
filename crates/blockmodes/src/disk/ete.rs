//! EtE, Encipher-then-Encipher (Bellare, Cash, Keelveedhi, CCS 2011,
//! section 4): a wide-block cipher that can securely encipher data holding
//! its own key in any block.
//!
//! Given a wide-block mode of operation WB (one that uses its key only
//! through a block cipher, [`WideBlockMode`]) and a tweakable block cipher F
//! with two tweaks γ1 ≠ γ2:
//!
//! ```text
//! J(K, T, M)    = WB(T, ECB(M : F(K, γ1, ·)) : F(K, γ2, ·))
//! J^-1(K, T, C) = ECB(WB^-1(T, C : F^-1(K, γ2, ·)) : F^-1(K, γ1, ·))
//! ```
//!
//! [`EtE<W, F>`] is that transform for any `W: WideBlockMode<Fixed<F>>` and
//! any [`TweakableBlockCipher`] F: both permutations `F(K, γ1, ·)` and
//! `F(K, γ2, ·)` are fixed once per key ([`TweakableBlockCipher::fix_tweak`]),
//! and W is built over the second, **including** whatever W derives from
//! its block cipher (EME's `L = 2·F(K, γ2, 0^128)`, from the forward
//! direction).
//!
//! The paper's instantiation J = EtE[EME, StE[XEX-AES-128]] with
//! `γ1 = t0 = (0^128, 1)` and `γ2 = t1 = (10^127, 1)` is [`EteEmeAes128`].
//! Per key it precomputes H, the two XEX Δs, EME's L and its doublings;
//! then each block costs three AES calls.
//!
//! On x86-64 with AES-NI and on aarch64 with the ARMv8 AES instructions,
//! [`EteEmeAes128::new_from_slice`] also sets up the
//! fused AES kernels (`crate::backend`): the ECB layer runs inside EME's
//! first pass when enciphering (`PPP_j = F(K, γ2, F(K, γ1, P_j) ⊕ L_j)`,
//! two ciphers per block in one round loop) and inside the last when
//! deciphering, StE's swap and XEX's Δ in the kernels (the Δs folded into
//! the first and last round keys), H, the Δs and L precomputed per key.
//!
//! **Keys: AES-128 only.** StE compares message blocks with the key K, so K
//! must be exactly one block; XEX-AES-192/256 would have a key longer than a
//! block. [`EtE::new_from_slice`] refuses other key lengths with
//! [`crate::Error::InvalidKeyLength`].

use cipher::consts::U16;
use cipher::{KeyInit, KeySizeUser};

use crate::Aes128;
use crate::arith::gf128::Block;
use crate::disk::eme::Eme;
use crate::disk::ste::{StE, SteFixed};
use crate::disk::tweakable::{Fixed, TweakableBlockCipher};
use crate::disk::units::{DataUnitCipher, ecb_decrypt, ecb_encrypt, group_units};
use crate::disk::wide::{WideBlockCipher, WideBlockMode, check_units};
use crate::disk::xex::{Xex, XexDelta, XexTweak};
use crate::error::{Error, Result};
use crate::oracle::BlockCipher128Dec;
use zeroize::Zeroize;

use crate::engine::Dir;

/// EtE[W, F]: the ECB layer `F(K, γ1, ·)` and the wide-block mode W over
/// `F(K, γ2, ·)`.
///
/// ```
/// use blockmodes::ete::EteEmeAes128;
/// let key = [0x11u8; 16];
/// let j = EteEmeAes128::new_from_slice(&key)?;
/// let mut sector = [0u8; 512];
/// sector[16..32].copy_from_slice(&key); // the key in block 2: EtE's point
/// let plain = sector;
/// j.encrypt(&[7; 16], &mut sector)?;
/// j.decrypt(&[7; 16], &mut sector)?;
/// assert_eq!(sector, plain);
/// # Ok::<(), blockmodes::Error>(())
/// ```
pub struct EtE<W, F: TweakableBlockCipher> {
    /// `F(K, γ1, ·)`.
    ecb: Fixed<F>,
    /// `WB(·, · : F(K, γ2, ·))`.
    wide: W,
    /// The fused AES kernels (EME over StE[XEX-AES-128] keyed from key
    /// bytes on a CPU with AES-NI or the ARMv8 AES instructions:
    /// [`EtE::new_from_slice`]).
    fused: crate::backend::Beside<super::eme::fused::Ete>,
}

impl<W: Clone, F: TweakableBlockCipher> Clone for EtE<W, F>
where
    Fixed<F>: Clone,
{
    fn clone(&self) -> Self {
        Self {
            ecb: self.ecb.clone(),
            wide: self.wide.clone(),
            fused: self.fused.clone(),
        }
    }
}

impl<W, F: TweakableBlockCipher> core::fmt::Debug for EtE<W, F> {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EtE").finish_non_exhaustive()
    }
}

/// The paper's J = EtE[EME, StE[XEX-AES-128]] with γ1 = t0, γ2 = t1.
pub type EteEmeAes128 = EtE<Eme<SteFixed<Aes128, XexDelta>>, StE<Xex<Aes128>>>;

impl<W, F> EtE<W, F>
where
    F: TweakableBlockCipher,
    W: WideBlockMode<Fixed<F>>,
{
    /// EtE over the keyed tweakable cipher `f`, with γ1 for the ECB layer and
    /// γ2 for the wide-block mode's block cipher. The two tweaks must differ
    /// ([`Error::InvalidParameter`]) and be in F's tweak space (for StE: not
    /// its γ, [`Error::ForbiddenTweak`]).
    ///
    /// ```
    /// use blockmodes::ete::EteEmeAes128;
    /// use blockmodes::ste::{SteXexAes128, XEX_GAMMA};
    /// use blockmodes::xex::XexTweak;
    /// let f = SteXexAes128::new_from_slice(&[3; 16])?;
    /// let j = EteEmeAes128::new(&f, &XexTweak::T0, &XexTweak::T1)?;
    /// assert!(EteEmeAes128::new(&f, &XexTweak::T0, &XEX_GAMMA).is_err());
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn new(f: &F, gamma1: &F::Tweak, gamma2: &F::Tweak) -> Result<Self> {
        if gamma1 == gamma2 {
            return Err(Error::InvalidParameter("EtE's two tweaks must differ"));
        }
        Ok(Self {
            ecb: f.fix_tweak(gamma1)?,
            wide: W::from_cipher(f.fix_tweak(gamma2)?),
            fused: crate::backend::Beside::new(None),
        })
    }

    /// One unit or consecutive units on the fused kernels, if this key has
    /// them: `tweak(s)` is unit s's tweak. The length was checked.
    fn fused(
        &self,
        enc: bool,
        unit_len: usize,
        data: &mut [u8],
        tweak: impl Fn(usize) -> Block,
    ) -> bool {
        let Some(f) = self.fused.get() else {
            return false;
        };
        let dir = if enc { Dir::Encrypt } else { Dir::Decrypt };
        f.units(dir, unit_len / 16, data.as_chunks_mut::<16>().0, tweak);
        true
    }

    /// The wide-block mode over `F(K, γ2, ·)`.
    ///
    /// ```
    /// use blockmodes::{ete::EteEmeAes128, wide::WideBlockCipher};
    /// let j = EteEmeAes128::new_from_slice(&[1; 16])?;
    /// assert!(j.wide().check_len(2048).is_ok()); // EME inside: up to 128 blocks
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn wide(&self) -> &W {
        &self.wide
    }

    /// `J(K, T, M)` on one data unit in place.
    ///
    /// ```
    /// use blockmodes::ete::EteEmeAes128;
    /// let key = [1u8; 16];
    /// let j = EteEmeAes128::new_from_slice(&key)?;
    /// let mut unit = [0u8; 64];
    /// unit[..16].copy_from_slice(&key); // safe even when the data holds the key
    /// j.encrypt(&[5; 16], &mut unit)?;
    /// assert_ne!(unit[..16], key);
    /// assert!(j.encrypt(&[5; 16], &mut [0u8; 20]).is_err()); // whole blocks only
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encrypt(&self, tweak: &Block, data: &mut [u8]) -> Result<()> {
        WideBlockCipher::check_len(self, data.len())?;
        if self.fused(true, data.len(), data, |_| *tweak) {
            return Ok(());
        }
        ecb_encrypt(&self.ecb, data.as_chunks_mut::<16>().0);
        self.wide.encrypt(tweak, data)
    }

    /// `J^-1(K, T, C)` on one data unit in place.
    ///
    /// ```
    /// use blockmodes::ete::EteEmeAes128;
    /// let j = EteEmeAes128::new_from_slice(&[1; 16])?;
    /// let mut unit = [3u8; 512];
    /// j.encrypt(&[5; 16], &mut unit)?;
    /// j.decrypt(&[5; 16], &mut unit)?;
    /// assert_eq!(unit, [3u8; 512]);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt(&self, tweak: &Block, data: &mut [u8]) -> Result<()> {
        WideBlockCipher::check_len(self, data.len())?;
        if self.fused(false, data.len(), data, |_| *tweak) {
            return Ok(());
        }
        self.wide.decrypt(tweak, data)?;
        ecb_decrypt(&self.ecb, data.as_chunks_mut::<16>().0);
        Ok(())
    }

    /// Consecutive units, in groups that stay in L1: the ECB layer over a
    /// group, then W's own bulk call over it.
    fn units(&self, first_unit: u128, unit_len: usize, data: &mut [u8], enc: bool) -> Result<()> {
        check_units(self, first_unit, unit_len, data)?;
        if self.fused(enc, unit_len, data, |s| {
            (first_unit + s as u128).to_le_bytes()
        }) {
            return Ok(());
        }
        let g = group_units(unit_len / 16);
        for (k, chunk) in data.chunks_mut(g * unit_len).enumerate() {
            let first = first_unit + (k * g) as u128;
            if enc {
                ecb_encrypt(&self.ecb, chunk.as_chunks_mut::<16>().0);
                self.wide.encrypt_units(first, unit_len, chunk)?;
            } else {
                self.wide.decrypt_units(first, unit_len, chunk)?;
                ecb_decrypt(&self.ecb, chunk.as_chunks_mut::<16>().0);
            }
        }
        Ok(())
    }
}

impl<C> EtE<Eme<SteFixed<C, XexDelta>>, StE<Xex<C>>>
where
    C: BlockCipher128Dec + Clone + KeyInit + KeySizeUser<KeySize = U16>,
{
    /// J under a 16-byte key (for [`EteEmeAes128`]: AES-128 only, see the
    /// module docs), with the spec's γ1 = t0 and γ2 = t1.
    ///
    /// ```
    /// use blockmodes::{ete::EteEmeAes128, Error};
    /// assert!(EteEmeAes128::new_from_slice(&[0; 16]).is_ok());
    /// assert!(matches!(
    ///     EteEmeAes128::new_from_slice(&[0; 32]),
    ///     Err(Error::InvalidKeyLength { expected: 16, got: 32 })
    /// ));
    /// ```
    pub fn new_from_slice(key: &[u8]) -> Result<Self> {
        let f = StE::<Xex<C>>::new_from_slice(key)?;
        let mut j = Self::new(&f, &XexTweak::T0, &XexTweak::T1)?;
        // StE keyed its XEX from the key bytes: the fused key, if any.
        let (xex, k, h) = f.parts();
        if let Some(aes) = xex.fused_key() {
            let mut d1 = xex.delta(&XexTweak::T0)?;
            let mut d2 = match xex.delta(&XexTweak::T1) {
                Ok(d) => d,
                Err(e) => {
                    d1.zeroize();
                    return Err(e);
                }
            };
            let ete = super::eme::fused::Ete::new(aes, (k, h), (&d1, &d2), j.wide.l());
            j.fused = crate::backend::Beside::new(ete);
            d1.zeroize();
            d2.zeroize();
        }
        Ok(j)
    }
}

impl<W, F> WideBlockCipher for EtE<W, F>
where
    F: TweakableBlockCipher,
    W: WideBlockMode<Fixed<F>>,
{
    const MAX_LEN: usize = W::MAX_LEN;

    fn check_len(&self, len: usize) -> Result<()> {
        self.wide.check_len(len)?;
        if !len.is_multiple_of(16) {
            return Err(Error::InvalidLength("EtE data units must be whole blocks"));
        }
        Ok(())
    }
    fn encrypt(&self, tweak: &Block, data: &mut [u8]) -> Result<()> {
        EtE::encrypt(self, tweak, data)
    }
    fn decrypt(&self, tweak: &Block, data: &mut [u8]) -> Result<()> {
        EtE::decrypt(self, tweak, data)
    }
    fn encrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        self.units(first_unit, unit_len, data, true)
    }
    fn decrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        self.units(first_unit, unit_len, data, false)
    }
}

impl<W, F> DataUnitCipher for EtE<W, F>
where
    F: TweakableBlockCipher,
    Fixed<F>: Sync,
    W: WideBlockMode<Fixed<F>> + Sync,
{
    const MAX_UNIT_LEN: usize = W::MAX_LEN;

    fn encrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        self.units(first_unit, unit_len, data, true)
    }
    fn decrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        self.units(first_unit, unit_len, data, false)
    }
}
