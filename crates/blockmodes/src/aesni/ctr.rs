//! Counter mode with a 32-bit big-endian block counter (CWC-CTR, section 3
//! of the CWC paper; GCM's `inc32`), on every tier.
//!
//! Block `t` of a run is xored with `E_K(cb + t)`, where `cb + t` is the
//! counter block `cb` with its last four bytes, read as a big-endian
//! integer, increased by `t` modulo 2^32 (the first twelve bytes never
//! change). Any number of bytes: a partial last block uses as many bytes of
//! its keystream block as it has. The counter blocks are made in
//! registers, never in memory. One loop for every lane width (`lane.rs`,
//! [`run`], instantiated per tier by [`CtrLane::ctr`]): eight registers per
//! batch, the remainder as one batch of as many registers as it needs,
//! the data folded into the last round key (`aesenclast(x, M xor K_last)`
//! is `E_K(cb + t) xor M`); the counter blocks per lane ([`CtrLane::Ctr`]):
//!
//! * VAES-512 and VAES-256: the counter block broadcast to the lanes with
//!   its last four bytes reversed (the counter as a little-endian dword),
//!   plus the lane index; per register one `vpaddd` (+4 or +2), one
//!   `vpshufb` back to big-endian, one xor with `K0`.
//! * AES-NI (also every run under [`XMM_BELOW`] blocks): the counter of
//!   each block from a scalar `bswap` into the last dword (SSE2 only).
//!
//! A partial last register ([`CtrLane::xor_bytes`]): byte-masked loads and
//! stores on VAES-512; elsewhere its whole blocks as usual and the partial
//! block xored byte by byte from its keystream block (wiped after).
//! Nothing padded, nothing past the end touched.
//!
//! Optionally one more block, `extra`, is enciphered alongside (a mode's
//! independent block, CWC's MAC pad `E_K(10^7 || N || 0^32)`): in the
//! first batch's round loop on the AES-NI back end, so it adds no latency
//! to a short message.
//!
//! Counter blocks and `extra` come in as `u128` (the block read as a
//! big-endian integer, as CWC computes `10^7 || N || tostr(i, 32)`) and are
//! made into vectors from general registers: a block the caller has just
//! written with two 8-byte stores and the kernel read with one 16-byte load
//! would wait for the stores to retire (no store forwarding), a dozen
//! cycles on the critical path of a short message, several times per
//! message. [`AesKey::encrypt_be`] is the single-block form.

use core::arch::x86_64::*;

use cipher::inout::InOutBuf;

use super::lane::{Lane, Xmm, Ymm, Zmm};
use super::schedule::{load, store};
use super::{AesKey, Level, XMM_BELOW};
use crate::arith::gf128::Block;
use crate::engine::dispatch::by_count8;
use crate::engine::dispatch::by_rounds;

/// One run's parameters, for the kernels.
pub(super) struct CtrJob<'a> {
    /// Encryption round keys.
    keys: &'a [Block; 15],
    /// The counter block of the first block (big-endian integer).
    cb: u128,
    src: *const u8,
    dst: *mut u8,
    /// Bytes: `src` and `dst` hold at least this many (equal or disjoint).
    len: usize,
    /// A block to encipher alongside (AES-NI back end only).
    extra: Option<u128>,
}

/// `tostr(x, 128)` as a vector, from general registers.
#[inline]
#[target_feature(enable = "sse2")]
pub(crate) fn vec_be(x: u128) -> __m128i {
    // bytes 0..8 are the high half, big-endian: as the low little-endian
    // lane, the high half byte-swapped
    let hi = ((x >> 64) as u64).swap_bytes();
    let lo = (x as u64).swap_bytes();
    _mm_set_epi64x(lo as i64, hi as i64)
}

impl AesKey {
    /// `out = in xor` the keystream `E_K(cb), E_K(cb + 1), ...`, the
    /// counter blocks given as big-endian integers (the last four bytes a
    /// big-endian counter, increased modulo 2^32), for every byte of `io`
    /// (in place or from one buffer into another). Returns `E_K(extra)`
    /// (all zero without `extra`).
    pub(crate) fn ctr32(&self, cb: u128, io: InOutBuf<'_, '_, u8>, extra: Option<u128>) -> Block {
        let len = io.len();
        let (src, dst) = io.into_raw();
        self.ctr32_raw(cb, src, dst, len, extra)
    }

    /// [`ctr32`](Self::ctr32) on `len` bytes at `src` into `dst` (equal, or
    /// disjoint; `dst` may be uninitialised: only stored to).
    pub(super) fn ctr32_raw(
        &self,
        cb: u128,
        src: *const u8,
        dst: *mut u8,
        len: usize,
        extra: Option<u128>,
    ) -> Block {
        let mut job = CtrJob {
            keys: &self.enc.k.0,
            cb,
            src,
            dst,
            len,
            extra: None,
        };
        let blocks = len.div_ceil(16);
        // The key's tier from XMM_BELOW blocks on; else AES-NI.
        let level = if blocks < XMM_BELOW {
            Level::AesNi
        } else {
            self.level
        };
        let mut out = [0u8; 16];
        match (extra, level, blocks) {
            (Some(e), _, 0) => return self.encrypt_be(e),
            (Some(e), Level::AesNi, _) => job.extra = Some(e),
            (Some(e), _, _) => out = self.encrypt_be(e),
            (None, _, _) => {}
        }
        if blocks == 0 {
            return out;
        }
        macro_rules! go {
            ($nr:literal) => {
                match level {
                    // SAFETY: an `AesKey`'s level is at most what `detect`
                    // found (each lane's entry needs no more than its
                    // detection checked); `src` and `dst` hold `len >= 1`
                    // bytes (equal or disjoint: from one `InOutBuf`, or
                    // input and spare capacity); `extra` only on AES-NI.
                    Level::Vaes512 => unsafe { Zmm::ctr::<$nr>(&job, &mut out) },
                    // SAFETY: as above.
                    Level::Vaes256 => unsafe { Ymm::ctr::<$nr>(&job, &mut out) },
                    // SAFETY: as above.
                    Level::AesNi => unsafe { Xmm::ctr::<$nr>(&job, &mut out) },
                }
            };
        }
        by_rounds!(self.rounds, go);
        out
    }

    /// `E_K(tostr(x, 128))` for one block given as a big-endian integer
    /// (AES-NI, one xmm register, the block made from general registers).
    pub(crate) fn encrypt_be(&self, x: u128) -> Block {
        let keys = &self.enc.k.0;
        // SAFETY: an `AesKey` exists only where `detect` found AES-NI and
        // SSE2, the features of `encrypt_one_be`.
        unsafe {
            match self.rounds {
                10 => encrypt_one_be::<10>(keys, x),
                12 => encrypt_one_be::<12>(keys, x),
                _ => encrypt_one_be::<14>(keys, x),
            }
        }
    }
}

/// `E_K(tostr(x, 128))` with the encryption keys of `NR` rounds.
#[inline]
#[target_feature(enable = "aes,sse2")]
fn encrypt_one_be<const NR: usize>(keys: &[Block; 15], x: u128) -> Block {
    let mut v = _mm_xor_si128(vec_be(x), load(&keys[0]));
    for k in &keys[1..NR] {
        v = _mm_aesenc_si128(v, load(k));
    }
    store(_mm_aesenclast_si128(v, load(&keys[NR])))
}

/// Registers per full batch.
const REGS: usize = 8;

/// The loop over batches on lane `L` (instantiated by [`CtrLane::ctr`]);
/// `E_K(job.extra)` into `out` if there is one (the AES-NI lane only: it
/// rides along with the first batch).
///
/// # Safety
/// The CPU must have `L`'s tier's features; `job.src` and `job.dst` valid
/// for `job.len >= 1` bytes, equal or disjoint; `job.extra` only with
/// [`super::lane::Xmm`].
#[inline(always)]
pub(super) unsafe fn run<L: CtrLane, const NR: usize>(job: &CtrJob<'_>, out: &mut Block) {
    // SAFETY: the caller's: the CPU has `L`'s features; pointer accesses
    // are justified where they are.
    unsafe {
        let k = L::round_keys::<NR>(job.keys);
        let mut ctr = L::ctr_start(job.cb, k[0]);
        let mut ek = [_mm_setzero_si128(); 15];
        let mut ex = vec_be(job.extra.unwrap_or(0));
        let mut ex_pending = L::BLOCKS == 1 && job.extra.is_some();
        if ex_pending {
            for (kr, b) in ek.iter_mut().zip(job.keys.iter()).take(NR + 1) {
                *kr = load(b);
            }
        }
        let n = job.len;
        let reg = 16 * L::BLOCKS;
        let mut i = 0;
        macro_rules! go {
            ($v:literal, $last:expr) => {{
                // SAFETY: bytes i .. i + 16 BLOCKS ($v - 1) + $last are
                // below n: all the batch touches.
                let (src, dst) = (job.src.add(i), job.dst.add(i));
                if L::BLOCKS == 1 && ex_pending {
                    ex_pending = false;
                    batch::<L, $v, NR, true>(&k, &mut ctr, src, dst, $last, (&mut ex, &ek))
                } else {
                    batch::<L, $v, NR, false>(&k, &mut ctr, src, dst, $last, (&mut ex, &ek))
                }
            }};
        }
        while n - i >= REGS * reg {
            go!(8, reg);
            i += REGS * reg;
        }
        let rem = n - i;
        if rem > 0 {
            let nv = rem.div_ceil(reg);
            let last = rem - reg * (nv - 1); // 1 ..= 16 BLOCKS bytes in the last register
            by_count8!(nv, go, last)
        }
        debug_assert!(!ex_pending, "the extra block rode along");
        if L::BLOCKS == 1 && job.extra.is_some() {
            *out = store(ex);
            ek = [_mm_setzero_si128(); 15];
            core::hint::black_box(&ek);
        }
    }
}

/// One batch of `V` registers of counter blocks; the last register has
/// `last` (1 ..= 16 BLOCKS) valid bytes. The data is folded into the last
/// round key: `aesenclast(x, M xor K_last)` is `E_K(cb + t) xor M`. With
/// `EX`, also `ex = E_K(ex)` under `ek`, interleaved.
///
/// # Safety
/// As [`run`]; `src` and `dst` valid for `16 BLOCKS (V - 1) + last` bytes.
#[inline(always)]
unsafe fn batch<L: CtrLane, const V: usize, const NR: usize, const EX: bool>(
    k: &[L; 15],
    ctr: &mut L::Ctr,
    src: *const u8,
    dst: *mut u8,
    last: usize,
    (ex, ek): (&mut __m128i, &[__m128i; 15]),
) {
    // SAFETY: the caller's: the CPU has the features; the loads and stores
    // as each says.
    unsafe {
        if EX {
            *ex = _mm_xor_si128(*ex, ek[0]);
        }
        let mut x = [L::zero(); V];
        for xv in x.iter_mut() {
            *xv = L::ctr_next(ctr);
        }
        // A counted loop (an iterator chain was left as a call per round in
        // the whitening kernels).
        #[allow(clippy::needless_range_loop)]
        for r in 1..NR {
            let kr = k[r];
            for xv in x.iter_mut() {
                *xv = L::aesenc(*xv, kr);
            }
            L::fence(&mut x);
            if EX {
                *ex = _mm_aesenc_si128(*ex, ek[r]);
            }
        }
        if EX {
            *ex = _mm_aesenclast_si128(*ex, ek[NR]);
        }
        let reg = 16 * L::BLOCKS;
        for (v, xv) in x.iter().enumerate() {
            let p = src.wrapping_add(reg * v);
            let q = dst.wrapping_add(reg * v);
            if v + 1 < V || last == reg {
                // SAFETY: the caller's: a full register of valid bytes.
                let m = L::load(p.cast());
                L::store(q.cast(), L::aesenclast(*xv, L::xor(m, k[NR])));
            } else {
                // SAFETY: the caller's: `last` valid bytes, nothing past
                // them touched.
                L::xor_bytes(p, q, L::aesenclast(*xv, k[NR]), last);
            }
        }
    }
}

/// `dst = src xor ks` for the `r < 16` bytes of a partial block, byte by
/// byte (read before written: `src` may equal `dst`); the keystream copy
/// wiped after (the lanes without byte-masked loads and stores).
///
/// # Safety
/// `src` and `dst` valid for `r` bytes (equal or disjoint).
#[inline(always)]
pub(super) unsafe fn xor_partial(src: *const u8, dst: *mut u8, ks: __m128i, r: usize) {
    // SAFETY: SSE2, every x86-64 CPU.
    let mut b = unsafe { store(ks) };
    for (j, kb) in b.iter().enumerate().take(r) {
        // SAFETY: the caller's: bytes 0 .. r are valid.
        unsafe { *dst.add(j) = *src.add(j) ^ kb };
    }
    b.fill(0);
    core::hint::black_box(&b);
}

// ---- The counter blocks in each lane's form (`Lane::Ctr`, `Lane::ctr_next`).
// Every `unsafe` method below needs its lane's tier's features (the
// caller's: each is called from that tier's entries, inlined).

/// AES-NI: the counter block's first twelve bytes xor K0, and the counter
/// (one scalar `bswap` into the last dword per block, SSE2 only).
#[derive(Clone, Copy)]
pub(super) struct XmmCtr {
    hk0: __m128i,
    ctr: u32,
}

impl XmmCtr {
    #[inline(always)]
    pub(super) unsafe fn new(cb: u128, k0: __m128i) -> Self {
        XmmCtr {
            // SAFETY: SSE2.
            hk0: unsafe { _mm_xor_si128(vec_be(cb & !u128::from(u32::MAX)), k0) },
            ctr: cb as u32,
        }
    }

    #[inline(always)]
    pub(super) unsafe fn next(&mut self) -> __m128i {
        // the big-endian counter in bytes 12..16 (dword 3)
        let c = self.ctr.swap_bytes() as i32;
        self.ctr = self.ctr.wrapping_add(1);
        // SAFETY: SSE2.
        unsafe { _mm_xor_si128(self.hk0, _mm_slli_si128::<12>(_mm_cvtsi32_si128(c))) }
    }
}

/// The counter block in every lane with its last four bytes reversed (the
/// counter as a little-endian dword 3), plus the lane index; per register
/// one `vpaddd` (+BLOCKS), one `vpshufb` back to big-endian, one xor with
/// K0. `$v` the vector type, then the byte shuffle, the dword add and the
/// xor.
macro_rules! wide_ctr {
    ($name:ident, $v:ty, $shuffle:ident, $add:ident, $xor:ident) => {
        #[derive(Clone, Copy)]
        pub(super) struct $name {
            c: $v,
            step: $v,
            swap: $v,
            k0: $v,
        }

        impl $name {
            #[inline(always)]
            pub(super) unsafe fn next(&mut self) -> $v {
                // SAFETY: the caller's.
                unsafe {
                    let x = $xor($shuffle(self.c, self.swap), self.k0);
                    // mod 2^32: dword 3 alone, no carry out.
                    self.c = $add(self.c, self.step);
                    x
                }
            }
        }
    };
}

wide_ctr!(
    YmmCtr,
    __m256i,
    _mm256_shuffle_epi8,
    _mm256_add_epi32,
    _mm256_xor_si256
);
wide_ctr!(
    ZmmCtr,
    __m512i,
    _mm512_shuffle_epi8,
    _mm512_add_epi32,
    _mm512_xor_si512
);

/// Bytes 0..12 in place, 12..16 reversed: big-endian counter <-> the
/// little-endian dword 3 (its own inverse).
#[inline(always)]
unsafe fn ctr_swap() -> __m128i {
    // SAFETY: SSE2.
    unsafe { _mm_set_epi8(12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0) }
}

impl YmmCtr {
    #[inline(always)]
    pub(super) unsafe fn new(cb: u128, k0: __m256i) -> Self {
        // SAFETY: the caller's.
        unsafe {
            let swap = _mm256_broadcastsi128_si256(ctr_swap());
            YmmCtr {
                c: _mm256_add_epi32(
                    _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(vec_be(cb)), swap),
                    _mm256_set_epi32(1, 0, 0, 0, 0, 0, 0, 0),
                ),
                step: _mm256_set_epi32(2, 0, 0, 0, 2, 0, 0, 0),
                swap,
                k0,
            }
        }
    }
}

impl ZmmCtr {
    #[inline(always)]
    pub(super) unsafe fn new(cb: u128, k0: __m512i) -> Self {
        // SAFETY: the caller's.
        unsafe {
            let swap = _mm512_broadcast_i32x4(ctr_swap());
            ZmmCtr {
                c: _mm512_add_epi32(
                    _mm512_shuffle_epi8(_mm512_broadcast_i32x4(vec_be(cb)), swap),
                    _mm512_set_epi32(3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0),
                ),
                step: _mm512_set_epi32(4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0),
                swap,
                k0,
            }
        }
    }
}

/// CTR32 on a lane: the counter blocks' state, the keystream's xor into
/// the data, and the tier's `#[target_feature]` entry to [`run`].
pub(super) trait CtrLane: Lane {
    /// The state that makes each next register's counter blocks.
    type Ctr: Copy;
    /// Counter blocks from `cb` (a big-endian integer; the last four bytes
    /// a big-endian counter, increased mod 2^32 per block), `K0` folded in.
    unsafe fn ctr_start(cb: u128, k0: Self) -> Self::Ctr;
    /// The next register's counter blocks xor `K0`.
    unsafe fn ctr_next(c: &mut Self::Ctr) -> Self;
    /// `dst = src xor ks` for `len` bytes (`1 ..= 16 BLOCKS`), nothing past
    /// them read or written; `src` and `dst` equal or disjoint.
    unsafe fn xor_bytes(src: *const u8, dst: *mut u8, ks: Self, len: usize);
    /// The tier's entry to counter mode ([`run`]).
    ///
    /// # Safety
    /// The CPU has the tier's features; `job` as [`run`] says.
    unsafe fn ctr<const NR: usize>(job: &CtrJob<'_>, out: &mut Block);
}

/// [`CtrLane`]'s counter blocks and entry for the lane `$t` (counter state
/// `$ctr`, features `$f`).
macro_rules! ctr_lane {
    ($t:ident, $ctr:ty, $f:literal) => {
        type Ctr = $ctr;
        #[inline(always)]
        unsafe fn ctr_start(cb: u128, k0: Self) -> $ctr {
            unsafe { <$ctr>::new(cb, k0.0) }
        }
        #[inline(always)]
        unsafe fn ctr_next(c: &mut $ctr) -> Self {
            unsafe { $t(c.next()) }
        }
        #[target_feature(enable = $f)]
        unsafe fn ctr<const NR: usize>(job: &CtrJob<'_>, out: &mut Block) {
            // SAFETY: this function has the tier's features; `job` is the
            // caller's.
            unsafe { run::<Self, NR>(job, out) }
        }
    };
}

// SAFETY (every `unsafe` block of the three impls): the caller's guarantees
// (the tier's features; pointers valid as each method says).
impl CtrLane for Xmm {
    ctr_lane!(Xmm, XmmCtr, "aes,sse2");
    #[inline(always)]
    unsafe fn xor_bytes(src: *const u8, dst: *mut u8, ks: Self, len: usize) {
        unsafe {
            if len >= 16 {
                Self::store(dst.cast(), Self::xor(Self::load(src.cast()), ks));
            } else {
                xor_partial(src, dst, ks.0, len);
            }
        }
    }
}

impl CtrLane for Ymm {
    ctr_lane!(Ymm, YmmCtr, "avx,avx2,aes,vaes,pclmulqdq,vpclmulqdq");
    #[inline(always)]
    unsafe fn xor_bytes(src: *const u8, dst: *mut u8, ks: Self, len: usize) {
        // Whole blocks by 16-byte loads and stores, a partial one byte by
        // byte.
        unsafe {
            if len >= 32 {
                Self::store(dst.cast(), Self::xor(Self::load(src.cast()), ks));
                return;
            }
            let (lo, hi) = (
                _mm256_castsi256_si128(ks.0),
                _mm256_extracti128_si256::<1>(ks.0),
            );
            let (ks, src, dst, len) = if len >= 16 {
                let m = _mm_loadu_si128(src.cast());
                _mm_storeu_si128(dst.cast(), _mm_xor_si128(m, lo));
                (hi, src.add(16), dst.add(16), len - 16)
            } else {
                (lo, src, dst, len)
            };
            if len > 0 {
                xor_partial(src, dst, ks, len);
            }
        }
    }
}

impl CtrLane for Zmm {
    ctr_lane!(Zmm, ZmmCtr, "avx512f,avx512bw,vaes,vpclmulqdq");
    #[inline(always)]
    unsafe fn xor_bytes(src: *const u8, dst: *mut u8, ks: Self, len: usize) {
        // Byte-masked: the bytes from `len` on are not accessed.
        let mask = if len >= 64 { !0u64 } else { (1u64 << len) - 1 };
        unsafe {
            let m = _mm512_maskz_loadu_epi8(mask, src.cast());
            _mm512_mask_storeu_epi8(dst.cast(), mask, _mm512_xor_si512(m, ks.0));
        }
    }
}

#[cfg(test)]
mod tests {
    //! Against the `aes` crate: CTR written out block by block (counter
    //! block, `encrypt_block`, xor), every key size, both back ends.

    use super::*;

    use crate::aesni::tests::{Rng, each_key, levels};
    use crate::engine::Dir;
    use crate::engine::testkit::{Reference, ctr_reference};

    /// `ctr32` on `data` in place, and from one buffer into another; each
    /// inside a larger buffer whose bytes around it must stay untouched
    /// (masked stores write nothing past the end), at an odd offset.
    fn check(k: &AesKey, key: &[u8], cb: &Block, data: &[u8], what: &str) {
        let aes = Reference::new(key);
        let expected = ctr_reference(&aes, u128::from_be_bytes(*cb), data);
        let n = data.len();
        let canary = 0xa7u8;
        // in place, with extra
        let mut buf = vec![canary; n + 80];
        buf[13..13 + n].copy_from_slice(data);
        let mut extra = *cb;
        extra[0] ^= 0x55;
        let want_extra = aes.apply(Dir::Encrypt, &extra);
        let cbi = u128::from_be_bytes(*cb);
        let got = k.ctr32(
            cbi,
            InOutBuf::from(&mut buf[13..13 + n]),
            Some(u128::from_be_bytes(extra)),
        );
        assert_eq!(&buf[13..13 + n], &expected[..], "{what}: in place");
        assert!(buf[..13].iter().chain(&buf[13 + n..]).all(|&b| b == canary));
        assert_eq!(got, want_extra, "{what}: extra");
        // buffer to buffer, no extra
        let mut out = vec![canary; n + 80];
        let got = k.ctr32(
            cbi,
            InOutBuf::new(data, &mut out[5..5 + n]).expect("same length"),
            None,
        );
        assert_eq!(got, [0; 16], "{what}: no extra");
        assert_eq!(&out[5..5 + n], &expected[..], "{what}: buffer to buffer");
        assert!(out[..5].iter().chain(&out[5 + n..]).all(|&b| b == canary));
    }

    /// 0..=300 blocks with partial tails, random keys, counter blocks and
    /// data, every key size, both back ends.
    #[test]
    fn matches_the_aes_crate() {
        let mut rng = Rng(0x00c7_2032);
        each_key(&mut rng, |rng, level, key, k, _| {
            assert_eq!(k.level(), level);
            for blocks in 0..=300usize {
                let tails: &[usize] = if blocks % 7 == 0 {
                    &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
                } else {
                    &[0, 1, 15]
                };
                for &tail in tails {
                    let mut cb = rng.block();
                    // keep clear of the wrap here (tested on its own)
                    cb[12] &= 0x7f;
                    let data = rng.bytes(16 * blocks + tail);
                    let what = format!("{level:?} AES-{} {blocks} blocks + {tail}", 8 * key.len());
                    check(k, key, &cb, &data, &what);
                }
            }
        });
    }

    /// Runs across the counter's wrap from 2^32 - 1 to 0 (the first twelve
    /// bytes unchanged), starting at every position before it, in runs that
    /// end before, at and after it, across batch and register edges.
    #[test]
    fn counter_wraps_mod_2_32() {
        let mut rng = Rng(0x3232_3232);
        each_key(&mut rng, |rng, level, key, k, _| {
            for before in 1..=40u32 {
                for blocks in [1usize, 3, 4, 5, 8, 9, 31, 32, 33, 40, 41, 70] {
                    let mut cb = rng.block();
                    cb[12..].copy_from_slice(&0u32.wrapping_sub(before).to_be_bytes());
                    let data = rng.bytes(16 * blocks + (blocks % 3) * 5);
                    let what = format!("{level:?} wrap -{before} {blocks} blocks");
                    check(k, key, &cb, &data, &what);
                }
            }
            // and the twelve fixed bytes all ones (no carry into them)
            let mut cb = [0xffu8; 16];
            cb[12..].copy_from_slice(&(u32::MAX - 2).to_be_bytes());
            check(k, key, &cb, &rng.bytes(16 * 50 + 3), "all ones");
        });
    }

    /// An empty run still enciphers `extra`; `encrypt_be`.
    #[test]
    fn empty_run_with_extra() {
        for level in levels() {
            let key = [0x24u8; 16];
            let k = AesKey::with_level(&key, level).expect("key");
            let e = k.ctr32(
                1,
                InOutBuf::from(&mut [][..]),
                Some(u128::from_be_bytes([0x42; 16])),
            );
            let aes = Reference::new(&key);
            assert_eq!(e, aes.apply(Dir::Encrypt, &[0x42; 16]));
            // and the single-block form
            for x in [
                0u128,
                1,
                u128::MAX,
                0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
            ] {
                assert_eq!(k.encrypt_be(x), aes.be(x), "{x:x}");
            }
        }
    }
}
