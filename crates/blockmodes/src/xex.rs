//! XEX (Rogaway, ASIACRYPT 2004): a tweakable block cipher from a block
//! cipher, as `shared/spec/disk.md` defines it.
//!
//! Tweak (N, i): N a block, i an integer >= 1.
//! * `Δ = 2^i · E_K(N)` in GF(2^128), **BE** doubling ([`crate::gf128::double_be`]);
//! * `XEX_K^{N,i}(M) = E_K(M ⊕ Δ) ⊕ Δ`, and `E_K^-1(C ⊕ Δ) ⊕ Δ` to decipher.
//!
//! `E_K(N)` and the powers of 2 are reused across blocks that share N: a run
//! of blocks under `(N, i), (N, i + 1), ...` ([`Xex::encrypt_blocks`], and
//! each sector of the [sector interface](crate::sector)) costs one
//! block-cipher call per block plus one for N. The deltas of a batch are
//! computed with [`crate::gf128::powers_x_be`] and xored in one vectorised
//! pass on each side of the backend's parallel call.
//!
//! Decryption, too, computes `E_K(N)` with the **forward** cipher.

use cipher::{Key, KeyInit, KeySizeUser};
use zeroize::Zeroize;

use crate::error::{Error, Result};
use crate::gf128::{Block, double_be, mul_x_pow_be, powers_x_be, xor};
use crate::oracle::{self, BlockCipher128, BlockCipher128Dec, ParWork};
use crate::sector::{
    DataUnitCipher, Dec, Enc, InPlace, MAX_GROUP, Pass, check_unit_numbers, group_units,
    key_len_words, unit_blocks,
};
use crate::tweakable::{FixedTweak, TweakableBlockCipher, Whitening};

/// The largest data unit of the sector interface (the spec's 16..2048 bytes).
const MAX_UNIT_LEN: usize = 2048;

/// A XEX tweak `(N, i)`: N a block, i >= 1.
///
/// ```
/// use blockmodes::xex::XexTweak;
/// assert_eq!(XexTweak::T1.n[0], 0x80); // the paper's t1 = (10^127, 1)
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XexTweak {
    /// N, enciphered once: `E_K(N)`.
    pub n: Block,
    /// i >= 1, the power of 2 in `Δ = 2^i E_K(N)`.
    pub i: u64,
}

impl XexTweak {
    /// The StE/EtE paper's `t0 = (0^128, 1)` (EtE's γ1).
    pub const T0: XexTweak = XexTweak { n: [0; 16], i: 1 };
    /// The StE/EtE paper's `t1 = (1 0^127, 1)` (EtE's γ2).
    pub const T1: XexTweak = XexTweak {
        n: [0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        i: 1,
    };
}

/// XEX over the block cipher `C`.
///
/// ```
/// use blockmodes::xex::{Xex, XexTweak};
/// use blockmodes::tweakable::TweakableBlockCipher;
/// let xex = Xex::<blockmodes::Aes128>::new_from_slice(&[0x2b; 16])?;
/// let t = XexTweak { n: [0; 16], i: 1 };
/// let mut block = *b"sixteen byte msg";
/// xex.encrypt_block(&t, &mut block)?;
/// xex.decrypt_block(&t, &mut block)?;
/// assert_eq!(&block, b"sixteen byte msg");
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone)]
pub struct Xex<C> {
    cipher: C,
}

impl<C: BlockCipher128> Xex<C> {
    /// XEX over a keyed block cipher.
    pub fn from_cipher(cipher: C) -> Self {
        Self { cipher }
    }

    /// XEX over the block cipher keyed with `key` (for AES: 16, 24 or 32
    /// bytes; one key serves both `E_K(N)` and the blocks).
    ///
    /// ```
    /// use blockmodes::xex::Xex;
    /// assert!(Xex::<blockmodes::Aes128>::new_from_slice(&[0; 15]).is_err());
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

    /// `Δ = 2^i · E_K(N)`.
    fn delta(&self, tweak: &XexTweak) -> Result<Block> {
        if tweak.i == 0 {
            return Err(Error::InvalidParameter("XEX tweak index i must be >= 1"));
        }
        Ok(mul_x_pow_be(
            &oracle::encrypt_block(&self.cipher, &tweak.n),
            tweak.i,
        ))
    }

    /// Encipher the blocks of `data` under the tweaks `(n, first_i)`,
    /// `(n, first_i + 1)`, ...: one `E_K(N)` for the whole run.
    ///
    /// ```
    /// use blockmodes::xex::{Xex, XexTweak};
    /// use blockmodes::tweakable::TweakableBlockCipher;
    /// let xex = Xex::<blockmodes::Aes128>::new_from_slice(&[9; 16])?;
    /// let mut run = [5u8; 48];
    /// xex.encrypt_blocks(&[1; 16], 7, &mut run)?; // blocks i = 7, 8, 9
    /// let mut third = [5u8; 16];
    /// xex.encrypt_block(&XexTweak { n: [1; 16], i: 9 }, &mut third)?;
    /// assert_eq!(&run[32..], &third);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encrypt_blocks(&self, n: &Block, first_i: u64, data: &mut [u8]) -> Result<()> {
        let (first, blocks) = self.run_setup(n, first_i, data)?;
        xex_units(&Enc(&self.cipher), &[first], blocks.len(), blocks);
        Ok(())
    }

    /// Check a run and compute its first Δ.
    fn run_setup<'a>(
        &self,
        n: &Block,
        first_i: u64,
        data: &'a mut [u8],
    ) -> Result<(Block, &'a mut [Block])> {
        let (blocks, rest) = data.as_chunks_mut::<16>();
        if !rest.is_empty() {
            return Err(Error::InvalidLength(
                "XEX data must be whole 16-byte blocks",
            ));
        }
        if blocks.is_empty() {
            return Ok(([0; 16], blocks));
        }
        first_i
            .checked_add(blocks.len() as u64 - 1)
            .ok_or(Error::InvalidParameter("XEX tweak index i overflows a u64"))?;
        let first = self.delta(&XexTweak { n: *n, i: first_i })?;
        Ok((first, blocks))
    }

    /// Enciphers (or deciphers, with `pass` the inverse) data units numbered
    /// from `first_unit`: `N = u` big-endian, `i = j + 1` for block j.
    fn units<P: Pass>(
        &self,
        pass: &P,
        first_unit: u128,
        unit_len: usize,
        data: &mut [u8],
    ) -> Result<()> {
        let blocks = unit_blocks(unit_len, MAX_UNIT_LEN, data)?;
        let m = unit_len / 16;
        check_unit_numbers(first_unit, blocks.len() / m)?;
        let g = group_units(m);
        let mut deltas = [[0u8; 16]; MAX_GROUP];
        for (k, group) in blocks.chunks_mut(g * m).enumerate() {
            let units = group.len() / m;
            let u0 = first_unit + (k * g) as u128;
            // E_K(N) for every unit of the group, in one batched call.
            for (s, d) in deltas[..units].iter_mut().enumerate() {
                *d = (u0 + s as u128).to_be_bytes();
            }
            oracle::encrypt_par(&self.cipher, units, &mut InPlace(&mut deltas[..units]));
            // Δ of block 0 is 2 E_K(N).
            for d in deltas[..units].iter_mut() {
                *d = double_be(d);
            }
            xex_units(pass, &deltas[..units], m, group);
        }
        Ok(())
    }
}

impl<C: KeySizeUser> KeySizeUser for Xex<C> {
    type KeySize = C::KeySize;
}

/// `cipher::KeyInit`, so generic code (StE) can key XEX from a key block.
impl<C: BlockCipher128 + KeyInit> KeyInit for Xex<C> {
    fn new(key: &Key<Self>) -> Self {
        Self::from_cipher(C::new(key))
    }
}

impl<C: BlockCipher128Dec> Xex<C> {
    /// Decipher a run enciphered by [`Xex::encrypt_blocks`].
    pub fn decrypt_blocks(&self, n: &Block, first_i: u64, data: &mut [u8]) -> Result<()> {
        let (first, blocks) = self.run_setup(n, first_i, data)?;
        xex_units(&Dec(&self.cipher), &[first], blocks.len(), blocks);
        Ok(())
    }
}

/// Units of `m` blocks; block j of unit s gets `Δ = firsts[s] · x^j`.
fn xex_units<P: Pass>(pass: &P, firsts: &[Block], m: usize, data: &mut [Block]) {
    let mut work = XexWork {
        data,
        firsts,
        m,
        next: [0; 16],
        deltas: [[0; 16]; 64],
    };
    pass.run(work.data.len(), &mut work);
}

/// The whitening of one batch: deltas computed in `before`, kept for `after`.
struct XexWork<'a> {
    data: &'a mut [Block],
    firsts: &'a [Block],
    m: usize,
    /// Δ of the block after the previous batch, when a unit spans batches.
    next: Block,
    deltas: [Block; 64],
}

impl ParWork for XexWork<'_> {
    #[inline(always)]
    fn before(&mut self, start: usize, blocks: &mut [Block]) {
        let n = blocks.len();
        let mut off = 0;
        let (mut unit, mut j) = (start / self.m, start % self.m);
        while off < n {
            let len = (self.m - j).min(n - off);
            let first = if j == 0 { self.firsts[unit] } else { self.next };
            powers_x_be(&first, &mut self.deltas[off..off + len]);
            self.next = double_be(&self.deltas[off + len - 1]);
            off += len;
            unit += 1;
            j = 0;
        }
        let input = &self.data[start..start + n];
        for ((b, x), d) in blocks.iter_mut().zip(input).zip(&self.deltas) {
            *b = xor(x, d);
        }
    }

    #[inline(always)]
    fn after(&mut self, start: usize, blocks: &[Block]) {
        let out = &mut self.data[start..start + blocks.len()];
        for ((o, y), d) in out.iter_mut().zip(blocks).zip(&self.deltas) {
            *o = xor(y, d);
        }
    }
}

impl Drop for XexWork<'_> {
    fn drop(&mut self) {
        self.deltas.zeroize();
        self.next.zeroize();
    }
}

/// The XEX whitening of one fixed tweak: Δ xored before and after.
#[derive(Clone)]
pub struct XexDelta(Block);

impl Whitening for XexDelta {
    #[inline(always)]
    fn before_encrypt(&self, blocks: &mut [Block]) {
        for b in blocks {
            *b = xor(b, &self.0);
        }
    }
    #[inline(always)]
    fn after_encrypt(&self, blocks: &mut [Block]) {
        self.before_encrypt(blocks)
    }
    #[inline(always)]
    fn before_decrypt(&self, blocks: &mut [Block]) {
        self.before_encrypt(blocks)
    }
    #[inline(always)]
    fn after_decrypt(&self, blocks: &mut [Block]) {
        self.before_encrypt(blocks)
    }
}

impl Drop for XexDelta {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

/// `XEX_K^{N,i}(·)`: XEX with its tweak fixed, a block cipher.
pub type XexFixed<C> = FixedTweak<C, XexDelta>;

impl<C: BlockCipher128Dec + Clone> TweakableBlockCipher for Xex<C> {
    type Tweak = XexTweak;
    type Fixed = XexFixed<C>;

    fn fix_tweak(&self, tweak: &XexTweak) -> Result<XexFixed<C>> {
        Ok(FixedTweak::new(
            self.cipher.clone(),
            XexDelta(self.delta(tweak)?),
        ))
    }

    fn encrypt_block(&self, tweak: &XexTweak, block: &mut Block) -> Result<()> {
        let delta = self.delta(tweak)?;
        *block = xor(
            &oracle::encrypt_block(&self.cipher, &xor(block, &delta)),
            &delta,
        );
        Ok(())
    }

    fn decrypt_block(&self, tweak: &XexTweak, block: &mut Block) -> Result<()> {
        let delta = self.delta(tweak)?;
        *block = xor(
            &oracle::decrypt_block(&self.cipher, &xor(block, &delta)),
            &delta,
        );
        Ok(())
    }
}

impl<C: BlockCipher128Dec + Sync> DataUnitCipher for Xex<C> {
    const MAX_UNIT_LEN: usize = MAX_UNIT_LEN;

    fn encrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        self.units(&Enc(&self.cipher), first_unit, unit_len, data)
    }

    fn decrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        self.units(&Dec(&self.cipher), first_unit, unit_len, data)
    }
}
