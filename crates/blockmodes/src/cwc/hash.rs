//! CWC-HASH (section 3 of the CWC paper): a polynomial in the hash key K_h
//! evaluated mod p = 2^127 - 1 over 96-bit chunks of `A||0* || sigma||0*`.
//!
//! ```text
//! R = Y_1 K_h^beta + ... + Y_beta K_h + Y_{beta+1}  mod 2^127 - 1
//! ```
//!
//! # How it is computed (section 6.2.1, "precomputation")
//!
//! The portable path (every CPU; the vector paths below split the work
//! differently but use the same groups and scalar steps):
//!
//! The key schedule holds the powers `K_h^1 .. K_h^N` (N = [`CHUNKS_PER_GROUP`]),
//! each also pre-multiplied by 2^48 and 2^96. Chunks are folded in groups of
//! up to N with the generalised Horner rule
//!
//! ```text
//! S <- (S + Y_1) K_h^g + Y_2 K_h^(g-1) + ... + Y_g K_h        (g <= N chunks)
//! ```
//!
//! Every chunk `Y = y1 2^48 + y0` is split into two 48-bit limbs and each
//! power `K = k1 2^64 + k0` into two 64-bit limbs, so one chunk costs four
//! 64x64 -> 128-bit products, each below 2^113: the products of a whole
//! group are summed column by column in two `u128` accumulators (weight 1 and
//! weight 2^64) with no carry handling, and reduced once per group
//! ([`reduce127_wide`]). The running value S (`<= 2^127`) is split into
//! 48/48/32-bit limbs and added into the first chunk of the next group. One
//! canonical reduction ([`reduce127`]) ends the hash.
//!
//! Everything is straight-line code on the data: no branch or table index
//! depends on K_h, A or sigma (only on their lengths).
//!
//! # The vector paths: AVX-512 IFMA, else AVX2
//!
//! On x86-64 the CPU is checked once at key setup. With AVX-512 IFMA (and
//! F, BW, VBMI) the hash runs on `cwc/hash/ifma.rs` (8 chunks per vector,
//! 48-bit limbs, a reduction every 64 chunks). Without it, with AVX2 (Zen
//! 3, Intel client cores), on `cwc/hash/avx2.rs`: the input as big-endian
//! 32-bit words, one per 64-bit lane (a broadcast load and a `vpshufb`
//! per 4 words), each multiplied by its power of K_h times its word's
//! weight in five 26-bit limbs (`vpmuludq`, 5 multiplies and 5 adds per
//! 16 bytes), a carry pass in the lanes and a reduction every 64 chunks.
//! Measured on AMD EPYC Zen 3
//! against the portable path, paired in one run (medians of five): 2.5x
//! at 16 KiB and 1 MiB (about 0.22-0.30 against 0.55-0.75 cycles/byte),
//! 2.1x at 1 KiB, 1.25x at 64 bytes, so it is used at every length
//! (`docs/performance.md`, "CWC"). Both kernels
//! compute the same value as the portable path; the two files are the
//! hash's only `unsafe` code. [`CwcHash::portable`] forces the portable
//! path (for tests and benchmarks); [`CwcHash::uses_ifma`] and
//! [`CwcHash::uses_avx2`] tell which path a hash takes.
//!
//! # Why not `universal_hash::UniversalHash`
//!
//! That trait hashes a sequence of equal blocks into a block of the same
//! size. CWC-HASH reads 12-byte chunks but returns a 16-byte value, pads A
//! and sigma separately, and ends with a length block that needs both
//! lengths: it does not fit, so [`CwcHash`] has its own small API.

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod ifma;

use cipher::KeyInit;
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::arith::gf128::Block;
use crate::arith::modular::{mul127, reduce127, reduce127_wide, to_block, to_int};
use crate::error::{Error, Result};
use crate::oracle::{self, BlockCipher128, encrypt_block};

/// Chunks folded between two reductions (the number of precomputed powers).
///
/// 32 (384 bytes): measured 4% faster than 16 at 16 KiB, and 64 gains only
/// 2% more for twice the key schedule. The lazy sums stay below 2^128 for
/// any group of up to 2^14 chunks.
pub const CHUNKS_PER_GROUP: usize = 32;

const _: () = assert!(CHUNKS_PER_GROUP >= 1 && CHUNKS_PER_GROUP <= 1 << 14);

/// Bytes in one chunk X_i (96 bits).
pub const CHUNK_BYTES: usize = 12;

/// Whole groups of both paths: CWC encryption hashes sigma in pieces of a
/// multiple of this many bytes, so every piece ends on a group boundary.
pub(crate) const STRIDE_BYTES: usize = 2 * CHUNKS_PER_GROUP * CHUNK_BYTES;

#[cfg(target_arch = "x86_64")]
const _: () = assert!(
    STRIDE_BYTES.is_multiple_of(ifma::GROUP_BYTES)
        && STRIDE_BYTES.is_multiple_of(avx2::GROUP_BYTES)
);

/// `110^126`, the block whose encipherment gives the hash key K_h.
pub(crate) const HASH_KEY_INPUT: Block = {
    let mut b = [0u8; 16];
    b[0] = 0xc0;
    b
};

/// The longest A or sigma CWC accepts: 2^32 - 1 blocks of 16 bytes.
pub const MAX_INPUT_BYTES: u64 = 16 * (u32::MAX as u64);

const N: usize = CHUNKS_PER_GROUP;
const MASK48: u64 = (1 << 48) - 1;

/// A power of K_h in two 64-bit limbs: `k[0] + k[1] 2^64`, canonical mod p.
type Limbs = [u64; 2];

#[inline(always)]
fn limbs(x: u128) -> Limbs {
    [x as u64, (x >> 64) as u64]
}

/// CWC-HASH under one hash key K_h, with the key's powers precomputed.
///
/// Key setup also picks the implementation: the AVX-512 IFMA kernel when
/// the CPU has it, else the AVX2 one, else the portable one (see the
/// [module docs](self)).
///
/// ```
/// use blockmodes::cwc::hash::CwcHash;
/// use blockmodes::Aes128;
/// use cipher::KeyInit;
///
/// let aes = Aes128::new(&[0u8; 16].into());
/// let h = CwcHash::from_cipher(&aes);
/// let r = h.hash(b"header", b"ciphertext")?;
/// assert_eq!(r[0] & 0x80, 0); // a value below 2^127
/// # Ok::<(), blockmodes::Error>(())
/// ```
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct CwcHash {
    /// K_h
    key: u128,
    /// `pow[i] = K_h^(N - i)`: a group of g chunks uses `pow[N - g..]`.
    pow: [Limbs; N],
    /// `pow48[i] = K_h^(N - i) * 2^48 mod p` (for the high 48-bit limb of a chunk).
    pow48: [Limbs; N],
    /// `pow96[i] = K_h^(N - i) * 2^96 mod p` (for the top limb of the running value).
    pow96: [Limbs; N],
    /// The vector kernel's key schedule, chosen by the CPU at key setup.
    #[cfg(target_arch = "x86_64")]
    kernel: Kernel,
}

/// The vector kernel a hash runs on (x86-64): IFMA where the CPU has it,
/// else AVX2, else none (the portable path).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Zeroize)]
// The two tables are of about the same size (~9 KiB each), the portable
// variant empty; a box would cost an allocation per key.
#[allow(clippy::large_enum_variant)]
enum Kernel {
    Portable,
    Ifma(ifma::Powers),
    Avx2(avx2::Powers),
}

#[cfg(target_arch = "x86_64")]
impl Kernel {
    fn new(k: u128) -> Self {
        if let Some(p) = ifma::Powers::new(k) {
            return Self::Ifma(p);
        }
        avx2::Powers::new(k).map_or(Self::Portable, Self::Avx2)
    }

    /// The kernel's `absorb` (data padded to whole chunks), if any.
    #[inline]
    fn absorb(&self, s: u128, data: &[u8]) -> Option<u128> {
        match self {
            Self::Portable => None,
            Self::Ifma(p) => Some(p.absorb(s, data)),
            Self::Avx2(p) => Some(p.absorb(s, data)),
        }
    }
}

impl core::fmt::Debug for CwcHash {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("CwcHash { .. }")
    }
}

impl CwcHash {
    /// The hash for the key `K_h = toint(last 127 bits of block)`: the top bit
    /// of `block` is ignored, as in the paper's key derivation.
    ///
    /// ```
    /// use blockmodes::cwc::hash::CwcHash;
    /// let a = CwcHash::from_key_block(&[0xff; 16]);
    /// let b = CwcHash::from_key_block(&[0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    ///                                   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    /// assert_eq!(a.key_block(), b.key_block());
    /// ```
    pub fn from_key_block(block: &Block) -> Self {
        let key = to_int(block) & crate::arith::modular::P127;
        // K_h = 2^127 - 1 = 0 mod p is a valid (weak, probability 2^-127) key:
        // reduce it so every table entry is canonical.
        let k = reduce127(key);
        let mut s = Self {
            key,
            pow: [[0; 2]; N],
            pow48: [[0; 2]; N],
            pow96: [[0; 2]; N],
            #[cfg(target_arch = "x86_64")]
            kernel: Kernel::new(k),
        };
        let mut p = k; // K_h^e, e = 1..=N
        for e in 1..=N {
            let i = N - e;
            s.pow[i] = limbs(p);
            s.pow48[i] = limbs(mul127(p, 1 << 48));
            s.pow96[i] = limbs(mul127(p, 1 << 96));
            p = mul127(p, k);
        }
        p.zeroize();
        s
    }

    /// The paper's derivation: `K_h = toint(last 127 bits of E_K(110^126))`,
    /// one block-cipher call.
    ///
    /// ```
    /// use blockmodes::cwc::hash::CwcHash;
    /// use blockmodes::Aes128;
    /// use cipher::KeyInit;
    /// let key: [u8; 16] = core::array::from_fn(|i| i as u8);
    /// let h = CwcHash::from_cipher(&Aes128::new(&key.into()));
    /// // the first vector of the paper's appendix
    /// assert_eq!(hex::encode(h.key_block()), "34ae6a6fe9517894acccbb9ebae7208c");
    /// ```
    pub fn from_cipher<C: BlockCipher128>(cipher: &C) -> Self {
        let mut z = encrypt_block(cipher, &HASH_KEY_INPUT);
        let h = Self::from_key_block(&z);
        z.zeroize();
        h
    }

    /// As [`CwcHash::from_cipher`], keying the block cipher from `key`.
    ///
    /// ```
    /// use blockmodes::cwc::hash::CwcHash;
    /// use blockmodes::Aes256;
    /// assert!(CwcHash::new_from_slice::<Aes256>(&[0; 32]).is_ok());
    /// assert!(CwcHash::new_from_slice::<Aes256>(&[0; 16]).is_err());
    /// ```
    pub fn new_from_slice<C: BlockCipher128 + KeyInit>(key: &[u8]) -> Result<Self> {
        Ok(Self::from_cipher(&oracle::cipher_from_key::<C>(key)?))
    }

    /// The same hash on the portable path (64-bit limbs, `u128` products),
    /// whatever the CPU: for tests and benchmark comparisons. The value of
    /// every hash is the same on both paths.
    ///
    /// ```
    /// use blockmodes::cwc::hash::CwcHash;
    /// let h = CwcHash::from_key_block(&[0x42; 16]);
    /// let p = h.clone().portable();
    /// assert!(!p.uses_ifma());
    /// assert_eq!(h.hash(b"A", b"sigma")?, p.hash(b"A", b"sigma")?);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    // `mut` is used only on x86-64, where the kernel exists.
    pub fn portable(#[allow(unused_mut)] mut self) -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            self.kernel.zeroize();
            self.kernel = Kernel::Portable;
        }
        self
    }

    /// Whether this hash runs on the AVX-512 IFMA kernel (chosen at key
    /// setup when the CPU has AVX-512 F, BW, IFMA and VBMI; never on other
    /// architectures or after [`CwcHash::portable`]).
    ///
    /// ```
    /// use blockmodes::cwc::hash::CwcHash;
    /// let h = CwcHash::from_key_block(&[1; 16]);
    /// println!("CWC-HASH on AVX-512 IFMA: {}", h.uses_ifma());
    /// ```
    pub fn uses_ifma(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            matches!(self.kernel, Kernel::Ifma(_))
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// Whether this hash runs on the AVX2 kernel (chosen at key setup when
    /// the CPU has AVX2 but not the AVX-512 IFMA set; never on other
    /// architectures or after [`CwcHash::portable`]).
    ///
    /// ```
    /// use blockmodes::cwc::hash::CwcHash;
    /// let h = CwcHash::from_key_block(&[1; 16]);
    /// assert!(!(h.uses_avx2() && h.uses_ifma()));
    /// assert!(!h.portable().uses_avx2());
    /// ```
    pub fn uses_avx2(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            matches!(self.kernel, Kernel::Avx2(_))
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// `tostr(K_h, 128)`: the hash key as a block (its first bit is 0); the
    /// paper's test vectors print it as "HASH KEY".
    ///
    /// Hazmat: this is secret key material.
    ///
    /// ```
    /// use blockmodes::cwc::hash::CwcHash;
    /// assert_eq!(CwcHash::from_key_block(&[0xff; 16]).key_block()[0], 0x7f);
    /// ```
    pub fn key_block(&self) -> Block {
        to_block(self.key)
    }

    /// `CWC-HASH_K(A, sigma)` as the block `tostr(R, 128)`.
    ///
    /// Errors: [`Error::InputTooLong`] when A or sigma is longer than
    /// 16 (2^32 - 1) bytes ([`MAX_INPUT_BYTES`]).
    ///
    /// ```
    /// use blockmodes::cwc::hash::CwcHash;
    /// let mut one = [0u8; 16];
    /// one[15] = 1;
    /// let h = CwcHash::from_key_block(&one); // K_h = 1: R = sum of the Y_i
    /// let r = h.hash(&[], &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5])?;
    /// // Y_1 = 5, Y_2 = 2^64 * 0 + 12
    /// assert_eq!(r[15], 17);
    /// # Ok::<(), blockmodes::Error>(())
    /// ```
    pub fn hash(&self, ad: &[u8], sigma: &[u8]) -> Result<Block> {
        check_len(ad)?;
        check_len(sigma)?;
        let mut st = HashState::default();
        self.absorb_padded(&mut st, ad);
        self.absorb_padded(&mut st, sigma);
        Ok(self.finish(st, ad.len(), sigma.len()))
    }

    /// The IFMA key schedule, if this hash runs on AVX-512 IFMA (for the
    /// fused CWC kernel, `cwc/ctr_hash.rs`, which feeds it from registers).
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn ifma_powers(&self) -> Option<&ifma::Powers> {
        match &self.kernel {
            Kernel::Ifma(p) => Some(p),
            _ => None,
        }
    }

    /// Fold whole chunks (`data.len()` a multiple of 12; a shorter tail is
    /// ignored) into the running value.
    #[inline]
    pub(crate) fn absorb_chunks(&self, st: &mut HashState, data: &[u8]) {
        let whole = data.len() - data.len() % CHUNK_BYTES;
        #[cfg(target_arch = "x86_64")]
        if let Some(s) = self.kernel.absorb(st.s, &data[..whole]) {
            st.s = s;
            return;
        }
        self.absorb_chunks_portable(st, &data[..whole]);
    }

    /// Fold `data` padded with zero bytes to a multiple of 12 (A||0* or
    /// sigma||0*).
    #[inline]
    pub(crate) fn absorb_padded(&self, st: &mut HashState, data: &[u8]) {
        #[cfg(target_arch = "x86_64")]
        if let Some(s) = self.kernel.absorb(st.s, data) {
            st.s = s;
            return;
        }
        self.absorb_padded_portable(st, data);
    }

    /// [`CwcHash::absorb_chunks`] on the portable path.
    #[inline]
    fn absorb_chunks_portable(&self, st: &mut HashState, data: &[u8]) {
        let mut groups = data.chunks_exact(N * CHUNK_BYTES);
        for g in &mut groups {
            st.s = self.fold_group::<N>(st.s, g);
        }
        let rest = groups.remainder();
        let g = rest.len() / CHUNK_BYTES;
        if g > 0 {
            st.s = self.fold_short_group(st.s, &rest[..g * CHUNK_BYTES]);
        }
    }

    /// [`CwcHash::absorb_padded`] on the portable path.
    #[inline]
    fn absorb_padded_portable(&self, st: &mut HashState, data: &[u8]) {
        let whole = data.len() - data.len() % CHUNK_BYTES;
        self.absorb_chunks_portable(st, &data[..whole]);
        let tail = &data[whole..];
        if !tail.is_empty() {
            let mut last = [0u8; CHUNK_BYTES];
            last[..tail.len()].copy_from_slice(tail);
            st.s = self.fold_group::<1>(st.s, &last);
            last.zeroize();
        }
    }

    /// Add `Y_{beta+1} = 2^64 l_A + l_sigma` (lengths in bytes) and reduce to
    /// the canonical `R`.
    #[inline]
    pub(crate) fn finish(&self, st: HashState, ad_len: usize, sigma_len: usize) -> Block {
        self.finish_len(st, ad_len as u64, sigma_len as u64)
    }

    /// As [`finish`](Self::finish) with the lengths as `u64` (an on-line
    /// sigma may be longer than the address space of a 32-bit target).
    #[inline]
    pub(crate) fn finish_len(&self, st: HashState, ad_len: u64, sigma_len: u64) -> Block {
        to_block(self.finish_int(st, ad_len, sigma_len))
    }

    /// As [`finish_len`](Self::finish_len), `R` as an integer (`toint` of
    /// the hash value), for the fused kernels, which take blocks as
    /// big-endian integers.
    #[inline]
    pub(crate) fn finish_int(&self, st: HashState, ad_len: u64, sigma_len: u64) -> u128 {
        finish_value(st.s, ad_len, sigma_len)
    }

    /// One group of exactly `G` chunks (`G <= N`, `data.len() == 12 G`).
    #[inline(always)]
    fn fold_group<const G: usize>(&self, s: u128, data: &[u8]) -> u128 {
        let first = N - G;
        self.fold(
            s,
            data,
            &self.pow[first..],
            &self.pow48[first..],
            &self.pow96[first],
        )
    }

    /// One group of 1..N chunks, the count known at run time.
    #[inline(never)]
    fn fold_short_group(&self, s: u128, data: &[u8]) -> u128 {
        let g = data.len() / CHUNK_BYTES;
        let first = N - g;
        self.fold(
            s,
            data,
            &self.pow[first..],
            &self.pow48[first..],
            &self.pow96[first],
        )
    }

    /// `(S + Y_1) K^g + Y_2 K^(g-1) + ... + Y_g K`, partially reduced, where
    /// `pow[j] = K^(g - j)`.
    #[inline(always)]
    fn fold(&self, s: u128, data: &[u8], pow: &[Limbs], pow48: &[Limbs], pow96: &Limbs) -> u128 {
        let mut lo = 0u128; // column of weight 1
        let mut hi = 0u128; // column of weight 2^64
        let mut chunks = data.chunks_exact(CHUNK_BYTES).zip(pow.iter().zip(pow48));
        if let Some((c, (p, p48))) = chunks.next() {
            // first chunk, with the running value S (<= 2^127) added limb-wise
            let (y0, y1) = split_chunk(c);
            let s0 = (s as u64) & MASK48;
            let s1 = ((s >> 48) as u64) & MASK48;
            let s2 = (s >> 96) as u64; // <= 2^31
            let (a0, a1) = (y0 + s0, y1 + s1); // < 2^49
            lo += mul(a0, p[0]) + mul(a1, p48[0]) + mul(s2, pow96[0]);
            hi += mul(a0, p[1]) + mul(a1, p48[1]) + mul(s2, pow96[1]);
        }
        for (c, (p, p48)) in chunks {
            let (y0, y1) = split_chunk(c);
            lo += mul(y0, p[0]) + mul(y1, p48[0]); // each product < 2^112
            hi += mul(y0, p[1]) + mul(y1, p48[1]);
        }
        // lo, hi < (N + 2) 2^113 < 2^128
        reduce127_wide(lo, hi)
    }
}

/// `R`: the running value `s` (`<= 2^127`) plus the length block
/// `Y_{beta+1} = 2^64 l_A + l_sigma` (lengths in bytes), canonical. Also
/// the end of the one-pass kernel (`cwc/ctr_hash.rs`), which takes it into
/// `E_K(R)` without leaving its registers.
#[inline(always)]
pub(crate) fn finish_value(s: u128, ad_len: u64, sigma_len: u64) -> u128 {
    reduce127(s + length_block(ad_len, sigma_len)) // s <= 2^127: no overflow
}

/// `Y_{beta+1} = 2^64 l_A + l_sigma` (lengths in bytes, each below 2^36:
/// the value is below 2^100).
#[inline(always)]
pub(crate) fn length_block(ad_len: u64, sigma_len: u64) -> u128 {
    ((ad_len as u128) << 64) + sigma_len as u128
}

/// `Y = toint(X)` of a 12-byte chunk as two 48-bit limbs `(y0, y1)`,
/// `Y = y1 2^48 + y0`.
#[inline(always)]
fn split_chunk(c: &[u8]) -> (u64, u64) {
    let mut head = [0u8; 8];
    let mut tail = [0u8; 8];
    head.copy_from_slice(&c[..8]);
    tail.copy_from_slice(&c[4..12]);
    let y1 = u64::from_be_bytes(head) >> 16;
    let y0 = u64::from_be_bytes(tail) & MASK48;
    (y0, y1)
}

#[inline(always)]
fn mul(a: u64, b: u64) -> u128 {
    a as u128 * b as u128
}

/// The running value S of a hash in progress (`<= 2^127`, partially reduced).
#[derive(Default, Zeroize, ZeroizeOnDrop)]
pub(crate) struct HashState {
    pub(crate) s: u128,
}

/// `Err(InputTooLong)` when `data` is longer than [`MAX_INPUT_BYTES`].
#[inline]
pub(crate) fn check_len(data: &[u8]) -> Result<()> {
    check_len_value(data.len() as u64)
}

#[inline]
fn check_len_value(got: u64) -> Result<()> {
    if got > MAX_INPUT_BYTES {
        return Err(Error::InputTooLong {
            max: MAX_INPUT_BYTES,
            got,
        });
    }
    Ok(())
}

/// Horner's rule with `mul127`, chunk by chunk, from the running value
/// `s`: `S <- (S + Y_i) K` (every chunk multiplied by K at least once; no
/// length block). The vector kernels' tests check against it: written
/// from the paper's definition, independent of every kernel.
#[cfg(all(test, target_arch = "x86_64"))]
pub(crate) fn horner_from(k: u128, s: u128, data: &[u8]) -> u128 {
    let mut r = reduce127(s);
    for c in data.chunks(CHUNK_BYTES) {
        let mut x = [0u8; 16];
        x[4..4 + c.len()].copy_from_slice(c);
        r = mul127(reduce127(r + u128::from_be_bytes(x)), k);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::modular::{P127, add127};

    /// Horner's rule with `mul127`, chunk by chunk.
    fn horner(k: u128, ad: &[u8], sigma: &[u8]) -> Block {
        let mut r = 0u128;
        for part in [ad, sigma] {
            for c in part.chunks(12) {
                let mut x = [0u8; 16];
                x[4..4 + c.len()].copy_from_slice(c);
                r = add127(mul127(r, k), to_int(&x));
            }
        }
        let y = ((ad.len() as u128) << 64) + sigma.len() as u128;
        to_block(add127(mul127(r, k), reduce127(y)))
    }

    #[test]
    fn groups_match_horner() {
        let data: Vec<u8> = (0..2000u32).map(|i| (i * 7 + 3) as u8 ^ 0xa5).collect();
        for key in [
            1u128,
            2,
            P127 - 1,
            P127,
            0x1234_5678_9abc_def0_0fed_cba9_8765_4321,
        ] {
            let h = CwcHash::from_key_block(&to_block(key));
            for (a, m) in [
                (0, 0),
                (0, 1),
                (13, 0),
                (12, 12),
                (25, 191),
                (200, 1000),
                (7, 1993),
            ] {
                assert_eq!(
                    h.hash(&data[..a], &data[..m]).unwrap(),
                    horner(reduce127(key), &data[..a], &data[..m]),
                    "key {key:x} a {a} m {m}"
                );
            }
        }
    }

    #[test]
    fn length_limit() {
        assert!(check_len_value(MAX_INPUT_BYTES).is_ok());
        assert_eq!(
            check_len_value(MAX_INPUT_BYTES + 1),
            Err(Error::InputTooLong {
                max: MAX_INPUT_BYTES,
                got: MAX_INPUT_BYTES + 1
            })
        );
        assert!(check_len_value(u64::MAX).is_err());
    }

    #[test]
    fn all_ones_extremes() {
        // chunks of all ones with S near its bound stress the lazy sums
        let ones = [0xffu8; 12 * 40];
        let h = CwcHash::from_key_block(&to_block(P127 - 1));
        assert_eq!(
            h.hash(&ones, &ones).unwrap(),
            horner(P127 - 1, &ones, &ones)
        );
    }
}
