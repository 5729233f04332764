//! EME2 (IEEE 1619.2; Halevi's EME*): EME for any length of at least one
//! block, with associated data of any length, as `docs/spec/disk.md`
//! describes it and Brian Gladman's implementation (the source of the
//! vectors) computes it.
//!
//! Key `K_AD ‖ K_ECB ‖ K_AES` (16 + 16 + the block cipher's key), E the
//! block cipher under `K_AES`, **LE** doubling ([`crate::arith::gf128::double_le`]),
//! `pad(X) = X ‖ 0x80 ‖ 0*` for a partial block X.
//!
//! * Associated data A: `T* = E(K_AD)` if A is empty; otherwise, with the
//!   blocks `A_1..A_k` of A (the last padded if partial) and
//!   `Δ_j = 2^j K_AD` (one more doubling for a padded last block):
//!   `T* = ⊕_j (E(A_j ⊕ Δ_j) ⊕ Δ_j)`.
//! * The n full blocks `P_0..P_{n-1}` of P and a partial last block `P*` of
//!   r < 16 bytes (possibly empty), `L_i = 2^i K_ECB`:
//!   - `PPP_i = E(P_i ⊕ L_i)`; `MP = T* ⊕ PPP_0 ⊕ ... ⊕ PPP_{n-1}`;
//!   - if r > 0: `MP ^= pad(P*)`, `MM = E(MP)`, `MC = E(MM)`; else `MC = E(MP)`;
//!   - `M = MP ⊕ MC`; for i = 1..n: if i is not a multiple of 128,
//!     `M = 2M`, `CCC_i = PPP_i ⊕ M`; else (a fresh mixing value every 128
//!     blocks) `MP_i = PPP_i ⊕ M_1`, `MC_i = E(MP_i)`, `M = MP_i ⊕ MC_i`,
//!     `CCC_i = MC_i ⊕ M_1`, where `M_1` is the first M;
//!   - `C* = P* ⊕ MM[..r]`; `CCC_0 = MC ⊕ CCC_1 ⊕ ... ⊕ CCC_{n-1} ⊕ pad(C*) ⊕ T*`
//!     (no `pad(C*)` when r = 0);
//!   - `C_i = E(CCC_i) ⊕ L_i`.
//! * Decryption is the same with E^-1 in place of E, except in `T*`, which
//!   always uses the forward E.
//!
//! Unlike EME, EME2 takes whole 4096-byte sectors as one data unit.
//!
//! On x86-64 with AES-NI and on aarch64 with the ARMv8 AES instructions, a
//! key from bytes ([`Eme2::new_from_slice`]) also
//! runs on the fused AES kernels (`crate::backend`): EME's two passes, run
//! by run of 128 blocks, with `2^i K_ECB` from a per-key table of the first
//! 256 blocks and the powers of each run's mixing value made in registers
//! (see `fused.rs` beside it).

use cipher::{KeyInit, KeySizeUser, typenum::Unsigned};
use zeroize::Zeroize;

use crate::arith::gf128::{Block, double_le, powers_x_le, xor};
use crate::backend::Engine;
use crate::disk::units::{
    DataUnitCipher, Dec, Enc, Pass, copy_blocks, copy_fold, fold4, wipe, with_scratch,
    xor_blocks_to,
};
use crate::disk::wide::WideBlockCipher;
use crate::error::{Error, Result};
use crate::oracle::{self, BlockCipher128, BlockCipher128Dec, ParWork};

/// EME2 on the engine (x86-64, aarch64; elsewhere it builds and never
/// runs: no engine key).
mod fused;

/// EME2 over the block cipher `C`.
///
/// ```
/// use blockmodes::eme2::Eme2;
/// let eme2 = Eme2::<blockmodes::Aes128>::new_from_slice(&[7; 48])?;
/// let mut sector = vec![0u8; 4096]; // one data unit, no splitting
/// eme2.encrypt(b"sector 9", &mut sector)?;
/// eme2.decrypt(b"sector 9", &mut sector)?;
/// assert_eq!(sector, vec![0u8; 4096]);
/// let mut odd = *b"seventeen bytes!!";
/// eme2.encrypt(&[], &mut odd)?; // any length of at least 16 bytes
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone)]
pub struct Eme2<C> {
    /// The block cipher keyed with `K_AES`, and the engine's AES key when
    /// keyed from key bytes on a CPU the engine runs on (`crate::backend`).
    engine: Engine<C>,
    /// `K_AD`.
    k_ad: Block,
    /// `K_ECB` (`L_0`).
    k_ecb: Block,
    /// Beside the engine's key (and only then): the fused path's table
    /// `2^i K_ECB` of the first 256 blocks.
    fused: crate::backend::Beside<Fused>,
}

impl<C> core::fmt::Debug for Eme2<C> {
    /// Prints no key material.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Eme2").finish_non_exhaustive()
    }
}

/// EME2's fused path beside the engine's key: the table of `K_ECB`'s
/// powers. Wiped on drop.
#[derive(Clone)]
struct Fused {
    l: fused::Table,
}

impl Drop for Fused {
    fn drop(&mut self) {
        wipe(&mut self.l);
    }
}

impl<C: BlockCipher128> Eme2<C> {
    /// EME2 from `K_AD`, `K_ECB` and the block cipher keyed with `K_AES`.
    ///
    /// ```
    /// use blockmodes::{Aes128, eme2::Eme2};
    /// use cipher::KeyInit;
    /// let mut key = [0u8; 48]; // K_AD || K_ECB || K_AES
    /// key[..16].fill(1);
    /// key[16..32].fill(2);
    /// key[32..].fill(3);
    /// let parts = Eme2::from_parts([1; 16], [2; 16], Aes128::new(&[3u8; 16].into()));
    /// let (mut a, mut b) = ([7u8; 40], [7u8; 40]);
    /// parts.encrypt(b"ad", &mut a)?;
    /// Eme2::<Aes128>::new_from_slice(&key)?.encrypt(b"ad", &mut b)?;
    /// assert_eq!(a, b);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn from_parts(k_ad: Block, k_ecb: Block, cipher: C) -> Self {
        Self::with_engine(k_ad, k_ecb, Engine::from_cipher(cipher))
    }

    /// EME2 from `K_AD`, `K_ECB` and `engine` (the fused path's table made
    /// if `engine` has the engine's key).
    fn with_engine(k_ad: Block, k_ecb: Block, engine: Engine<C>) -> Self {
        Self {
            fused: crate::backend::Beside::new(engine.aes().map(|_| Fused {
                l: fused::table(&k_ecb),
            })),
            engine,
            k_ad,
            k_ecb,
        }
    }

    /// EME2 under the key `K_AD ‖ K_ECB ‖ K_AES`: for AES-128 48 bytes, for
    /// AES-256 64.
    ///
    /// ```
    /// use blockmodes::{eme2::Eme2, Error};
    /// assert!(Eme2::<blockmodes::Aes256>::new_from_slice(&[0; 64]).is_ok());
    /// assert!(matches!(
    ///     Eme2::<blockmodes::Aes256>::new_from_slice(&[0; 48]),
    ///     Err(Error::InvalidKeyLength { got: 48, .. })
    /// ));
    /// ```
    pub fn new_from_slice(key: &[u8]) -> Result<Self>
    where
        C: KeyInit,
    {
        let bad = Error::InvalidKeyLength {
            expected: 32 + C::KeySize::USIZE,
            got: key.len(),
        };
        if key.len() != 32 + <C as KeySizeUser>::KeySize::USIZE {
            return Err(bad);
        }
        let (k_ad, rest) = key.split_at(16);
        let (k_ecb, k_aes) = rest.split_at(16);
        let cipher = C::new_from_slice(k_aes).map_err(|_| bad)?;
        Ok(Self::with_engine(
            k_ad.try_into().unwrap_or_default(),
            k_ecb.try_into().unwrap_or_default(),
            Engine::from_key(cipher, k_aes),
        ))
    }

    /// Encipher `data` (at least 16 bytes, any length) in place with the
    /// associated data `ad` (any length).
    ///
    /// ```
    /// use blockmodes::{Aes128, eme2::Eme2};
    /// let eme2 = Eme2::<Aes128>::new_from_slice(&[7; 48])?;
    /// let mut data = *b"any length from sixteen bytes up";
    /// eme2.encrypt(b"sector 5", &mut data)?;
    /// assert_ne!(&data, b"any length from sixteen bytes up");
    /// assert!(eme2.encrypt(b"", &mut [0u8; 15]).is_err()); // under one block
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn encrypt(&self, ad: &[u8], data: &mut [u8]) -> Result<()> {
        check_len(data.len())?;
        if self.fused(crate::engine::Dir::Encrypt, ad, data) {
            return Ok(());
        }
        let mut t_star = self.t_star(ad);
        eme2(&Enc(self.engine.cipher()), &self.k_ecb, &t_star, data);
        t_star.zeroize();
        Ok(())
    }

    /// EME2 on the fused kernels, if this key has them.
    fn fused(&self, dir: crate::engine::Dir, ad: &[u8], data: &mut [u8]) -> bool {
        let (Some(key), Some(f)) = (self.engine.aes(), self.fused.get()) else {
            return false;
        };
        let mut t_star = fused::t_star(key, &self.k_ad, ad);
        fused::eme2(key, &f.l, dir, &t_star, data);
        t_star.zeroize();
        true
    }

    /// `T*` from the associated data (always with the forward cipher).
    fn t_star(&self, ad: &[u8]) -> Block {
        if ad.is_empty() {
            return self.engine.encrypt_block(&self.k_ad);
        }
        let mut work = AdWork {
            ad,
            next: double_le(&self.k_ad),
            deltas: [[0; 16]; 64],
            t_star: [0; 16],
        };
        oracle::encrypt_par(self.engine.cipher(), ad.len().div_ceil(16), &mut work);
        work.t_star
    }
}

impl<C: BlockCipher128Dec> Eme2<C> {
    /// Decipher what [`Eme2::encrypt`] enciphered under the same `ad`.
    ///
    /// ```
    /// use blockmodes::{Aes128, eme2::Eme2};
    /// let eme2 = Eme2::<Aes128>::new_from_slice(&[7; 48])?;
    /// let mut data = *b"seventeen bytes!!";
    /// eme2.encrypt(b"sector 5", &mut data)?;
    /// let mut wrong = data;
    /// eme2.decrypt(b"sector 6", &mut wrong)?; // no integrity: other data, no error
    /// assert_ne!(&wrong, b"seventeen bytes!!");
    /// eme2.decrypt(b"sector 5", &mut data)?;
    /// assert_eq!(&data, b"seventeen bytes!!");
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn decrypt(&self, ad: &[u8], data: &mut [u8]) -> Result<()> {
        check_len(data.len())?;
        if self.fused(crate::engine::Dir::Decrypt, ad, data) {
            return Ok(());
        }
        let mut t_star = self.t_star(ad);
        eme2(&Dec(self.engine.cipher()), &self.k_ecb, &t_star, data);
        t_star.zeroize();
        Ok(())
    }
}

impl<C> Drop for Eme2<C> {
    fn drop(&mut self) {
        self.k_ad.zeroize();
        self.k_ecb.zeroize();
    }
}

fn check_len(len: usize) -> Result<()> {
    if len < 16 {
        return Err(Error::InvalidLength("EME2 data must be at least 16 bytes"));
    }
    Ok(())
}

/// `pad(X) = X ‖ 0x80 ‖ 0*` for r < 16 bytes.
pub(super) fn pad(x: &[u8]) -> Block {
    let mut b = [0u8; 16];
    let r = x.len().min(15);
    b[..r].copy_from_slice(&x[..r]);
    b[r] = 0x80;
    b
}

/// The associated-data blocks: `E(A_j ⊕ Δ_j) ⊕ Δ_j` summed into `T*`.
struct AdWork<'a> {
    ad: &'a [u8],
    /// `Δ` of the next block.
    next: Block,
    deltas: [Block; 64],
    t_star: Block,
}

impl ParWork for AdWork<'_> {
    fn before(&mut self, start: usize, blocks: &mut [Block]) {
        let n = blocks.len();
        powers_x_le(&self.next, &mut self.deltas[..n]);
        self.next = double_le(&self.deltas[n - 1]);
        for (k, (b, d)) in blocks.iter_mut().zip(self.deltas.iter_mut()).enumerate() {
            let off = (start + k) * 16;
            let chunk = &self.ad[off.min(self.ad.len())..(off + 16).min(self.ad.len())];
            if chunk.len() < 16 {
                // A padded last block takes one more doubling.
                *d = double_le(d);
                *b = xor(&pad(chunk), d);
            } else {
                *b = xor(&chunk.try_into().unwrap_or_default(), d);
            }
        }
    }

    fn after(&mut self, _start: usize, blocks: &[Block]) {
        for (b, d) in blocks.iter().zip(&self.deltas) {
            self.t_star = xor(&self.t_star, &xor(b, d));
        }
    }
}

impl Drop for AdWork<'_> {
    fn drop(&mut self) {
        wipe(&mut self.deltas);
        self.next.zeroize();
        self.t_star.zeroize();
    }
}

/// EME2 on `data` in direction `pass` (the two directions are the same
/// algorithm), with `T*` already computed.
fn eme2<P: Pass>(pass: &P, k_ecb: &Block, t_star: &Block, data: &mut [u8]) {
    let (blocks, tail) = data.as_chunks_mut::<16>();
    let n = blocks.len();
    // First pass: PPP_i = E(P_i ⊕ L_i); MP = T* ⊕ their sum.
    let mut wide = [0u8; 64];
    pass.run(
        n,
        &mut EcbPass {
            data: blocks,
            next: *k_ecb,
            deltas: [[0; 16]; 64],
            first: true,
            sum: &mut wide,
        },
    );
    let mut mp = xor(&fold4(&wide), t_star);
    wide.zeroize();
    // The partial block P* (r bytes): MM = E(MP ⊕ pad(P*)), MC = E(MM).
    let mut mm = [0u8; 16];
    let mut mc;
    if tail.is_empty() {
        mc = mp;
        pass.blocks(core::slice::from_mut(&mut mc));
    } else {
        mp = xor(&mp, &pad(tail));
        let mut two = [mp, [0; 16]];
        pass.blocks(&mut two[..1]);
        mm = two[0];
        two[1] = mm;
        pass.blocks(&mut two[1..]);
        mc = two[1];
        two.zeroize();
    }
    // CCC_i for i >= 1, and their sum.
    let mut first_m = xor(&mp, &mc);
    let mut ccc_sum = mc;
    with_scratch(&SCRATCH, |powers| {
        let mut m = first_m;
        for (k, run) in blocks.chunks_mut(128).enumerate() {
            if k > 0 {
                // A fresh mixing value every 128 blocks.
                let mut mix = [xor(&run[0], &first_m)];
                let mut mp_k = mix[0];
                pass.blocks(&mut mix);
                m = xor(&mp_k, &mix[0]);
                run[0] = xor(&mix[0], &first_m);
                ccc_sum = xor(&ccc_sum, &run[0]);
                mix.zeroize();
                mp_k.zeroize();
            }
            // CCC_i = PPP_i ⊕ 2^j M for the rest of the run.
            let len = run.len();
            let _ = powers_x_le(&m, &mut powers.0[..len]);
            for (c, p) in run[1..].iter_mut().zip(&powers.0[1..len]) {
                *c = xor(c, p);
                ccc_sum = xor(&ccc_sum, c);
            }
        }
        wipe(&mut powers.0[..n.min(128)]);
        m.zeroize();
    });
    // C* = P* ⊕ MM[..r]; CCC_0 = (sum) ⊕ pad(C*) ⊕ T*.
    if !tail.is_empty() {
        for (c, k) in tail.iter_mut().zip(&mm) {
            *c ^= k;
        }
        ccc_sum = xor(&ccc_sum, &pad(tail));
    }
    blocks[0] = xor(&ccc_sum, t_star);
    // Last pass: C_i = E(CCC_i) ⊕ L_i.
    let mut unused = [0u8; 64];
    pass.run(
        n,
        &mut EcbPass {
            data: blocks,
            next: *k_ecb,
            deltas: [[0; 16]; 64],
            first: false,
            sum: &mut unused,
        },
    );
    mp.zeroize();
    mm.zeroize();
    mc.zeroize();
    first_m.zeroize();
    ccc_sum.zeroize();
    unused.zeroize();
}

/// `2M, 4M, ...` for one run of up to 128 blocks, kept per thread.
struct Powers([Block; 128]);

impl Default for Powers {
    fn default() -> Self {
        Powers([[0; 16]; 128])
    }
}

crate::oracle::scratch::scratch_slot!(SCRATCH: Powers);

/// The ECB layers of EME2 (`E(X ⊕ L_i)` in the first pass, `E(X) ⊕ L_i` in
/// the last), with `L_i = 2^i K_ECB` made batch by batch.
struct EcbPass<'a> {
    data: &'a mut [Block],
    /// `L` of the next block.
    next: Block,
    deltas: [Block; 64],
    /// First pass (whiten before, sum the outputs) or last (whiten after).
    first: bool,
    sum: &'a mut [u8; 64],
}

impl ParWork for EcbPass<'_> {
    #[inline(always)]
    fn before(&mut self, start: usize, blocks: &mut [Block]) {
        let n = blocks.len();
        powers_x_le(&self.next, &mut self.deltas[..n]);
        self.next = double_le(&self.deltas[n - 1]);
        let input = &self.data[start..start + n];
        if self.first {
            xor_blocks_to(blocks, input, &self.deltas[..n]);
        } else {
            copy_blocks(blocks, input);
        }
    }

    #[inline(always)]
    fn after(&mut self, start: usize, blocks: &[Block]) {
        let n = blocks.len();
        let out = &mut self.data[start..start + n];
        if self.first {
            copy_fold(out, blocks, self.sum);
        } else {
            xor_blocks_to(out, blocks, &self.deltas[..n]);
        }
    }
}

impl Drop for EcbPass<'_> {
    fn drop(&mut self) {
        wipe(&mut self.deltas);
        self.next.zeroize();
    }
}

impl<C: BlockCipher128Dec> WideBlockCipher for Eme2<C> {
    /// EME2 takes any length; the sector interface caps data units at 64 KiB.
    const MAX_LEN: usize = MAX_UNIT_LEN;

    fn check_len(&self, len: usize) -> Result<()> {
        check_len(len)
    }
    /// The 16-byte tweak is EME2's associated data.
    fn encrypt(&self, tweak: &Block, data: &mut [u8]) -> Result<()> {
        Eme2::encrypt(self, tweak, data)
    }
    fn decrypt(&self, tweak: &Block, data: &mut [u8]) -> Result<()> {
        Eme2::decrypt(self, tweak, data)
    }
}

/// Largest data unit of the sector interface for EME2.
const MAX_UNIT_LEN: usize = 64 * 1024;

/// Data unit u has the associated data `u` as a 16-byte little-endian
/// integer (as EME's tweak).
impl<C: BlockCipher128Dec + Sync> DataUnitCipher for Eme2<C> {
    const MAX_UNIT_LEN: usize = MAX_UNIT_LEN;

    fn encrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        WideBlockCipher::encrypt_units(self, first_unit, unit_len, data)
    }
    fn decrypt_units(&self, first_unit: u128, unit_len: usize, data: &mut [u8]) -> Result<()> {
        WideBlockCipher::decrypt_units(self, first_unit, unit_len, data)
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;

    /// Issue 13, finding 5: the thread's powers of the mixing values hold
    /// nothing after a call, both directions, with and without a partial
    /// block and across the fresh mixing value of every 128 blocks, on each
    /// backend (the fused path keeps its values on the stack and may not
    /// make the scratch at all).
    #[test]
    fn scratch_is_wiped_after_each_call() {
        for &backend in crate::backend::available() {
            let prev = crate::backend::force(backend);
            let eme2 = Eme2::<crate::Aes128>::new_from_slice(&[0x42; 48]).unwrap();
            crate::backend::force(prev);
            for len in [16usize, 100, 512, 128 * 16 + 7, 4096] {
                let mut data = vec![0x5au8; len];
                eme2.encrypt(b"ad", &mut data).unwrap();
                eme2.decrypt(b"ad", &mut data).unwrap();
                assert_eq!(data, vec![0x5au8; len]);
                SCRATCH.with(|cell| {
                    let slot = cell.borrow();
                    if let Some(s) = slot.as_ref() {
                        assert!(s.0.iter().all(|b| *b == [0; 16]), "len {len} {backend:?}");
                    }
                });
            }
        }
    }
}
