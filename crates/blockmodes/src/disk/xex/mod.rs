//! XEX (Rogaway, ASIACRYPT 2004): a tweakable block cipher from a block
//! cipher, as `docs/spec/disk.md` defines it.
//!
//! Tweak (N, i): N a block, i an integer >= 1.
//! * `Δ = 2^i · E_K(N)` in GF(2^128), **BE** doubling ([`crate::arith::gf128::double_be`]);
//! * `XEX_K^{N,i}(M) = E_K(M ⊕ Δ) ⊕ Δ`, and `E_K^-1(C ⊕ Δ) ⊕ Δ` to decipher.
//!
//! `E_K(N)` and the powers of 2 are reused across blocks that share N: a run
//! of blocks under `(N, i), (N, i + 1), ...` ([`Xex::encrypt_blocks`], and
//! each sector of the [sector interface](crate::sector)) costs one
//! block-cipher call per block plus one for N. The deltas of a batch are
//! computed with [`crate::arith::gf128::powers_x_be`] and xored in one vectorised
//! pass on each side of the backend's parallel call. With AES keyed from
//! bytes on a CPU with AES-NI the engine runs XEX (`fused.rs` beside it); where
//! its kernel does not make the deltas itself (runs of blocks), an AVX-512
//! kernel of `disk::simd` makes them where the CPU has it ([`Xex::portable`]
//! turns it off, for comparison).
//!
//! Decryption, too, computes `E_K(N)` with the **forward** cipher.

use cipher::{Key, KeyInit, KeySizeUser};
use zeroize::Zeroize;

use crate::arith::gf128::{Block, double_be, mul_x_pow_be, powers_x_be, xor};
use crate::backend::Engine;
use crate::disk::fixed::{FixedTweak, Whitening};
use crate::disk::simd::Avx512;
use crate::disk::tweakable::TweakableBlockCipher;
use crate::disk::units::{
    DataUnitCipher, Dec, Enc, InPlace, MAX_GROUP, Pass, check_unit_numbers, group_units,
    unit_blocks, wipe, with_scratch, xor_blocks_to, xor_each,
};
use crate::error::{Error, Result};
use crate::oracle::{self, BlockCipher128, BlockCipher128Dec, ParWork};

use crate::engine::Dir;

/// XEX on the engine: whole units through one kernel call (x86-64,
/// aarch64; built everywhere, run where the engine has the key).
mod fused;

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
    /// The block cipher, and the engine's AES key when keyed from AES key
    /// bytes on a CPU the engine runs on (`crate::backend`).
    engine: Engine<C>,
    /// The AVX-512 delta kernel for the fused path's runs of blocks, if the
    /// CPU has it (checked at key setup; the generic path is portable).
    simd: Option<Avx512>,
}

impl<C> core::fmt::Debug for Xex<C> {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Xex").finish_non_exhaustive()
    }
}

impl<C: BlockCipher128> Xex<C> {
    /// XEX over a keyed block cipher.
    ///
    /// ```
    /// use blockmodes::{Aes128, xex::Xex};
    /// use cipher::KeyInit;
    /// let xex = Xex::from_cipher(Aes128::new(&[9u8; 16].into()));
    /// let (mut a, mut b) = ([5u8; 32], [5u8; 32]);
    /// xex.encrypt_blocks(&[1; 16], 1, &mut a)?;
    /// Xex::<Aes128>::new_from_slice(&[9; 16])?.encrypt_blocks(&[1; 16], 1, &mut b)?;
    /// assert_eq!(a, b);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn from_cipher(cipher: C) -> Self {
        Self::with_engine(Engine::from_cipher(cipher))
    }

    /// XEX over `cipher` keyed with the bytes `key`: the fused path where
    /// it applies (`crate::backend`).
    fn from_key(cipher: C, key: &[u8]) -> Self {
        Self::with_engine(Engine::from_key(cipher, key))
    }

    /// XEX on `engine`.
    fn with_engine(engine: Engine<C>) -> Self {
        Self {
            engine,
            simd: Avx512::detect(),
        }
    }

    /// The fused kernels' key, if this XEX runs on them.
    pub(super) fn fused_key(&self) -> Option<&crate::backend::AesKey> {
        self.engine.aes()
    }

    /// `E_K(block)`.
    fn e(&self, block: &Block) -> Block {
        self.engine.encrypt_block(block)
    }

    /// The same cipher with its deltas made by the portable code whatever
    /// the CPU (for tests and benchmark comparisons; the output is the same).
    /// Only the fused AES path has another kernel for them (runs of blocks,
    /// and units its own kernel does not take); the generic path is
    /// portable anyway.
    ///
    /// ```
    /// use blockmodes::xex::Xex;
    /// use blockmodes::sector::DataUnitCipher;
    /// let x = Xex::<blockmodes::Aes128>::new_from_slice(&[1; 16])?;
    /// let (mut a, mut b) = ([3u8; 1024], [3u8; 1024]);
    /// x.encrypt_units(5, 512, &mut a)?;
    /// x.clone().portable().encrypt_units(5, 512, &mut b)?;
    /// assert_eq!(a, b);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn portable(mut self) -> Self {
        self.simd = None;
        self
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
        Ok(Self::from_key(oracle::cipher_from_key(key)?, key))
    }

    /// The block cipher.
    ///
    /// ```
    /// use blockmodes::{Aes128, xex::Xex};
    /// let xex = Xex::<Aes128>::new_from_slice(&[9; 16])?;
    /// let _aes: &Aes128 = xex.cipher();
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn cipher(&self) -> &C {
        self.engine.cipher()
    }

    /// `Δ = 2^i · E_K(N)`.
    pub(super) fn delta(&self, tweak: &XexTweak) -> Result<Block> {
        if tweak.i == 0 {
            return Err(Error::InvalidParameter("XEX tweak index i must be >= 1"));
        }
        let mut l = self.e(&tweak.n); // E_K(N)
        let delta = mul_x_pow_be(&l, tweak.i);
        l.zeroize();
        Ok(delta)
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
        let (mut first, blocks) = self.run_setup(n, first_i, data)?;
        if let Some(k) = self.engine.aes() {
            fused::run(k, self.simd, Dir::Encrypt, &first, blocks);
            first.zeroize();
            return Ok(());
        }
        xex_run(&Enc(self.engine.cipher()), &first, blocks);
        first.zeroize();
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
        if let Some(k) = self.engine.aes() {
            let dir = if P::DECRYPT {
                Dir::Decrypt
            } else {
                Dir::Encrypt
            };
            if fused::units_in_kernel(k, dir, first_unit, m, blocks) {
                return Ok(());
            }
            with_scratch(&SCRATCH, |scratch| {
                fused::units(k, self.simd, dir, first_unit, m, blocks, scratch)
            });
            return Ok(());
        }
        with_scratch(&SCRATCH, |scratch| {
            self.units_in(pass, first_unit, m, blocks, scratch)
        });
        Ok(())
    }

    /// `E_K(N)` for up to 64 units in one batched call (forward cipher in
    /// both directions); then, for groups of units that stay in L1, their
    /// deltas and the main pass.
    fn units_in<P: Pass>(
        &self,
        pass: &P,
        first_unit: u128,
        m: usize,
        blocks: &mut [Block],
        scratch: &mut Scratch,
    ) {
        let g = group_units(m);
        let (mut most_units, mut most_blocks) = (0, 0);
        for (k, many) in blocks.chunks_mut(MAX_GROUP * m).enumerate() {
            let units = many.len() / m;
            let u0 = first_unit + (k * MAX_GROUP) as u128;
            for (s, e) in scratch.en[..units].iter_mut().enumerate() {
                *e = (u0 + s as u128).to_be_bytes();
            }
            let en = &mut scratch.en[..units];
            oracle::encrypt_par(self.engine.cipher(), units, &mut InPlace(en));
            for (group, en) in many.chunks_mut(g * m).zip(scratch.en.chunks(g)) {
                let n = group.len();
                let mut work = GroupWork {
                    data: group,
                    en,
                    m,
                    deltas: &mut scratch.deltas[..n],
                };
                pass.run(n, &mut work);
                most_blocks = most_blocks.max(n);
            }
            most_units = most_units.max(units);
        }
        wipe(&mut scratch.en[..most_units]);
        wipe(&mut scratch.deltas[..most_blocks]);
    }
}

/// Scratch space of XEX's sector path, kept per thread ([`with_scratch`]):
/// `E_K(N)` of up to 64 units and the deltas of a group of 512 blocks.
pub(super) struct Scratch {
    pub(super) en: [Block; MAX_GROUP],
    pub(super) deltas: [Block; 512],
}

impl Default for Scratch {
    fn default() -> Self {
        Self {
            en: [[0; 16]; MAX_GROUP],
            deltas: [[0; 16]; 512],
        }
    }
}

crate::oracle::scratch::scratch_slot!(SCRATCH: Scratch);

impl<C: KeySizeUser> KeySizeUser for Xex<C> {
    type KeySize = C::KeySize;
}

/// `cipher::KeyInit`, so generic code (StE) can key XEX from a key block.
impl<C: BlockCipher128 + KeyInit> KeyInit for Xex<C> {
    fn new(key: &Key<Self>) -> Self {
        Self::from_key(C::new(key), key)
    }
}

impl<C: BlockCipher128Dec> Xex<C> {
    /// Decipher a run enciphered by [`Xex::encrypt_blocks`].
    ///
    /// ```
    /// use blockmodes::{Aes128, xex::Xex};
    /// let xex = Xex::<Aes128>::new_from_slice(&[9; 16])?;
    /// let mut run = [5u8; 48];
    /// xex.encrypt_blocks(&[1; 16], 7, &mut run)?;
    /// xex.decrypt_blocks(&[1; 16], 7, &mut run)?;
    /// assert_eq!(run, [5u8; 48]);
    /// assert!(xex.decrypt_blocks(&[1; 16], 0, &mut run).is_err()); // i >= 1
    /// assert!(xex.decrypt_blocks(&[1; 16], u64::MAX, &mut run).is_err()); // i overflows
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt_blocks(&self, n: &Block, first_i: u64, data: &mut [u8]) -> Result<()> {
        let (mut first, blocks) = self.run_setup(n, first_i, data)?;
        if let Some(k) = self.engine.aes() {
            fused::run(k, self.simd, Dir::Decrypt, &first, blocks);
            first.zeroize();
            return Ok(());
        }
        xex_run(&Dec(self.engine.cipher()), &first, blocks);
        first.zeroize();
        Ok(())
    }
}

/// The main pass over a group of units: `C = E(M ⊕ Δ) ⊕ Δ`, where block j
/// of unit s has `Δ = 2^(j+1) E_K(N_s)`. All the group's deltas are made at
/// the first batch (inside the cipher's call, so with its vector features),
/// long enough before they are read back.
struct GroupWork<'a> {
    data: &'a mut [Block],
    en: &'a [Block],
    m: usize,
    deltas: &'a mut [Block],
}

/// `out[j] = a·x^j` (BE) for the fused path: the AVX-512 kernel if present
/// (one call, outside the cipher's vector features), else the portable
/// code.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // used by the x86 engine only
pub(super) fn powers_be(simd: Option<Avx512>, a: &Block, out: &mut [Block]) {
    match simd {
        Some(simd) => simd.powers_x_be(a, out),
        None => powers_x_be(a, out),
    }
}

impl ParWork for GroupWork<'_> {
    #[inline(always)]
    fn before(&mut self, start: usize, blocks: &mut [Block]) {
        let n = blocks.len();
        if start == 0 {
            for (e, unit) in self.en.iter().zip(self.deltas.chunks_exact_mut(self.m)) {
                powers_x_be(&double_be(e), unit);
            }
        }
        xor_blocks_to(
            blocks,
            &self.data[start..start + n],
            &self.deltas[start..start + n],
        );
    }
    #[inline(always)]
    fn after(&mut self, start: usize, blocks: &[Block]) {
        let n = blocks.len();
        xor_blocks_to(
            &mut self.data[start..start + n],
            blocks,
            &self.deltas[start..start + n],
        );
    }
}

/// A run of blocks whose first delta is `first`: block j gets `first · x^j`.
fn xex_run<P: Pass>(pass: &P, first: &Block, data: &mut [Block]) {
    let mut work = RunWork {
        data,
        next: *first,
        deltas: [[0; 16]; 64],
    };
    pass.run(work.data.len(), &mut work);
}

/// The whitening of one batch of a run: its deltas are made in `before`
/// and kept for `after`.
struct RunWork<'a> {
    data: &'a mut [Block],
    /// Δ of the first block of the next batch.
    next: Block,
    deltas: [Block; 64],
}

impl ParWork for RunWork<'_> {
    #[inline(always)]
    fn before(&mut self, start: usize, blocks: &mut [Block]) {
        let n = blocks.len();
        powers_x_be(&self.next, &mut self.deltas[..n]);
        self.next = double_be(&self.deltas[n - 1]);
        xor_blocks_to(blocks, &self.data[start..start + n], &self.deltas[..n]);
    }

    #[inline(always)]
    fn after(&mut self, start: usize, blocks: &[Block]) {
        let n = blocks.len();
        xor_blocks_to(&mut self.data[start..start + n], blocks, &self.deltas[..n]);
    }
}

impl Drop for RunWork<'_> {
    fn drop(&mut self) {
        wipe(&mut self.deltas);
        wipe(core::slice::from_mut(&mut self.next));
    }
}

/// The XEX whitening of one fixed tweak: Δ xored before and after.
#[derive(Clone)]
pub struct XexDelta(Block);

impl core::fmt::Debug for XexDelta {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("XexDelta(..)")
    }
}

impl Whitening for XexDelta {
    #[inline(always)]
    fn before_encrypt(&self, blocks: &mut [Block]) {
        xor_each(blocks, &self.0)
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
    fn xor_constant(&self) -> Option<&Block> {
        Some(&self.0)
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
    type Cipher = C;
    type Whitening = XexDelta;

    fn fix_tweak(&self, tweak: &XexTweak) -> Result<XexFixed<C>> {
        Ok(FixedTweak::new(
            self.engine.cipher().clone(),
            XexDelta(self.delta(tweak)?),
        ))
    }

    fn encrypt_block(&self, tweak: &XexTweak, block: &mut Block) -> Result<()> {
        let mut delta = self.delta(tweak)?;
        *block = xor(&self.e(&xor(block, &delta)), &delta);
        delta.zeroize();
        Ok(())
    }

    fn decrypt_block(&self, tweak: &XexTweak, block: &mut Block) -> Result<()> {
        let mut delta = self.delta(tweak)?;
        let x = xor(block, &delta);
        *block = xor(&self.engine.decrypt_block(&x), &delta);
        delta.zeroize();
        Ok(())
    }
}

impl<C: BlockCipher128Dec + Sync> DataUnitCipher for Xex<C> {
    const MAX_UNIT_LEN: usize = MAX_UNIT_LEN;

    fn encrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        self.units(&Enc(self.engine.cipher()), first_unit, unit_len, data)
    }

    fn decrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        self.units(&Dec(self.engine.cipher()), first_unit, unit_len, data)
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;

    /// Issue 13, finding 5: the thread's scratch (E_K(N) of the units and
    /// the deltas) holds nothing after a sector call, both directions, on
    /// each backend (the VAES-512 kernel keeps its E_K(N) in registers and
    /// a table of its own, and may not make the scratch at all).
    #[test]
    fn scratch_is_wiped_after_each_call() {
        for &backend in crate::backend::available() {
            let prev = crate::backend::force(backend);
            let xex = Xex::<crate::Aes128>::new_from_slice(&[0x42; 16]).unwrap();
            crate::backend::force(prev);
            for (units, unit_len) in [(1usize, 512usize), (70, 512), (3, 2048), (5, 208)] {
                let mut data = vec![0x5au8; units * unit_len];
                xex.encrypt_units(9, unit_len, &mut data).unwrap();
                xex.decrypt_units(9, unit_len, &mut data).unwrap();
                assert_eq!(data, vec![0x5au8; units * unit_len]);
                SCRATCH.with(|cell| {
                    let slot = cell.borrow();
                    let Some(s) = slot.as_ref() else {
                        return;
                    };
                    assert!(
                        s.en.iter().all(|b| *b == [0; 16]),
                        "E_K(N), {units} x {unit_len}, {backend:?}"
                    );
                    assert!(
                        s.deltas.iter().all(|b| *b == [0; 16]),
                        "deltas, {units} x {unit_len}, {backend:?}"
                    );
                });
            }
        }
    }
}
