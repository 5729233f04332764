//! Counter mode with a 32-bit big-endian block counter (CWC-CTR, section 3
//! of the CWC paper; GCM's `inc32`), on both back ends.
//!
//! Block `t` of a run is xored with `E_K(cb + t)`, where `cb + t` is the
//! counter block `cb` with its last four bytes, read as a big-endian
//! integer, increased by `t` modulo 2^32 (the first twelve bytes never
//! change). Any number of bytes: a partial last block uses as many bytes of
//! its keystream block as it has. The counter blocks are made in
//! registers, never in memory:
//!
//! * VAES-512: the counter block broadcast to the four lanes with its last
//!   four bytes reversed (the counter as a little-endian dword), plus the
//!   lane index `0, 1, 2, 3`; per register one `vpaddd` (+4 per register),
//!   one `vpshufb` back to big-endian, one xor with `K0`. The data is
//!   folded into the last round key: `aesenclast(x, M xor K_last)` is
//!   `E_K(cb + t) xor M`. Eight registers (32 blocks) per batch; the
//!   remainder as one batch of as many registers as it needs, the last one
//!   with byte-masked loads and stores (nothing padded, nothing past the
//!   end touched).
//! * AES-NI (runs under [`XMM_BELOW`] blocks, and every run on a CPU
//!   without VAES-512): one block per xmm register, eight in flight, the
//!   remainder as one batch of its exact size; the counter of each block
//!   from a scalar `bswap` into the last dword (SSE2 only); a partial last
//!   block xored byte by byte from its keystream block (wiped after).
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

use super::schedule::{load, store};
use super::{AesKey, Level, XMM_BELOW};
use crate::arith::gf128::Block;

/// One run's parameters, for the kernels.
struct CtrJob<'a> {
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
pub(super) fn vec_be(x: u128) -> __m128i {
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
        // VAES-512 from XMM_BELOW blocks on; else (and on VAES-256, which
        // has no counter-mode kernel of its own yet) AES-NI.
        let level = if blocks < XMM_BELOW || self.level != Level::Vaes512 {
            Level::AesNi
        } else {
            Level::Vaes512
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
                    // found (Vaes512: AVX-512F, AVX-512BW, VAES); `src` and
                    // `dst` hold `len` bytes (equal or disjoint: from one
                    // `InOutBuf`, or input and spare capacity).
                    Level::Vaes512 => unsafe { ctr_vaes::<$nr>(&job) },
                    // SAFETY: AES-NI and SSE2 were detected; pointers as
                    // above.
                    Level::AesNi | Level::Vaes256 => unsafe { ctr_xmm::<$nr>(&job, &mut out) },
                }
            };
        }
        match self.rounds {
            10 => go!(10),
            12 => go!(12),
            _ => go!(14),
        }
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

/// Blocks per full VAES batch (eight registers).
const VAES_BATCH: usize = 32;

/// The VAES-512 kernel.
///
/// # Safety
/// The CPU must have AVX-512F, AVX-512BW and VAES; `job.src` and `job.dst`
/// valid for `job.len` bytes, equal or disjoint.
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
unsafe fn ctr_vaes<const NR: usize>(job: &CtrJob<'_>) {
    let mut k = [_mm512_setzero_si512(); 15];
    for (kr, b) in k.iter_mut().zip(job.keys.iter()).take(NR + 1) {
        *kr = _mm512_broadcast_i32x4(load(b));
    }
    // Bytes 0..12 in place, 12..16 reversed: big-endian counter <-> the
    // little-endian dword 3 (its own inverse).
    let swap = _mm512_broadcast_i32x4(_mm_set_epi8(
        12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
    ));
    // Lane l: the counter + l (mod 2^32: dword 3 alone, no carry out).
    let mut c = _mm512_add_epi32(
        _mm512_shuffle_epi8(_mm512_broadcast_i32x4(vec_be(job.cb)), swap),
        _mm512_set_epi32(3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0),
    );
    let four = _mm512_set_epi32(4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0);
    let n = job.len;
    let mut i = 0;
    while n - i >= 16 * VAES_BATCH {
        // SAFETY: bytes i .. i + 512 are below n.
        unsafe {
            vaes_batch::<8, NR>(&k, (&mut c, four, swap), job.src.add(i), job.dst.add(i), !0)
        };
        i += 16 * VAES_BATCH;
    }
    let rem = n - i;
    if rem > 0 {
        let nv = rem.div_ceil(64);
        let last = rem - 64 * (nv - 1); // 1 ..= 64 bytes in the last register
        let mask = if last == 64 {
            !0u64
        } else {
            (1u64 << last) - 1
        };
        macro_rules! tail {
            ($v:literal) => {
                // SAFETY: the first `rem` bytes from i are below n; the
                // last register's masked-out bytes (past n) are neither
                // loaded nor stored.
                unsafe {
                    vaes_batch::<$v, NR>(
                        &k,
                        (&mut c, four, swap),
                        job.src.add(i),
                        job.dst.add(i),
                        mask,
                    )
                }
            };
        }
        match nv {
            1 => tail!(1),
            2 => tail!(2),
            3 => tail!(3),
            4 => tail!(4),
            5 => tail!(5),
            6 => tail!(6),
            7 => tail!(7),
            _ => tail!(8),
        }
    }
}

/// One batch of `V` registers of four counter blocks; `c` advances by
/// `4 V`. The last register's bytes are those in `mask`.
///
/// # Safety
/// `src` and `dst` valid for `64 V` bytes except the last register's bytes
/// outside `mask`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
unsafe fn vaes_batch<const V: usize, const NR: usize>(
    k: &[__m512i; 15],
    (c, four, swap): (&mut __m512i, __m512i, __m512i),
    src: *const u8,
    dst: *mut u8,
    mask: u64,
) {
    let mut x = [_mm512_setzero_si512(); V];
    for xv in x.iter_mut() {
        *xv = _mm512_xor_si512(_mm512_shuffle_epi8(*c, swap), k[0]);
        *c = _mm512_add_epi32(*c, four);
    }
    for kr in &k[1..NR] {
        for xv in x.iter_mut() {
            *xv = _mm512_aesenc_epi128(*xv, *kr);
        }
    }
    for (v, xv) in x.iter().enumerate() {
        let p = src.wrapping_add(64 * v);
        let q = dst.wrapping_add(64 * v);
        if v + 1 == V {
            // SAFETY: the caller's: the bytes in `mask` are valid; the
            // others are not accessed.
            let m = unsafe { _mm512_maskz_loadu_epi8(mask, p.cast()) };
            let y = _mm512_aesenclast_epi128(*xv, _mm512_xor_si512(m, k[NR]));
            // SAFETY: as for the load.
            unsafe { _mm512_mask_storeu_epi8(q.cast(), mask, y) };
        } else {
            // SAFETY: the caller's: a full register of 64 valid bytes.
            let m = unsafe { _mm512_loadu_si512(p.cast()) };
            let y = _mm512_aesenclast_epi128(*xv, _mm512_xor_si512(m, k[NR]));
            // SAFETY: as for the load.
            unsafe { _mm512_storeu_si512(q.cast(), y) };
        }
    }
}

/// Blocks per full AES-NI batch.
const XMM_BATCH: usize = 8;

/// The AES-NI kernel; `E_K(job.extra)` into `out` if there is one.
///
/// # Safety
/// The CPU must have AES-NI and SSE2; `job.src` and `job.dst` valid for
/// `job.len` bytes, equal or disjoint.
#[target_feature(enable = "aes,sse2")]
unsafe fn ctr_xmm<const NR: usize>(job: &CtrJob<'_>, out: &mut Block) {
    let mut k = [_mm_setzero_si128(); 15];
    for (kr, b) in k.iter_mut().zip(job.keys.iter()).take(NR + 1) {
        *kr = load(b);
    }
    // The counter block's first twelve bytes xor K0; the counter itself
    // goes into the last dword block by block.
    let first = job.cb as u32;
    let hk0 = _mm_xor_si128(vec_be(job.cb & !u128::from(u32::MAX)), k[0]);
    let mut ex = vec_be(job.extra.unwrap_or(0));
    let mut ex_pending = job.extra.is_some();
    let n = job.len;
    let blocks = n.div_ceil(16);
    let mut t = 0; // blocks done
    macro_rules! go {
        ($v:literal) => {{
            let ctr = first.wrapping_add(t as u32);
            // bytes in the batch's last block: 16, or fewer at the end
            let last = (n - 16 * t).min(16 * $v) - 16 * ($v - 1);
            // SAFETY: blocks t .. t + $v are below `blocks`; the last one
            // holds `last` valid bytes, which is all the batch touches of it.
            unsafe {
                if ex_pending {
                    ex_pending = false;
                    xmm_batch::<$v, NR, true>(
                        &k,
                        hk0,
                        ctr,
                        job.src.add(16 * t),
                        job.dst.add(16 * t),
                        last,
                        &mut ex,
                    )
                } else {
                    xmm_batch::<$v, NR, false>(
                        &k,
                        hk0,
                        ctr,
                        job.src.add(16 * t),
                        job.dst.add(16 * t),
                        last,
                        &mut ex,
                    )
                }
            }
        }};
    }
    while blocks - t >= XMM_BATCH {
        go!(8);
        t += XMM_BATCH;
    }
    match blocks - t {
        0 => {}
        1 => go!(1),
        2 => go!(2),
        3 => go!(3),
        4 => go!(4),
        5 => go!(5),
        6 => go!(6),
        _ => go!(7),
    }
    debug_assert!(!ex_pending, "the extra block rode along");
    if job.extra.is_some() {
        *out = store(ex);
    }
}

/// One batch of `V` counter blocks from the counter `ctr`; the last block
/// has `last` (1..=16) valid bytes. With `EX`, also `ex = E_K(ex)`.
///
/// # Safety
/// `src` and `dst` valid for `16 (V - 1) + last` bytes.
#[inline]
#[target_feature(enable = "aes,sse2")]
unsafe fn xmm_batch<const V: usize, const NR: usize, const EX: bool>(
    k: &[__m128i; 15],
    hk0: __m128i,
    ctr: u32,
    src: *const u8,
    dst: *mut u8,
    last: usize,
    ex: &mut __m128i,
) {
    if EX {
        *ex = _mm_xor_si128(*ex, k[0]);
    }
    let mut x = [_mm_setzero_si128(); V];
    for (v, xv) in x.iter_mut().enumerate() {
        // the big-endian counter in bytes 12..16 (dword 3)
        let c = ctr.wrapping_add(v as u32).swap_bytes() as i32;
        *xv = _mm_xor_si128(hk0, _mm_slli_si128::<12>(_mm_cvtsi32_si128(c)));
    }
    // A counted loop (an iterator chain was left as a call per round in
    // the whitening kernels).
    #[allow(clippy::needless_range_loop)]
    for r in 1..NR {
        let kr = k[r];
        for xv in x.iter_mut() {
            *xv = _mm_aesenc_si128(*xv, kr);
        }
        if EX {
            *ex = _mm_aesenc_si128(*ex, kr);
        }
    }
    if EX {
        *ex = _mm_aesenclast_si128(*ex, k[NR]);
    }
    for (v, xv) in x.iter().enumerate() {
        let p = src.wrapping_add(16 * v);
        let q = dst.wrapping_add(16 * v);
        if v + 1 < V || last == 16 {
            // SAFETY: the caller's: a whole block of 16 valid bytes.
            let m = unsafe { _mm_loadu_si128(p.cast()) };
            let y = _mm_aesenclast_si128(*xv, _mm_xor_si128(m, k[NR]));
            // SAFETY: as for the load.
            unsafe { _mm_storeu_si128(q.cast(), y) };
        } else {
            // A partial block: its keystream, then byte by byte.
            let mut ks = store(_mm_aesenclast_si128(*xv, k[NR]));
            for (j, kb) in ks.iter().enumerate().take(last) {
                // SAFETY: the caller's: bytes 0 .. last of the block are
                // valid (read before written: `src` may equal `dst`).
                unsafe { *q.add(j) = *p.add(j) ^ kb };
            }
            ks.fill(0);
            core::hint::black_box(&ks);
        }
    }
}

#[cfg(test)]
mod tests {
    //! Against the `aes` crate: CTR written out block by block (counter
    //! block, `encrypt_block`, xor), every key size, both back ends.

    use cipher::{BlockCipherEncrypt, KeyInit};

    use super::super::detect;
    use super::*;

    /// Both back ends where the CPU has them.
    fn levels() -> Vec<Level> {
        match detect() {
            None => vec![],
            Some(Level::AesNi) => vec![Level::AesNi],
            Some(Level::Vaes256) => vec![Level::AesNi, Level::Vaes256],
            Some(Level::Vaes512) => vec![Level::AesNi, Level::Vaes256, Level::Vaes512],
        }
    }

    use crate::aesni::tests::Rng;

    /// `E_K(b)` with the `aes` crate.
    fn aes_block(key: &[u8], b: &Block) -> Block {
        let mut x = cipher::Block::<aes::Aes128>::from(*b);
        match key.len() {
            16 => aes::Aes128::new_from_slice(key)
                .expect("key")
                .encrypt_block(&mut x),
            24 => aes::Aes192::new_from_slice(key)
                .expect("key")
                .encrypt_block(&mut x),
            _ => aes::Aes256::new_from_slice(key)
                .expect("key")
                .encrypt_block(&mut x),
        }
        x.into()
    }

    /// CTR by the definition: block t of `data` xor `E_K(cb + t)`, the last
    /// four bytes of `cb` a big-endian counter incremented mod 2^32.
    fn reference(key: &[u8], cb: &Block, data: &[u8]) -> Vec<u8> {
        let first = u32::from_be_bytes([cb[12], cb[13], cb[14], cb[15]]);
        let mut out = data.to_vec();
        for (t, chunk) in out.chunks_mut(16).enumerate() {
            let mut c = *cb;
            c[12..].copy_from_slice(&first.wrapping_add(t as u32).to_be_bytes());
            let ks = aes_block(key, &c);
            for (x, k) in chunk.iter_mut().zip(ks) {
                *x ^= k;
            }
        }
        out
    }

    /// `ctr32` on `data` in place, and from one buffer into another; each
    /// inside a larger buffer whose bytes around it must stay untouched
    /// (masked stores write nothing past the end), at an odd offset.
    fn check(k: &AesKey, key: &[u8], cb: &Block, data: &[u8], what: &str) {
        let expected = reference(key, cb, data);
        let n = data.len();
        let canary = 0xa7u8;
        // in place, with extra
        let mut buf = vec![canary; n + 80];
        buf[13..13 + n].copy_from_slice(data);
        let mut extra = *cb;
        extra[0] ^= 0x55;
        let want_extra = aes_block(key, &extra);
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
        for level in levels() {
            for key_len in [16usize, 24, 32] {
                let key = rng.bytes(key_len);
                let k = AesKey::with_level(&key, level).expect("key");
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
                        let what =
                            format!("{level:?} AES-{} {blocks} blocks + {tail}", 8 * key_len);
                        check(&k, &key, &cb, &data, &what);
                    }
                }
            }
        }
    }

    /// Runs across the counter's wrap from 2^32 - 1 to 0 (the first twelve
    /// bytes unchanged), starting at every position before it, in runs that
    /// end before, at and after it, across batch and register edges.
    #[test]
    fn counter_wraps_mod_2_32() {
        let mut rng = Rng(0x3232_3232);
        for level in levels() {
            for key_len in [16usize, 24, 32] {
                let key = rng.bytes(key_len);
                let k = AesKey::with_level(&key, level).expect("key");
                for before in 1..=40u32 {
                    for blocks in [1usize, 3, 4, 5, 8, 9, 31, 32, 33, 40, 41, 70] {
                        let mut cb = rng.block();
                        cb[12..].copy_from_slice(&0u32.wrapping_sub(before).to_be_bytes());
                        let data = rng.bytes(16 * blocks + (blocks % 3) * 5);
                        let what = format!("{level:?} wrap -{before} {blocks} blocks");
                        check(&k, &key, &cb, &data, &what);
                    }
                }
                // and the twelve fixed bytes all ones (no carry into them)
                let mut cb = [0xffu8; 16];
                cb[12..].copy_from_slice(&(u32::MAX - 2).to_be_bytes());
                check(&k, &key, &cb, &rng.bytes(16 * 50 + 3), "all ones");
            }
        }
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
            assert_eq!(e, aes_block(&key, &[0x42; 16]));
            // and the single-block form
            for x in [
                0u128,
                1,
                u128::MAX,
                0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
            ] {
                assert_eq!(k.encrypt_be(x), aes_block(&key, &x.to_be_bytes()), "{x:x}");
            }
        }
    }
}
