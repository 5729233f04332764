//! CWC-CTR and CWC-HASH in one pass (VAES-512 with AVX-512 IFMA): the
//! counter-mode kernel of the engine (`aesni/ctr.rs`) whose AES rounds run interleaved with
//! the hash's multiply-adds over the ciphertext it produced one step
//! before, taken from registers (never reloaded from memory).
//!
//! # Why interleaved
//!
//! On the Sapphire Rapids this was written on, `vaesenc` on zmm registers
//! issues on one port (port 0) and `vpmadd52*` on two (ports 0 and 5): a
//! loop holding both keeps both ports busy. Run one after the other in
//! strides (encipher a stride, then hash it, each at its own full speed),
//! the two hardly overlap: the scheduler fills with AES rounds waiting for
//! port 0 and the hash's instructions behind them cannot issue until they
//! drain (measured: the strided form costs the sum of its parts; see
//! `docs/performance.md`, section "CWC").
//!
//! # The loop
//!
//! Each step enciphers three registers of four counter blocks (192 bytes)
//! and, after its third round, hashes the previous step's three output
//! registers (16 chunks, `cwc::hash::ifma::Stream`); the last step's
//! output is hashed alone. From three steps in the last group, the step
//! before the last enciphers the last one's registers beside its own
//! (`step_pair`: up to 10 % faster under 1 KiB, the same from 1 KiB, where
//! out-of-order execution already ran the last rounds early; see
//! `docs/performance.md`, "CWC"). The hash runs in double groups of 128 chunks
//! (1536 bytes, 8 steps: one scalar step `S <- S K^128 + G` each); what is
//! left after them (under 1536 bytes) is one last group of `c` chunks
//! whose powers start at `K^c`. Every step whose 192 bytes lie inside the
//! message is whole (plain 64-byte loads and stores); the last one, when
//! partial, enciphers only the registers that hold message bytes (one,
//! two or three) and loads, stores and hashes them with byte masks
//! (nothing past the message is read or written, and the keystream past
//! it is zeroed before it is hashed; when its bytes end by byte 96 the
//! second half of its 16 chunks, all zero, is not hashed). The whole
//! message is one pass: no tail runs on its own.
//!
//! The tag ends the same call: the length block and the last reduction,
//! then `E_K(R)` and the MAC pad `E_K(10^7 || N || 0^32)` side by side on
//! the low lanes of the round keys already in registers, xored into the
//! 16-byte tau, the one value that leaves the kernel (no second key load,
//! no intermediate block in memory to wipe). A 1 KiB message is one call
//! whose chain from its last counter block to the tag is this.

//!
//! # Why unsafe
//!
//! The engine's kernel beside its mode (it was `aesni/cwc.rs`): AES rounds
//! and IFMA multiply-adds on zmm registers (`core::arch` intrinsics under
//! `#[target_feature]`, callable only where `AesKey::level` is VAES-512 and
//! a `Powers` proves IFMA and VBMI), and vector loads and stores through
//! raw pointers inside the caller's input and output (full 64-byte ones
//! inside the message, masked ones at its end). Each block has its SAFETY
//! comment.

#![allow(unsafe_code)]

use core::arch::x86_64::*;

use cipher::inout::InOutBuf;

use super::hash::ifma::{DOUBLE_CHUNKS, Powers, Stream};
use super::hash::{CHUNK_BYTES, finish_value, length_block};
use crate::aesni::ctr::vec_be;
use crate::aesni::schedule::load;
use crate::aesni::{AesKey, Level};
use crate::arith::gf128::Block;
use crate::arith::modular::reduce127;
#[cfg(feature = "alloc")]
use crate::engine::append_with;

/// Registers (of four blocks) per step: three, whose 192 bytes the hash
/// takes in one call (16 chunks).
const V: usize = 3;

/// Bytes per step.
const STEP_BYTES: usize = 64 * V;

/// Bytes and steps of a double group (128 chunks).
const DOUBLE: usize = DOUBLE_CHUNKS * CHUNK_BYTES;
const DOUBLE_STEPS: usize = DOUBLE / STEP_BYTES;

const _: () = assert!(DOUBLE_STEPS == 8 && DOUBLE.is_multiple_of(STEP_BYTES));

impl AesKey {
    /// CWC-CTR, CWC-HASH over its output and the tag, in one pass: `io`'s
    /// output becomes its input xor the keystream from the counter block
    /// `base + 1` (as [`ctr32`](Self::ctr32)); the hash's running value
    /// `s` (A already absorbed, `ad_len` bytes of it) absorbs the output
    /// padded with zero bytes to a multiple of 12 and the length block;
    /// returns the full 16-byte tau `E_K(CWC-HASH) xor E_K(base)`. `None`,
    /// doing nothing, unless the key runs on VAES-512.
    pub(crate) fn ctr32_hash_tag(
        &self,
        base: u128,
        io: InOutBuf<'_, '_, u8>,
        pw: &Powers,
        s: u128,
        ad_len: u64,
    ) -> Option<Block> {
        let len = io.len();
        let (src, dst) = io.into_raw();
        self.ctr32_hash_tag_raw(base, src, dst, len, pw, s, ad_len)
    }

    /// [`ctr32_hash_tag`](Self::ctr32_hash_tag) on `len` bytes at `src`
    /// into `dst` (equal, or disjoint; `dst` may be uninitialised: only
    /// stored to).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn ctr32_hash_tag_raw(
        &self,
        base: u128,
        src: *const u8,
        dst: *mut u8,
        len: usize,
        pw: &Powers,
        s: u128,
        ad_len: u64,
    ) -> Option<Block> {
        if self.level() != Level::Vaes512 {
            return None;
        }
        let (keys, rounds) = self.enc_round_keys();
        let at = Tail { base, ad_len };
        // SAFETY: the key's level is Vaes512, so `detect` found AES-NI,
        // AVX-512F, AVX-512BW, VAES and VPCLMULQDQ; a `Powers` exists only
        // where its constructor found AVX-512F, BW, IFMA and VBMI. `src`
        // and `dst` hold `len` bytes (equal or disjoint: from one
        // `InOutBuf`, or input and spare capacity).
        Some(unsafe {
            match rounds {
                10 => kernel::<10>(keys, src, dst, len, pw, s, at),
                12 => kernel::<12>(keys, src, dst, len, pw, s, at),
                _ => kernel::<14>(keys, src, dst, len, pw, s, at),
            }
        })
    }

    /// As [`ctr32_hash_tag`](Self::ctr32_hash_tag) from `input` onto the
    /// end of `out` (`input.len()` bytes appended, written once: see
    /// [`append_with`]); `None`, appending nothing, where `ctr32_hash_tag`
    /// does not run.
    #[cfg(feature = "alloc")]
    pub(crate) fn ctr32_hash_tag_append(
        &self,
        base: u128,
        input: &[u8],
        out: &mut alloc::vec::Vec<u8>,
        pw: &Powers,
        s: u128,
        ad_len: u64,
    ) -> Option<Block> {
        let len = input.len();
        append_with(out, len, |dst| {
            let r =
                self.ctr32_hash_tag_raw(base, input.as_ptr(), dst.as_mut_ptr(), len, pw, s, ad_len);
            let written = if r.is_some() { len } else { 0 };
            (r, written)
        })
    }
}

/// What the tag needs besides the pass: the counter base `10^7 || N ||
/// 0^32` (the MAC pad's block; the keystream starts at `base + 1`) and
/// the length of A in bytes.
#[derive(Clone, Copy)]
struct Tail {
    base: u128,
    ad_len: u64,
}

/// The counter state of `ctr.rs`'s VAES kernel: the counter blocks of the
/// next register with their counters as little-endian dwords, the step
/// between registers, the byte swap.
struct Counters {
    c: __m512i,
    four: __m512i,
    swap: __m512i,
}

/// The byte masks of the three registers of the step at byte `at` of a
/// message of `len` bytes (`at < len`).
#[inline]
fn masks(at: usize, len: usize) -> [u64; V] {
    core::array::from_fn(|v| {
        let n = (len - at).saturating_sub(64 * v).min(64);
        if n == 64 { !0 } else { (1u64 << n) - 1 }
    })
}

/// The one-pass kernel over a message of `len` bytes (0 allowed), then the
/// tag: `E_K(R) xor E_K(base)`, the two blocks enciphered side by side on
/// the round keys already in registers.
///
/// # Safety
/// The CPU must have AES-NI, AVX-512F, AVX-512BW, VAES, VPCLMULQDQ,
/// AVX-512 IFMA and AVX-512 VBMI; `src` and `dst` valid for `len` bytes,
/// equal or disjoint.
#[target_feature(enable = "aes,avx512f,avx512bw,vaes,vpclmulqdq,avx512ifma,avx512vbmi")]
unsafe fn kernel<const NR: usize>(
    keys: &[Block; 15],
    src: *const u8,
    dst: *mut u8,
    len: usize,
    pw: &Powers,
    s: u128,
    tail: Tail,
) -> Block {
    let mut k = [_mm512_setzero_si512(); 15];
    for (kr, b) in k.iter_mut().zip(keys.iter()).take(NR + 1) {
        *kr = _mm512_broadcast_i32x4(load(b));
    }
    let r = if len == 0 {
        finish_value(s, tail.ad_len, 0)
    } else {
        let length = length_block(tail.ad_len, len as u64);
        // SAFETY: the caller's (len >= 1).
        unsafe { pass::<NR>(&k, tail.base + 1, src, dst, len, pw, s, length) }
    };
    // E_K(R) and the MAC pad E_K(base) side by side, on the low lanes of
    // the broadcast round keys.
    let mut a = _mm_xor_si128(vec_be(r), _mm512_castsi512_si128(k[0]));
    let mut b = _mm_xor_si128(vec_be(tail.base), _mm512_castsi512_si128(k[0]));
    for kr in &k[1..NR] {
        a = _mm_aesenc_si128(a, _mm512_castsi512_si128(*kr));
        b = _mm_aesenc_si128(b, _mm512_castsi512_si128(*kr));
    }
    let last = _mm512_castsi512_si128(k[NR]);
    let t = _mm_xor_si128(_mm_aesenclast_si128(a, last), _mm_aesenclast_si128(b, last));
    let mut tau = [0u8; 16];
    // SAFETY: `tau` is 16 writable bytes (unaligned store).
    unsafe { _mm_storeu_si128(tau.as_mut_ptr().cast(), t) };
    tau
}

/// CWC-CTR and CWC-HASH over a message of `len >= 1` bytes from the
/// counter block `cb`, continuing from the running value `s`, ended with
/// the length block `length`: returns `R`, canonical.
///
/// Steps run whole (plain 64-byte loads and stores) wherever their 192
/// bytes lie inside the message; the last step, when partial, enciphers
/// only the registers that hold message bytes (one, two or three), with
/// byte-masked loads and stores, and its hash skips the second half of
/// the 16 chunks when they lie past the message.
///
/// # Safety
/// As [`kernel`], with `len >= 1`.
#[inline]
#[target_feature(enable = "aes,avx512f,avx512bw,vaes,vpclmulqdq,avx512ifma,avx512vbmi")]
#[allow(clippy::too_many_arguments)]
unsafe fn pass<const NR: usize>(
    k: &[__m512i; 15],
    cb: u128,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    pw: &Powers,
    s: u128,
    length: u128,
) -> u128 {
    let swap = _mm512_broadcast_i32x4(_mm_set_epi8(
        12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
    ));
    let mut ctr = Counters {
        c: _mm512_add_epi32(
            _mm512_shuffle_epi8(_mm512_broadcast_i32x4(vec_be(cb)), swap),
            _mm512_set_epi32(3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0),
        ),
        four: _mm512_set_epi32(4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0),
        swap,
    };
    let mut hash = Stream::new(pw, s);
    let doubles = len / DOUBLE;
    let rest = len - doubles * DOUBLE; // under 1536 bytes: one last group
    let rest_steps = rest.div_ceil(STEP_BYTES);
    let rest_chunks = rest.div_ceil(CHUNK_BYTES);
    // The last group's quarter u is hashed from table entry `e0 + 16 u`.
    let e0 = DOUBLE_CHUNKS - rest_chunks;
    // The byte where the last step starts, and its bytes (1..=192).
    let last_at = (len - 1) / STEP_BYTES * STEP_BYTES;
    let last_bytes = len - last_at;
    // Step q enciphers bytes 192 q .. and hashes step q - 1's output.
    let mut q = 0;
    // The last step at byte `at`, hashing `prev` from table entry
    // `entry`: only the registers holding message bytes.
    macro_rules! last {
        ($at:expr, $prev:expr) => {{
            let at = $at;
            let m = masks(at, len);
            let (sp, dp) = (src.wrapping_add(at), dst.wrapping_add(at));
            // SAFETY: at < len; the masks hold the bytes below len, the
            // others are not accessed (`wrapping_add` past the end).
            unsafe {
                match (len - at).div_ceil(64) {
                    1 => step_last::<NR, 1>(k, &mut ctr, sp, dp, m, &mut hash, $prev),
                    2 => step_last::<NR, 2>(k, &mut ctr, sp, dp, m, &mut hash, $prev),
                    _ => step_last::<NR, 3>(k, &mut ctr, sp, dp, m, &mut hash, $prev),
                }
            }
        }};
    }
    let mut y = if len > STEP_BYTES {
        // SAFETY: step 0 is whole.
        unsafe { step::<NR, NONE>(k, &mut ctr, src, dst, &mut hash, None) }
    } else {
        last!(0, None)
    };
    macro_rules! next {
        ($first:literal) => {
            q += 1;
            // SAFETY: step q lies inside the doubles, below len.
            y = unsafe {
                step::<NR, $first>(
                    k,
                    &mut ctr,
                    src.add(q * STEP_BYTES),
                    dst.add(q * STEP_BYTES),
                    &mut hash,
                    Some((&y, 0)),
                )
            };
        };
    }
    // Step q (after the doubles) of the last group, hashing `prev` from
    // table entry `entry`: whole, or the last.
    macro_rules! next_rest {
        ($entry:expr) => {
            q += 1;
            let at = q * STEP_BYTES;
            y = if at < last_at {
                // SAFETY: the step's 192 bytes lie below last_at < len.
                unsafe {
                    step::<NR, AT>(
                        k,
                        &mut ctr,
                        src.add(at),
                        dst.add(at),
                        &mut hash,
                        Some((&y, $entry)),
                    )
                }
            } else {
                last!(at, Some((&y, $entry)))
            };
        };
    }
    for d in 0..doubles {
        next!(0);
        next!(2);
        next!(4);
        next!(6);
        next!(8);
        next!(10);
        next!(12);
        if d + 1 < doubles {
            next!(14);
        } else if rest_steps > 0 {
            next_rest!(8 * 14);
        } else {
            hash.absorb192::<14>(y);
        }
        hash.end_double();
    }
    if rest_steps > 0 {
        // From three steps in the last group (rest step 0 is enciphered
        // above), the step before the last enciphers the last one's
        // registers beside its own: their rounds leave the chain to the tag.
        let pair = rest_steps >= 3;
        let alone = if pair { rest_steps - 2 } else { rest_steps };
        for u in 1..alone {
            next_rest!(e0 + 16 * (u - 1));
        }
        if pair {
            q += 1;
            let at = q * STEP_BYTES;
            let m = masks(last_at, len);
            let last_io = (src.wrapping_add(last_at), dst.wrapping_add(last_at));
            let prev = Some((&y, e0 + 16 * (rest_steps - 3)));
            macro_rules! pair {
                ($r:literal) => {
                    // SAFETY: step q is whole (at + 192 = last_at < len);
                    // the last step as in `last!`.
                    unsafe {
                        step_pair::<NR, $r>(
                            k,
                            &mut ctr,
                            (src.add(at), dst.add(at)),
                            last_io,
                            m,
                            &mut hash,
                            prev,
                        )
                    }
                };
            }
            let (w, z) = match last_bytes.div_ceil(64) {
                1 => pair!(1),
                2 => pair!(2),
                _ => pair!(3),
            };
            hash.absorb192_at(w, e0 + 16 * (rest_steps - 2));
            y = z;
        }
        let entry = e0 + 16 * (rest_steps - 1);
        if last_bytes <= 96 {
            hash.absorb96_at(y, entry);
        } else {
            hash.absorb192_at(y, entry);
        }
        return hash.end_last(rest_chunks, length);
    }
    // a whole number of double groups: S canonical, length < 2^100
    reduce127(hash.finish() + length)
}

/// What a step hashes: nothing, vectors `HASH` and `HASH + 1` of the
/// current double group (0, 2, .., 14), or ([`AT`]) 16 chunks from the
/// table entry given with `prev`.
const NONE: usize = usize::MAX;

/// A step that hashes from a table entry known at run time.
const AT: usize = usize::MAX - 1;

/// One whole step: three registers of counter blocks enciphered and xored
/// into the 192 bytes at `src` (stored at `dst`) and returned; `prev` (the
/// previous step's output) absorbed after the third round as vectors
/// `HASH`, `HASH + 1` of its double group, or from the table entry
/// `prev.1` where `HASH` is [`AT`].
///
/// # Safety
/// `src` and `dst` valid for `STEP_BYTES` bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq,avx512ifma,avx512vbmi")]
unsafe fn step<const NR: usize, const HASH: usize>(
    k: &[__m512i; 15],
    ctr: &mut Counters,
    src: *const u8,
    dst: *mut u8,
    hash: &mut Stream<'_>,
    prev: Option<(&[__m512i; V], usize)>,
) -> [__m512i; V] {
    let mut x = counters::<V>(k, ctr);
    rounds(&mut x, &k[1..4]);
    if let Some((p, entry)) = prev {
        match HASH {
            0 => hash.absorb192::<0>(*p),
            2 => hash.absorb192::<2>(*p),
            4 => hash.absorb192::<4>(*p),
            6 => hash.absorb192::<6>(*p),
            8 => hash.absorb192::<8>(*p),
            10 => hash.absorb192::<10>(*p),
            12 => hash.absorb192::<12>(*p),
            14 => hash.absorb192::<14>(*p),
            AT => hash.absorb192_at(*p, entry),
            _ => {}
        }
    }
    rounds(&mut x, &k[4..NR]);
    // SAFETY: the caller's.
    unsafe { whole_out(k[NR], x, src, dst) }
}

/// The last round of a whole step's three registers `x`, xored into the
/// 192 bytes at `src`, stored at `dst` and returned.
///
/// # Safety
/// `src` and `dst` valid for `STEP_BYTES` bytes.
#[inline]
#[target_feature(enable = "avx512f,vaes")]
unsafe fn whole_out(last: __m512i, x: [__m512i; V], src: *const u8, dst: *mut u8) -> [__m512i; V] {
    let mut y = [_mm512_setzero_si512(); V];
    for (v, (xv, yv)) in x.iter().zip(y.iter_mut()).enumerate() {
        // SAFETY: the caller's: bytes 64 v .. 64 v + 64 are valid.
        let m = unsafe { _mm512_loadu_si512(src.add(64 * v).cast()) };
        *yv = _mm512_aesenclast_epi128(*xv, _mm512_xor_si512(m, last));
        // SAFETY: as for the load.
        unsafe { _mm512_storeu_si512(dst.add(64 * v).cast(), *yv) };
    }
    y
}

/// The last step, of `R` registers (the ones holding message bytes),
/// register `v`'s bytes limited to `masks[v]`: only those are loaded and
/// stored, and the returned registers are zero outside them (registers
/// `R..` all zero); `prev` is absorbed from table entry `prev.1`.
///
/// # Safety
/// The bytes in `masks[v]` of the 64 from `src + 64 v` (and `dst`) are
/// valid (`v < R`); no other byte is accessed.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq,avx512ifma,avx512vbmi")]
unsafe fn step_last<const NR: usize, const R: usize>(
    k: &[__m512i; 15],
    ctr: &mut Counters,
    src: *const u8,
    dst: *mut u8,
    masks: [u64; V],
    hash: &mut Stream<'_>,
    prev: Option<(&[__m512i; V], usize)>,
) -> [__m512i; V] {
    let mut x = counters::<R>(k, ctr);
    rounds(&mut x, &k[1..4]);
    if let Some((p, entry)) = prev {
        hash.absorb192_at(*p, entry);
    }
    rounds(&mut x, &k[4..NR]);
    // SAFETY: the caller's.
    unsafe { masked_out(k[NR], x, src, dst, masks) }
}

/// A whole step (bytes `src`, `dst`) and the last one (`R` registers at
/// `last_src`, `last_dst`, limited to `masks`) enciphered side by side:
/// the last step's rounds run beside the step before it instead of alone
/// on the way to the tag; `prev` is absorbed from table entry `prev.1`
/// after the third round. Returns both steps' outputs (as [`step`] and
/// [`step_last`]).
///
/// # Safety
/// As [`step`] for `src` and `dst`, as [`step_last`] for the others.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq,avx512ifma,avx512vbmi")]
#[allow(clippy::too_many_arguments)]
unsafe fn step_pair<const NR: usize, const R: usize>(
    k: &[__m512i; 15],
    ctr: &mut Counters,
    (src, dst): (*const u8, *mut u8),
    (last_src, last_dst): (*const u8, *mut u8),
    masks: [u64; V],
    hash: &mut Stream<'_>,
    prev: Option<(&[__m512i; V], usize)>,
) -> ([__m512i; V], [__m512i; V]) {
    let mut x = counters::<V>(k, ctr);
    let mut z = counters::<R>(k, ctr);
    for kr in &k[1..4] {
        rounds(&mut x, core::slice::from_ref(kr));
        rounds(&mut z, core::slice::from_ref(kr));
    }
    if let Some((p, entry)) = prev {
        hash.absorb192_at(*p, entry);
    }
    for kr in &k[4..NR] {
        rounds(&mut x, core::slice::from_ref(kr));
        rounds(&mut z, core::slice::from_ref(kr));
    }
    // SAFETY: the caller's.
    unsafe {
        (
            whole_out(k[NR], x, src, dst),
            masked_out(k[NR], z, last_src, last_dst, masks),
        )
    }
}

/// The last round of the `R` registers `x` of the last step, xored into
/// the bytes in `masks[v]` of the 64 from `src + 64 v`, stored at the same
/// bytes from `dst`; returned zero outside them (registers `R..` all
/// zero).
///
/// # Safety
/// The bytes in `masks[v]` of the 64 from `src + 64 v` (and `dst`) are
/// valid (`v < R`); no other byte is accessed.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes")]
unsafe fn masked_out<const R: usize>(
    last: __m512i,
    x: [__m512i; R],
    src: *const u8,
    dst: *mut u8,
    masks: [u64; V],
) -> [__m512i; V] {
    let mut y = [_mm512_setzero_si512(); V];
    for (v, (xv, yv)) in x.iter().zip(y.iter_mut()).enumerate() {
        // SAFETY: the caller's: the bytes in `masks[v]` are valid, the
        // others are not accessed.
        let m = unsafe { _mm512_maskz_loadu_epi8(masks[v], src.wrapping_add(64 * v).cast()) };
        let c = _mm512_aesenclast_epi128(*xv, _mm512_xor_si512(m, last));
        // SAFETY: as for the load.
        unsafe { _mm512_mask_storeu_epi8(dst.wrapping_add(64 * v).cast(), masks[v], c) };
        // past the message: keystream, never hashed (zero padding instead)
        *yv = _mm512_maskz_mov_epi8(masks[v], c);
    }
    y
}

/// The next `R` registers of counter blocks, xored with `K0`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn counters<const R: usize>(k: &[__m512i; 15], ctr: &mut Counters) -> [__m512i; R] {
    core::array::from_fn(|_| {
        let x = _mm512_xor_si512(_mm512_shuffle_epi8(ctr.c, ctr.swap), k[0]);
        ctr.c = _mm512_add_epi32(ctr.c, ctr.four);
        x
    })
}

/// AES rounds with the keys `keys` on the registers `x`.
#[inline]
#[target_feature(enable = "avx512f,vaes")]
fn rounds<const R: usize>(x: &mut [__m512i; R], keys: &[__m512i]) {
    for kr in keys {
        for xv in x.iter_mut() {
            *xv = _mm512_aesenc_epi128(*xv, *kr);
        }
    }
}

#[cfg(test)]
mod tests {
    //! The one-pass kernel against CTR and the tag written out with the
    //! `aes` crate and CWC-HASH on its portable path, every key size,
    //! every length to 3200 bytes and beyond the double groups.

    use super::*;
    use crate::cwc::hash::{CwcHash, HashState};

    use crate::aesni::tests::Rng;
    use crate::engine::testkit::{Reference, ctr_reference};

    #[test]
    fn one_pass_matches_ctr_and_the_portable_hash() {
        if crate::aesni::detect() != Some(Level::Vaes512) {
            eprintln!("no VAES-512: one-pass kernel not tested");
            return;
        }
        let mut rng = Rng(0x0ce_9a55);
        let mut lengths: Vec<usize> = (0..=3200).collect();
        lengths.extend([4607, 4608, 4609, 6143, 6144, 16_384 + 7, 40_000]);
        for key_len in [16usize, 24, 32] {
            let key = rng.bytes(key_len);
            let k = AesKey::new(&key).expect("key");
            let aes = Reference::new(&key);
            let h = CwcHash::from_key_block(&rng.bytes(16).try_into().expect("16"));
            let Some(pw) = h.ifma_powers() else {
                eprintln!("no AVX-512 IFMA: one-pass kernel not tested");
                return;
            };
            let portable = h.clone().portable();
            // the AES-NI level has no one-pass kernel
            let narrow = AesKey::with_level(&key, Level::AesNi).expect("key");
            assert_eq!(
                narrow.ctr32_hash_tag(0, InOutBuf::from(&mut [0u8; 800][..]), pw, 0, 0),
                None
            );
            for &len in &lengths {
                let data = rng.bytes(len);
                let ad = rng.bytes(len % 41);
                // counter blocks clear of the 32-bit wrap (CWC never reaches it)
                let base = u128::from(rng.next()) << 64 | u128::from(rng.next() >> 34);
                let expected = ctr_reference(&aes, base + 1, &data);
                // the hash so far: A, on the portable path
                let mut st = HashState::default();
                portable.absorb_padded(&mut st, &ad);
                let s0 = st.s;
                portable.absorb_padded(&mut st, &expected);
                let r = portable.finish_int(st, ad.len() as u64, len as u64);
                let want = crate::arith::gf128::xor(&aes.be(r), &aes.be(base));
                let ad_len = ad.len() as u64;
                // in place, and from one buffer into another
                let mut buf = data.clone();
                let tau = k.ctr32_hash_tag(base, InOutBuf::from(&mut buf[..]), pw, s0, ad_len);
                assert_eq!(buf, expected, "AES-{} len {len}: in place", 8 * key_len);
                assert_eq!(tau, Some(want), "AES-{} len {len}: tag", 8 * key_len);
                let mut out = vec![0x5au8; len + 64];
                let io = InOutBuf::new(&data, &mut out[..len]).expect("len");
                let tau = k.ctr32_hash_tag(base, io, pw, s0, ad_len);
                assert_eq!(&out[..len], &expected[..], "len {len}: buffer to buffer");
                assert!(
                    out[len..].iter().all(|&b| b == 0x5a),
                    "len {len}: past the end"
                );
                assert_eq!(tau, Some(want), "len {len}: tag, buffer to buffer");
            }
        }
    }
}
