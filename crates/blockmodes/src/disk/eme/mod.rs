//! EME (Halevi and Rogaway, CT-RSA 2004): a parallelizable tweakable
//! enciphering mode, as `docs/spec/disk.md` defines it.
//!
//! m blocks, 1 <= m <= 128 (16 to 2048 bytes), a 16-byte tweak T, **LE**
//! doubling ([`crate::arith::gf128::double_le`]), E the block cipher:
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
//! `MP`s of a whole group of units in one batched call. The powers
//! `2^(i-1)·M` of a group are made by [`powers_x_le`] before its second
//! pass, which also gives their sum (for CCC_1). With AES keyed from bytes
//! on a CPU with AES-NI or the ARMv8 AES instructions the engine runs EME
//! (`fused.rs` beside it).

use cipher::KeyInit;
use zeroize::Zeroize;

use crate::arith::gf128::{Block, double_le, powers_x_le, xor};
use crate::backend::Engine;
use crate::disk::units::{
    DataUnitCipher, Dec, Enc, MAX_GROUP, Pass, check_unit_numbers, copy_fold, fold4, group_units,
    unit_blocks, wipe, with_scratch, xor_blocks_to,
};
use crate::disk::wide::{WideBlockCipher, WideBlockMode};
use crate::engine::Dir;
use crate::error::{Error, Result};
use crate::oracle::{self, BlockCipher128, BlockCipher128Dec, ParWork};
use fused::Cipher;

/// EME (and EtE's and EME2's shared parts) on the engine (x86-64, aarch64;
/// elsewhere it builds and never runs: no engine key).
pub(super) mod fused;

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
    /// The block cipher, and the engine's AES key when keyed from AES key
    /// bytes on a CPU the engine runs on (`crate::backend`).
    engine: Engine<C>,
    /// `L_i = 2^(i-1)·L` for i = 1..=128 (`l[i - 1]`).
    l: [Block; MAX_BLOCKS],
}

impl<C> core::fmt::Debug for Eme<C> {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Eme").finish_non_exhaustive()
    }
}

impl<C: BlockCipher128> Eme<C> {
    /// EME over a keyed block cipher: computes `L = 2·E(0^128)` (forward
    /// cipher) and its doublings.
    ///
    /// ```
    /// use blockmodes::{Aes128, eme::Eme};
    /// use cipher::KeyInit;
    /// let eme = Eme::from_cipher(Aes128::new(&[1u8; 16].into()));
    /// let mut unit = [0u8; 512];
    /// eme.encrypt(&[0; 16], &mut unit)?;
    /// // The same permutation as from the key bytes.
    /// Eme::<Aes128>::new_from_slice(&[1; 16])?.decrypt(&[0; 16], &mut unit)?;
    /// assert_eq!(unit, [0u8; 512]);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn from_cipher(cipher: C) -> Self {
        Self::with_engine(Engine::from_cipher(cipher))
    }

    /// EME on `engine`: `L` and its doublings.
    fn with_engine(engine: Engine<C>) -> Self {
        let mut big_l = double_le(&engine.encrypt_block(&[0; 16]));
        let mut l = [[0; 16]; MAX_BLOCKS];
        powers_x_le(&big_l, &mut l);
        big_l.zeroize();
        Self { engine, l }
    }

    /// The table `L_i = 2^(i-1)·L` (`l()[i - 1]`), for EtE's fused path.
    pub(super) fn l(&self) -> &[Block; MAX_BLOCKS] {
        &self.l
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
        let cipher = oracle::cipher_from_key(key)?;
        Ok(Self::with_engine(Engine::from_key(cipher, key)))
    }

    /// The block cipher.
    ///
    /// ```
    /// use blockmodes::{Aes128, eme::Eme};
    /// let eme = Eme::<Aes128>::new_from_slice(&[1; 16])?;
    /// let _aes: &Aes128 = eme.cipher();
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn cipher(&self) -> &C {
        self.engine.cipher()
    }

    /// Encipher one data unit (16 to 2048 bytes, a multiple of 16) in place
    /// under the tweak T.
    ///
    /// ```
    /// use blockmodes::{Aes128, eme::Eme};
    /// let eme = Eme::<Aes128>::new_from_slice(&[1; 16])?;
    /// let mut unit = [0u8; 64];
    /// eme.encrypt(&[9; 16], &mut unit)?;
    /// let mut flipped = [0u8; 64];
    /// flipped[63] = 1;
    /// eme.encrypt(&[9; 16], &mut flipped)?;
    /// assert_ne!(unit[..16], flipped[..16]); // the last bit changes the first block
    /// assert!(eme.encrypt(&[9; 16], &mut [0u8; 24]).is_err()); // not whole blocks
    /// assert!(eme.encrypt(&[9; 16], &mut [0u8; 4096]).is_err()); // more than 128 blocks
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encrypt(&self, tweak: &Block, data: &mut [u8]) -> Result<()> {
        let blocks = one_unit(data)?;
        if self.fused_one(Dir::Encrypt, tweak, blocks) {
            return Ok(());
        }
        eme_one(&Enc(self.engine.cipher()), &self.l, tweak, blocks);
        Ok(())
    }

    /// One unit on the fused path, if this key has it.
    fn fused_one(&self, dir: Dir, tweak: &Block, blocks: &mut [Block]) -> bool {
        let Some(k) = self.engine.aes() else {
            return false;
        };
        let m = blocks.len();
        fused::units(Cipher::Aes(k), &self.l, dir, m, blocks, |_| *tweak);
        true
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
        if let Some(k) = self.engine.aes() {
            let dir = if P::DECRYPT {
                Dir::Decrypt
            } else {
                Dir::Encrypt
            };
            fused::units(Cipher::Aes(k), &self.l, dir, m, blocks, |s| {
                (first_unit + s as u128).to_le_bytes()
            });
            return Ok(());
        }
        let g = group_units(m);
        with_scratch(&SCRATCH, |scratch| {
            for (k, group) in blocks.chunks_mut(g * m).enumerate() {
                let units = group.len() / m;
                let u0 = first_unit + (k * g) as u128;
                for (s, t) in scratch.tweaks[..units].iter_mut().enumerate() {
                    *t = (u0 + s as u128).to_le_bytes();
                }
                eme_group(pass, &self.l, units, m, group, scratch);
            }
            scratch.wipe_used(g, m);
        });
        Ok(())
    }
}

impl<C: BlockCipher128Dec> Eme<C> {
    /// Decipher one data unit in place under the tweak T (E^-1 everywhere
    /// except in L).
    ///
    /// ```
    /// use blockmodes::{Aes128, eme::Eme};
    /// let eme = Eme::<Aes128>::new_from_slice(&[1; 16])?;
    /// let mut unit = *b"thirty-two bytes, two EME blocks";
    /// eme.encrypt(&[9; 16], &mut unit)?;
    /// eme.decrypt(&[9; 16], &mut unit)?;
    /// assert_eq!(&unit, b"thirty-two bytes, two EME blocks");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt(&self, tweak: &Block, data: &mut [u8]) -> Result<()> {
        let blocks = one_unit(data)?;
        if self.fused_one(Dir::Decrypt, tweak, blocks) {
            return Ok(());
        }
        eme_one(&Dec(self.engine.cipher()), &self.l, tweak, blocks);
        Ok(())
    }
}

impl<C> Drop for Eme<C> {
    fn drop(&mut self) {
        self.l.zeroize();
    }
}

/// One unit under `tweak`.
fn eme_one<P: Pass>(pass: &P, l: &[Block; MAX_BLOCKS], tweak: &Block, blocks: &mut [Block]) {
    let m = blocks.len();
    with_scratch(&SCRATCH, |scratch| {
        scratch.tweaks[0] = *tweak;
        eme_group(pass, l, 1, m, blocks, scratch);
        scratch.wipe_used(1, m);
    });
}

fn check_len(len: usize) -> Result<()> {
    if !(16..=MAX_BLOCKS * 16).contains(&len) || !len.is_multiple_of(16) {
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

/// Scratch space of EME for groups of up to 64 units and 512 blocks, kept
/// per thread ([`with_scratch`]); each call wipes what it used.
struct Scratch {
    /// The tweaks of the group's units.
    tweaks: [Block; MAX_GROUP],
    /// `SP = PPP_1 ⊕ ... ⊕ PPP_m` per unit, four blocks wide.
    wide_sums: [[u8; 64]; MAX_GROUP],
    /// `SP` per unit.
    sums: [Block; MAX_GROUP],
    /// `MP` per unit.
    mp: [Block; MAX_GROUP],
    /// `MC` per unit.
    mc: [Block; MAX_GROUP],
    /// `2^(i-1) M` for block i >= 2 of every unit of the group (0 for i = 1).
    powers: [Block; GROUP_BLOCKS],
}

/// Most blocks in a group.
const GROUP_BLOCKS: usize = 512;

impl Default for Scratch {
    fn default() -> Self {
        Self {
            tweaks: [[0; 16]; MAX_GROUP],
            wide_sums: [[0; 64]; MAX_GROUP],
            sums: [[0; 16]; MAX_GROUP],
            mp: [[0; 16]; MAX_GROUP],
            mc: [[0; 16]; MAX_GROUP],
            powers: [[0; 16]; GROUP_BLOCKS],
        }
    }
}

impl Scratch {
    /// Wipe what groups of `g` units of `m` blocks used.
    fn wipe_used(&mut self, g: usize, m: usize) {
        let g = g.min(MAX_GROUP);
        self.wide_sums[..g].fill([0; 64]);
        core::hint::black_box(&mut self.wide_sums);
        wipe(&mut self.sums[..g]);
        wipe(&mut self.mp[..g]);
        wipe(&mut self.mc[..g]);
        wipe(&mut self.powers[..(g * m).min(GROUP_BLOCKS)]);
    }
}

crate::oracle::scratch::scratch_slot!(SCRATCH: Scratch);

/// EME over `tweaks.len()` units of `m` blocks each, in direction `pass`
/// (E or E^-1: the two directions are the same algorithm).
fn eme_group<P: Pass>(
    pass: &P,
    l: &[Block; MAX_BLOCKS],
    g: usize,
    m: usize,
    data: &mut [Block],
    scratch: &mut Scratch,
) {
    let tweaks = &scratch.tweaks[..g];
    let sums = &mut scratch.wide_sums[..g];
    sums.fill([0; 64]);
    // First pass: PPP_i = E(P_i ⊕ L_i), and their sum per unit.
    pass.run(data.len(), &mut FirstPass { data, l, m, sums });
    // MP = ⊕ PPP_i ⊕ T; MC = E(MP): the group's only serial calls, together.
    for (((p, sp), wide), t) in scratch
        .mp
        .iter_mut()
        .zip(scratch.sums.iter_mut())
        .zip(&scratch.wide_sums[..g])
        .zip(tweaks)
    {
        *sp = fold4(wide);
        *p = xor(sp, t);
    }
    scratch.mc[..g].copy_from_slice(&scratch.mp[..g]);
    pass.blocks(&mut scratch.mc[..g]);
    // Second pass: C_i = E(CCC_i) ⊕ L_i, with the CCC_i made on the way.
    let n = data.len();
    pass.run(
        n,
        &mut SecondPass {
            data,
            l,
            m,
            tweaks: &scratch.tweaks[..g],
            sums: &scratch.sums[..g],
            mp: &scratch.mp[..g],
            mc: &scratch.mc[..g],
            powers: &mut scratch.powers[..n],
        },
    );
}

/// The pieces of the batch `start..start + n` of a run of `m`-block units,
/// each within one unit: `(unit, first block index in the unit, offset in
/// the batch, length)`.
#[inline(always)]
fn pieces(start: usize, n: usize, m: usize) -> Pieces {
    Pieces {
        unit: start / m,
        j: start % m,
        off: 0,
        n,
        m,
    }
}

struct Pieces {
    unit: usize,
    j: usize,
    off: usize,
    n: usize,
    m: usize,
}

impl Iterator for Pieces {
    type Item = (usize, usize, usize, usize);
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.off >= self.n {
            return None;
        }
        let len = (self.m - self.j).min(self.n - self.off);
        let piece = (self.unit, self.j, self.off, len);
        self.off += len;
        self.unit += 1;
        self.j = 0;
        Some(piece)
    }
}

struct FirstPass<'a> {
    data: &'a mut [Block],
    l: &'a [Block; MAX_BLOCKS],
    m: usize,
    sums: &'a mut [[u8; 64]],
}

impl ParWork for FirstPass<'_> {
    #[inline(always)]
    fn before(&mut self, start: usize, blocks: &mut [Block]) {
        for (_, j, off, len) in pieces(start, blocks.len(), self.m) {
            let input = &self.data[start + off..start + off + len];
            xor_blocks_to(&mut blocks[off..off + len], input, &self.l[j..j + len]);
        }
    }

    #[inline(always)]
    fn after(&mut self, start: usize, blocks: &[Block]) {
        for (unit, _, off, len) in pieces(start, blocks.len(), self.m) {
            let out = &mut self.data[start + off..start + off + len];
            copy_fold(out, &blocks[off..off + len], &mut self.sums[unit]);
        }
    }
}

struct SecondPass<'a> {
    data: &'a mut [Block],
    l: &'a [Block; MAX_BLOCKS],
    m: usize,
    tweaks: &'a [Block],
    sums: &'a [Block],
    mp: &'a [Block],
    mc: &'a [Block],
    powers: &'a mut [Block],
}

/// `S_m = x + x^2 + ... + x^(m-1)` (LE) for m = 1..=128 (`x_sums()[m - 1]`):
/// the sum of the powers `2^(i-1)·M`, i = 2..m, is `M·S_m`.
/// Computed at compile time (as u128 little-endian values: `x` doubles by
/// a shift and the reduction 0x87, as [`double_le`] does).
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)] // used by the engine only
pub(super) fn x_sums() -> &'static [Block; MAX_BLOCKS] {
    static SUMS: [Block; MAX_BLOCKS] = {
        let (mut sums, mut acc, mut x) = ([[0u8; 16]; MAX_BLOCKS], 0u128, 2u128);
        let mut m = 0;
        while m < MAX_BLOCKS {
            sums[m] = acc.to_le_bytes();
            acc ^= x;
            x = (x << 1) ^ (0x87 * (x >> 127));
            m += 1;
        }
        sums
    };
    &SUMS
}

impl SecondPass<'_> {
    /// For every unit: `M = MP ⊕ MC` and its powers `2^(i-1)·M` (i >= 2);
    /// `CCC_1 = MC ⊕ T ⊕ CCC_2 ⊕ ... ⊕ CCC_m`, where the sum of the CCC_i is
    /// `(SP ⊕ PPP_1) ⊕ (the sum of the powers)`, both already known. CCC_1
    /// replaces PPP_1; the other CCC_i are made batch by batch.
    #[inline(always)]
    fn make_ccc(&mut self) {
        let m = self.m;
        let units = self
            .data
            .chunks_exact_mut(m)
            .zip(self.powers.chunks_exact_mut(m));
        let per_unit = self.mp.iter().zip(self.mc).zip(self.tweaks).zip(self.sums);
        for ((unit, powers), (((mp, mc), t), sp)) in units.zip(per_unit) {
            let big_m = xor(mp, mc);
            let sum = powers_x_le(&big_m, powers);
            let rest = xor(&sum, &big_m);
            powers[0] = [0; 16];
            let ccc_sum = xor(&xor(sp, &unit[0]), &rest);
            unit[0] = xor(&ccc_sum, &xor(mc, t));
        }
    }
}

impl ParWork for SecondPass<'_> {
    #[inline(always)]
    fn before(&mut self, start: usize, blocks: &mut [Block]) {
        if start == 0 {
            self.make_ccc();
        }
        let n = blocks.len();
        xor_blocks_to(
            blocks,
            &self.data[start..start + n],
            &self.powers[start..start + n],
        );
    }

    #[inline(always)]
    fn after(&mut self, start: usize, blocks: &[Block]) {
        for (_, j, off, len) in pieces(start, blocks.len(), self.m) {
            let out = &mut self.data[start + off..start + off + len];
            xor_blocks_to(out, &blocks[off..off + len], &self.l[j..j + len]);
        }
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
        self.units(&Enc(self.engine.cipher()), first_unit, unit_len, data)
    }
    fn decrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        self.units(&Dec(self.engine.cipher()), first_unit, unit_len, data)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The compile-time table against the running sums of [`double_le`].
    #[test]
    fn x_sums_are_sums_of_doublings() {
        let mut x = [0u8; 16];
        x[0] = 2;
        let mut acc = [0u8; 16];
        for m in 1..=MAX_BLOCKS {
            assert_eq!(x_sums()[m - 1], acc, "S_{m}");
            acc = xor(&acc, &x);
            x = double_le(&x);
        }
    }
}
