//! EME (Halevi and Rogaway, CT-RSA 2004): a parallelizable tweakable
//! enciphering mode, as `shared/spec/disk.md` defines it.
//!
//! m blocks, 1 <= m <= 128 (16 to 2048 bytes), a 16-byte tweak T, **LE**
//! doubling ([`crate::gf128::double_le`]), E the block cipher:
//! * `L = 2·E(0^128)`; `L_i = 2^(i-1)·L`;
//! * `PPP_i = E(P_i ⊕ L_i)`; `MP = PPP_1 ⊕ ... ⊕ PPP_m ⊕ T`; `MC = E(MP)`; `M = MP ⊕ MC`;
//! * `CCC_i = PPP_i ⊕ 2^(i-1)·M` for i >= 2; `CCC_1 = MC ⊕ T ⊕ CCC_2 ⊕ ... ⊕ CCC_m`;
//! * `C_i = E(CCC_i) ⊕ L_i`.
//!
//! Decryption is the same with E^-1 everywhere **except** in L, which always
//! comes from the forward cipher (here: computed once per key).
//!
//! Cost: 2m + 1 block-cipher calls per unit, plus one per key. Both passes go
//! through the backend in full batches; only `MC = E(MP)` is serial, and the
//! bulk call ([`crate::sector::DataUnitCipher::encrypt_units`]) enciphers the
//! `MP`s of a whole group of units in one batched call.

use cipher::KeyInit;
use zeroize::Zeroize;

use crate::error::{Error, Result};
use crate::gf128::{Block, double_le, powers_x_le, xor};
use crate::oracle::{self, BlockCipher128, BlockCipher128Dec, ParWork};
use crate::sector::{
    DataUnitCipher, Dec, Enc, MAX_GROUP, Pass, check_unit_numbers, group_units, key_len_words,
    unit_blocks,
};
use crate::wide::{WideBlockCipher, WideBlockMode};

/// Most blocks in a unit.
const MAX_BLOCKS: usize = 128;

/// EME over the block cipher `C`, with `L` and its 128 doublings computed
/// once per key.
///
/// ```
/// use blockmodes::eme::Eme;
/// let eme = Eme::<blockmodes::Aes256>::new_from_slice(&[0; 32])?;
/// let mut data = [0u8; 16];
/// eme.encrypt(&[0; 16], &mut data)?;
/// assert_eq!(hex::encode(data), "f1b9ce8ca15a4ba9fb476905434b9fd3"); // Halevi's vector
/// eme.decrypt(&[0; 16], &mut data)?;
/// assert_eq!(data, [0; 16]);
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone)]
pub struct Eme<C> {
    cipher: C,
    /// `L_i = 2^(i-1)·L` for i = 1..=128 (`l[i - 1]`).
    l: [Block; MAX_BLOCKS],
}

impl<C: BlockCipher128> Eme<C> {
    /// EME over a keyed block cipher: computes `L = 2·E(0^128)` (forward
    /// cipher) and its doublings.
    pub fn from_cipher(cipher: C) -> Self {
        let big_l = double_le(&oracle::encrypt_block(&cipher, &[0; 16]));
        let mut l = [[0; 16]; MAX_BLOCKS];
        powers_x_le(&big_l, &mut l);
        Self { cipher, l }
    }

    /// EME over the block cipher keyed with `key` (AES: 16, 24 or 32 bytes).
    ///
    /// ```
    /// use blockmodes::{eme::Eme, Error};
    /// let e = Eme::<blockmodes::Aes128>::new_from_slice(&[0; 20]);
    /// assert!(matches!(e, Err(Error::InvalidKeyLength { got: 20, .. })));
    /// ```
    pub fn new_from_slice(key: &[u8]) -> Result<Self>
    where
        C: KeyInit,
    {
        let cipher = C::new_from_slice(key).map_err(|_| Error::InvalidKeyLength {
            expected: key_len_words::<C>(),
            got: key.len(),
        })?;
        Ok(Self::from_cipher(cipher))
    }

    /// The block cipher.
    pub fn cipher(&self) -> &C {
        &self.cipher
    }

    /// Encipher one data unit (16 to 2048 bytes, a multiple of 16) in place
    /// under the tweak T.
    pub fn encrypt(&self, tweak: &Block, data: &mut [u8]) -> Result<()> {
        let blocks = one_unit(data)?;
        let m = blocks.len();
        eme_group(&Enc(&self.cipher), &self.l, &[*tweak], m, blocks);
        Ok(())
    }

    /// Consecutive data units numbered from `first_unit` (tweak: the unit
    /// number little-endian), interleaved in groups.
    fn units<P: Pass>(
        &self,
        pass: &P,
        first_unit: u128,
        unit_len: usize,
        data: &mut [u8],
    ) -> Result<()> {
        let blocks = unit_blocks(unit_len, MAX_BLOCKS * 16, data)?;
        let m = unit_len / 16;
        check_unit_numbers(first_unit, blocks.len() / m)?;
        let g = group_units(m);
        let mut tweaks = [[0u8; 16]; MAX_GROUP];
        for (k, group) in blocks.chunks_mut(g * m).enumerate() {
            let units = group.len() / m;
            let u0 = first_unit + (k * g) as u128;
            for (s, t) in tweaks[..units].iter_mut().enumerate() {
                *t = (u0 + s as u128).to_le_bytes();
            }
            eme_group(pass, &self.l, &tweaks[..units], m, group);
        }
        Ok(())
    }
}

impl<C: BlockCipher128Dec> Eme<C> {
    /// Decipher one data unit in place under the tweak T (E^-1 everywhere
    /// except in L).
    pub fn decrypt(&self, tweak: &Block, data: &mut [u8]) -> Result<()> {
        let blocks = one_unit(data)?;
        let m = blocks.len();
        eme_group(&Dec(&self.cipher), &self.l, &[*tweak], m, blocks);
        Ok(())
    }
}

impl<C> Drop for Eme<C> {
    fn drop(&mut self) {
        self.l.zeroize();
    }
}

fn check_len(len: usize) -> Result<()> {
    if len < 16 || len > MAX_BLOCKS * 16 || len % 16 != 0 {
        return Err(Error::InvalidLength(
            "EME data must be 16..=2048 bytes in multiples of 16",
        ));
    }
    Ok(())
}

fn one_unit(data: &mut [u8]) -> Result<&mut [Block]> {
    check_len(data.len())?;
    Ok(data.as_chunks_mut::<16>().0)
}

/// EME over `tweaks.len()` units of `m` blocks each, in direction `pass`
/// (E or E^-1: the two directions are the same algorithm).
fn eme_group<P: Pass>(
    pass: &P,
    l: &[Block; MAX_BLOCKS],
    tweaks: &[Block],
    m: usize,
    data: &mut [Block],
) {
    let mut sums = [[0u8; 16]; MAX_GROUP];
    // First pass: PPP_i = E(P_i ⊕ L_i), and their sum per unit.
    pass.run(
        data.len(),
        &mut FirstPass {
            data,
            l,
            m,
            sums: &mut sums,
        },
    );
    // MP = ⊕ PPP_i ⊕ T; MC = E(MP), all units in one call; then the CCC_i.
    pass.run(
        tweaks.len(),
        &mut Middle {
            data,
            tweaks,
            m,
            sums: &sums,
        },
    );
    // Second pass: C_i = E(CCC_i) ⊕ L_i.
    pass.run(data.len(), &mut SecondPass { data, l, m });
    sums.zeroize();
}

/// Split the batch `start..start + n` of a run of `m`-block units into its
/// pieces within one unit: `f(unit, first block index in the unit, offset in
/// the batch, length)`.
#[inline(always)]
fn pieces(start: usize, n: usize, m: usize, mut f: impl FnMut(usize, usize, usize, usize)) {
    let (mut unit, mut j, mut off) = (start / m, start % m, 0);
    while off < n {
        let len = (m - j).min(n - off);
        f(unit, j, off, len);
        off += len;
        unit += 1;
        j = 0;
    }
}

struct FirstPass<'a> {
    data: &'a mut [Block],
    l: &'a [Block; MAX_BLOCKS],
    m: usize,
    sums: &'a mut [Block; MAX_GROUP],
}

impl ParWork for FirstPass<'_> {
    #[inline(always)]
    fn before(&mut self, start: usize, blocks: &mut [Block]) {
        let (data, l) = (&*self.data, self.l);
        pieces(start, blocks.len(), self.m, |_, j, off, len| {
            let input = &data[start + off..start + off + len];
            for ((b, p), li) in blocks[off..off + len].iter_mut().zip(input).zip(&l[j..]) {
                *b = xor(p, li);
            }
        });
    }

    #[inline(always)]
    fn after(&mut self, start: usize, blocks: &[Block]) {
        self.data[start..start + blocks.len()].copy_from_slice(blocks);
        let sums = &mut *self.sums;
        pieces(start, blocks.len(), self.m, |unit, _, off, len| {
            let mut acc = u128::from_ne_bytes(sums[unit]);
            for b in &blocks[off..off + len] {
                acc ^= u128::from_ne_bytes(*b);
            }
            sums[unit] = acc.to_ne_bytes();
        });
    }
}

struct Middle<'a> {
    data: &'a mut [Block],
    tweaks: &'a [Block],
    m: usize,
    sums: &'a [Block; MAX_GROUP],
}

impl ParWork for Middle<'_> {
    /// `MP = SP ⊕ T`.
    #[inline(always)]
    fn before(&mut self, start: usize, blocks: &mut [Block]) {
        for (k, b) in blocks.iter_mut().enumerate() {
            *b = xor(&self.sums[start + k], &self.tweaks[start + k]);
        }
    }

    /// `M = MP ⊕ MC`; `CCC_i = PPP_i ⊕ 2^(i-1)·M` (i >= 2);
    /// `CCC_1 = MC ⊕ T ⊕ CCC_2 ⊕ ... ⊕ CCC_m`.
    #[inline(always)]
    fn after(&mut self, start: usize, blocks: &[Block]) {
        let m = self.m;
        let mut powers = [[0u8; 16]; MAX_BLOCKS];
        for (k, mc) in blocks.iter().enumerate() {
            let s = start + k;
            let mp = xor(&self.sums[s], &self.tweaks[s]);
            powers_x_le(&xor(&mp, mc), &mut powers[..m]);
            let unit = &mut self.data[s * m..(s + 1) * m];
            let mut acc = 0u128;
            for (c, p) in unit[1..].iter_mut().zip(&powers[1..m]) {
                let v = u128::from_ne_bytes(*c) ^ u128::from_ne_bytes(*p);
                acc ^= v;
                *c = v.to_ne_bytes();
            }
            unit[0] = (acc ^ u128::from_ne_bytes(xor(mc, &self.tweaks[s]))).to_ne_bytes();
        }
        powers.zeroize();
    }
}

struct SecondPass<'a> {
    data: &'a mut [Block],
    l: &'a [Block; MAX_BLOCKS],
    m: usize,
}

impl ParWork for SecondPass<'_> {
    #[inline(always)]
    fn before(&mut self, start: usize, blocks: &mut [Block]) {
        blocks.copy_from_slice(&self.data[start..start + blocks.len()]);
    }

    #[inline(always)]
    fn after(&mut self, start: usize, blocks: &[Block]) {
        let (data, l) = (&mut *self.data, self.l);
        pieces(start, blocks.len(), self.m, |_, j, off, len| {
            let out = &mut data[start + off..start + off + len];
            for ((c, y), li) in out.iter_mut().zip(&blocks[off..off + len]).zip(&l[j..]) {
                *c = xor(y, li);
            }
        });
    }
}

impl<C: BlockCipher128Dec> WideBlockCipher for Eme<C> {
    const MAX_LEN: usize = MAX_BLOCKS * 16;

    fn check_len(&self, len: usize) -> Result<()> {
        check_len(len)
    }
    fn encrypt(&self, tweak: &Block, data: &mut [u8]) -> Result<()> {
        Eme::encrypt(self, tweak, data)
    }
    fn decrypt(&self, tweak: &Block, data: &mut [u8]) -> Result<()> {
        Eme::decrypt(self, tweak, data)
    }
    fn encrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        self.units(&Enc(&self.cipher), first_unit, unit_len, data)
    }
    fn decrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        self.units(&Dec(&self.cipher), first_unit, unit_len, data)
    }
}

impl<C: BlockCipher128Dec> WideBlockMode<C> for Eme<C> {
    fn from_cipher(cipher: C) -> Self {
        Eme::from_cipher(cipher)
    }
}

impl<C: BlockCipher128Dec + Sync> DataUnitCipher for Eme<C> {
    const MAX_UNIT_LEN: usize = MAX_BLOCKS * 16;

    fn encrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        WideBlockCipher::encrypt_units(self, first_unit, unit_len, data)
    }
    fn decrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        WideBlockCipher::decrypt_units(self, first_unit, unit_len, data)
    }
}
