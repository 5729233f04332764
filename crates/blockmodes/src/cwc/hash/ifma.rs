//! CWC-HASH on AVX-512 IFMA: the one module of the crate with `unsafe` code.
//!
//! # What it does
//!
//! The same generalised Horner rule as the portable path ([`super`]), with
//! the chunk products computed by the 52-bit multiply-add instructions of
//! AVX-512 IFMA (`vpmadd52luq` / `vpmadd52huq`), eight chunks per vector:
//!
//! * A group of up to [`GROUP_CHUNKS`] (64) chunks `Y_1 .. Y_g` gives
//!   `G = Y_1 K^g + ... + Y_g K`; the running value becomes
//!   `S <- S K^g + G` (one scalar [`mul127`] and one reduction per group).
//! * Eight chunks (96 bytes) fill one vector: lane `l` holds chunk `l` as two
//!   48-bit limbs `Y = y0 + y1 2^48`, gathered from two overlapping 64-byte
//!   loads (bytes 0..64 and 32..96) by one masked two-source byte permute
//!   each (`vpermt2b`, AVX-512 VBMI) that also reverses the big-endian bytes.
//! * Every power `K^e` and `K^e 2^48 mod p` (`e` = 1 to 128) is precomputed
//!   at key setup in three 48-bit limbs, one array per limb, so lane `l` of
//!   a vector load is the power of chunk `l`: `Y K^e = y0 K^e + y1 (K^e 2^48)` is six 48x48-bit
//!   products, each split by IFMA into its low 52 bits and its high bits:
//!   **12 multiply-adds per 8 chunks**, into 6 accumulators (one per
//!   limb `j` of the powers and half: `y0 K^e` and `y1 (K^e 2^48)` have
//!   the same weights and share one; two dependent multiply-adds each per
//!   96 bytes, with 12 accumulators the fused CWC kernel ran out of
//!   registers for its round keys), with no carry handling: after a group
//!   of 64 chunks each accumulator lane is below 2^56 (2^57 after a double
//!   group).
//! * At the end of a group the accumulators are combined by weight
//!   (`2^0`, `2^48`, `2^96`; `2^148 = 2^21 mod p`), summed across the lanes
//!   and folded into `S`; at the end of the fused kernel's last group,
//!   `S K^c` and the length block go into lane 0 before the sums instead
//!   (one reduction fewer on the way to the tag).
//! * The last (partial) vector of an input is read with masked byte loads:
//!   bytes past the end are neither read nor accessed, and the zero padding
//!   of `A||0*` / `sigma||0*` comes from the masked-off lanes.
//! * [`Stream`] is the same arithmetic fed from registers, for the fused
//!   CWC kernel (`cwc/ctr_hash.rs`, which holds the `unsafe` of that loop):
//!   192 bytes of ciphertext at a time as three registers, double groups of
//!   128 chunks (one scalar step per 1536 bytes), the last group's powers
//!   from `K^c` for its `c` chunks. Its methods are safe functions compiled
//!   for the features a [`Powers`] proves.
//!
//! No branch or table index depends on K_h or on the data: the only
//! branches and indices are on the input length.
//!
//! # Why `unsafe`
//!
//! * The kernel is compiled with `#[target_feature(enable = ...)]`; calling
//!   it is `unsafe` because the CPU must have those features. [`Powers`] can
//!   only be built by [`Powers::new`], which returns `None` unless the CPU
//!   check passes: a `Powers` value is the proof, and [`Powers::absorb`] is
//!   the one safe entry point.
//! * The vector loads take raw pointers: every one reads 64 bytes inside a
//!   slice of at least 64 bytes, or is masked to bytes inside the input.
//!
//! # The benchmark that justified it
//!
//! In `docs/performance.md`, section "CWC"; the first measurement in
//! `docs/lab/2026-11-24-generic-avx512-kernels.md`.

#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m512i, __mmask64, _mm_cvtsi64_si128, _mm512_add_epi64, _mm512_loadu_si512,
    _mm512_madd52hi_epu64, _mm512_madd52lo_epu64, _mm512_maskz_loadu_epi8,
    _mm512_maskz_permutex2var_epi8, _mm512_reduce_add_epi64, _mm512_set_epi64,
    _mm512_setzero_si512, _mm512_slli_epi64, _mm512_zextsi128_si512,
};

use zeroize::Zeroize;

use super::CHUNK_BYTES;
use crate::arith::modular::{mul127, reduce127, reduce127_partial};

/// Chunks per group: one scalar reduction per group.
pub(crate) const GROUP_CHUNKS: usize = 64;

/// Bytes per group.
pub(crate) const GROUP_BYTES: usize = GROUP_CHUNKS * CHUNK_BYTES;

/// Chunks per vector (64-bit lanes of a 512-bit register).
const LANES: usize = 8;

/// Bytes per vector of chunks.
const VEC_BYTES: usize = LANES * CHUNK_BYTES;

/// Chunks of a double group of [`Stream`] (the powers go up to `K^128`).
pub(crate) const DOUBLE_CHUNKS: usize = 2 * GROUP_CHUNKS;

/// Entries of a limb array: the powers `K^128 .. K^1` and two vectors of
/// zeros, so a vector load at any offset a short group uses (up to 15
/// entries past its last chunk: [`Stream::absorb192_at`]) stays inside the
/// array and reads zero powers past its chunks.
const TABLE: usize = DOUBLE_CHUNKS + 2 * LANES;

/// The entry of `K^GROUP_CHUNKS`, where [`absorb_avx512`]'s groups start.
const SINGLE_AT: usize = DOUBLE_CHUNKS - GROUP_CHUNKS;

/// Bytes 0..6 of every 64-bit lane: the 48 bits of a limb.
const LIMB_BYTES: u64 = 0x3f3f_3f3f_3f3f_3f3f;

const MASK31: u128 = (1 << 31) - 1;

/// The key schedule of the IFMA path. A value of this type exists only on a
/// CPU with the features [`Powers::absorb`] needs (see [`Powers::new`]).
#[derive(Clone, Zeroize)]
#[repr(C, align(64))]
pub(crate) struct Powers {
    /// `k[j][i]`: limb j (48 bits, j = 0, 1, 2) of `K^(DOUBLE_CHUNKS - i)`;
    /// 0 for `i >= DOUBLE_CHUNKS`. A group of `g <= 64` chunks takes the
    /// entries from `DOUBLE_CHUNKS - g` (`K^g .. K^1`), a double group of
    /// [`Stream`] all 128.
    k: [[u64; TABLE]; 3],
    /// The same for `K^(DOUBLE_CHUNKS - i) 2^48 mod p`.
    k48: [[u64; TABLE]; 3],
    /// `K^g` for `g = 0..=DOUBLE_CHUNKS`, canonical (`S <- S K^g + G`).
    scalar: [u128; DOUBLE_CHUNKS + 1],
}

cpufeatures::new!(cpu_ifma, "avx512f", "avx512bw", "avx512ifma", "avx512vbmi");

/// Whether this CPU runs [`absorb_avx512`] (checked once, cached by `cpufeatures`).
fn cpu_has_ifma() -> bool {
    cpu_ifma::get()
}

/// `x` (canonical) as three 48-bit limbs.
fn limbs48(x: u128) -> [u64; 3] {
    const M: u128 = (1 << 48) - 1;
    [(x & M) as u64, ((x >> 48) & M) as u64, (x >> 96) as u64]
}

impl Powers {
    /// The powers of the canonical hash key `k`, or `None` when the CPU lacks
    /// AVX-512 F, BW, IFMA or VBMI (checked here, once per key).
    pub(crate) fn new(k: u128) -> Option<Self> {
        if !cpu_has_ifma() {
            return None;
        }
        let mut s = Self {
            k: [[0; TABLE]; 3],
            k48: [[0; TABLE]; 3],
            scalar: [0; DOUBLE_CHUNKS + 1],
        };
        let mut p = 1u128; // K^g
        s.scalar[0] = p;
        for g in 1..=DOUBLE_CHUNKS {
            p = mul127(p, k);
            s.scalar[g] = p;
            let i = DOUBLE_CHUNKS - g;
            let mut l = limbs48(p);
            let mut l48 = limbs48(mul127(p, 1 << 48));
            for j in 0..3 {
                s.k[j][i] = l[j];
                s.k48[j][i] = l48[j];
            }
            l.zeroize();
            l48.zeroize();
        }
        p.zeroize();
        Some(s)
    }

    /// Fold `data`, padded with zero bytes to a multiple of 12, into the
    /// running value `s` (`<= 2^127`); returns the new running value
    /// (canonical).
    pub(crate) fn absorb(&self, s: u128, data: &[u8]) -> u128 {
        // SAFETY: `Powers::new` is the only constructor and returns a value
        // only after `cpu_has_ifma()` found every feature `absorb_avx512` is
        // compiled with.
        unsafe { absorb_avx512(self, s, data) }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512ifma,avx512vbmi")]
fn absorb_avx512(pw: &Powers, s: u128, data: &[u8]) -> u128 {
    let gather = Gather::new();
    let mut s = reduce127(s);
    let (groups, rest) = data.as_chunks::<GROUP_BYTES>();
    for group in groups {
        // Read the powers from the key schedule in every group: without the
        // barrier the compiler hoists the 48 power vectors out of the loop
        // and copies them to the stack (a 3 KiB copy of key material per call).
        let pw = core::hint::black_box(pw);
        let mut acc = Acc::new();
        let (vecs, _) = group.as_chunks::<VEC_BYTES>();
        for (b, v) in vecs.iter().enumerate() {
            let (y0, y1) = gather.full(v);
            acc.mul_add(pw, SINGLE_AT + LANES * b, y0, y1);
        }
        s = step(pw, s, GROUP_CHUNKS, acc.value());
    }
    if !rest.is_empty() {
        // a short group of g chunks uses K^g .. K^1: entries 128 - g ..
        let g = rest.len().div_ceil(CHUNK_BYTES);
        let first = DOUBLE_CHUNKS - g;
        let mut acc = Acc::new();
        let (vecs, tail) = rest.as_chunks::<VEC_BYTES>();
        for (b, v) in vecs.iter().enumerate() {
            let (y0, y1) = gather.full(v);
            acc.mul_add(pw, first + LANES * b, y0, y1);
        }
        if !tail.is_empty() {
            let (y0, y1) = gather.partial(tail);
            acc.mul_add(pw, first + LANES * vecs.len(), y0, y1);
        }
        s = step(pw, s, g, acc.value());
    }
    s
}

/// CWC-HASH fed from registers instead of memory: the fused CWC kernel
/// (`cwc/ctr_hash.rs`) hands over each 192 bytes of sigma as the three
/// registers its last AES round produced, while its next rounds run. Whole
/// groups only: double groups of 128 chunks (1536 bytes: one scalar step
/// per double group, `S <- S K^128 + G`, half the per-group work of
/// [`absorb_avx512`]) or single groups of 64; the same running value as
/// [`absorb_avx512`] over the same bytes.
pub(crate) struct Stream<'a> {
    pw: &'a Powers,
    /// `vpermt2b` indices of `y0` and `y1` for the first 96 bytes of three
    /// registers (from the first two) and for the second (from the last
    /// two).
    even: (__m512i, __m512i),
    odd: (__m512i, __m512i),
    /// [`LIMB_BYTES`], opaque to the compiler so it stays a mask register
    /// (as a constant it becomes a `vpandq` after every permute).
    limb: __mmask64,
    acc: Acc,
    s: u128,
}

/// `vpermt2b` indices for 8 chunks at byte `offset` of two registers
/// (`offset + 96 <= 128`): byte `b < 6` of lane `l` takes byte
/// `offset + 12 l + first + 5 - b` (big-endian to little-endian).
const fn permutation_at(first: usize, offset: usize) -> [u64; LANES] {
    let mut lanes = [0u64; LANES];
    let mut l = 0;
    while l < LANES {
        let mut b = 0;
        while b < 6 {
            let index = offset + CHUNK_BYTES * l + first + 5 - b;
            lanes[l] |= (index as u64) << (8 * b);
            b += 1;
        }
        l += 1;
    }
    lanes
}

impl<'a> Stream<'a> {
    /// Continue from the running value `s` (`<= 2^127`).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn new(pw: &'a Powers, s: u128) -> Self {
        Self {
            pw,
            even: (vector(permutation_at(6, 0)), vector(permutation_at(0, 0))),
            odd: (vector(permutation_at(6, 32)), vector(permutation_at(0, 32))),
            limb: core::hint::black_box(LIMB_BYTES),
            acc: Acc::new(),
            s: reduce127(s),
        }
    }

    /// Absorb 192 bytes (16 chunks), vectors `FIRST` and `FIRST + 1` of a
    /// double group (`FIRST` is 0, 2, .., 14 in that order, then
    /// [`end_double`](Self::end_double)): `r[0]` holds bytes 0..64, `r[1]`
    /// 64..128, `r[2]` 128..192.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512ifma,avx512vbmi")]
    pub(crate) fn absorb192<const FIRST: usize>(&mut self, r: [__m512i; 3]) {
        const { assert!(FIRST.is_multiple_of(2) && FIRST + 2 <= DOUBLE_CHUNKS / LANES) };
        self.absorb192_at(r, LANES * FIRST);
    }

    /// Absorb 192 bytes (16 chunks) as in [`absorb192`](Self::absorb192),
    /// their powers from table entry `entry` (`entry <= 128`; the
    /// chunk at entry `e` is multiplied by `K^(128 - e)`, and by zero past
    /// entry 127): a group of `c < 128` chunks at the end of the input
    /// starts at entry `128 - c`, and its bytes past the input must be zero
    /// (they are padding or, with zero powers, ignored). Each vector's limbs
    /// are two `vpermt2b` from two of the registers.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512ifma,avx512vbmi")]
    pub(crate) fn absorb192_at(&mut self, r: [__m512i; 3], entry: usize) {
        // Read the powers from the key schedule here (as `absorb_avx512`
        // does per group): without the barrier the compiler hoists them out
        // of the caller's loop into a copy on the stack.
        let pw = core::hint::black_box(self.pw);
        self.half(pw, r[0], r[1], self.even, entry);
        self.half(pw, r[1], r[2], self.odd, entry + LANES);
    }

    /// The first half of [`absorb192_at`](Self::absorb192_at): the 8
    /// chunks of bytes 0..96 (`r[0]` and the first 32 bytes of `r[1]`),
    /// for a last step whose bytes 96..192 are past the input (zero, so
    /// their products would be zero: leaving them out is exact).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512ifma,avx512vbmi")]
    pub(crate) fn absorb96_at(&mut self, r: [__m512i; 3], entry: usize) {
        let pw = core::hint::black_box(self.pw);
        self.half(pw, r[0], r[1], self.even, entry);
    }

    /// 8 chunks from the registers `a`, `b` by the permutations `perm`,
    /// their powers from table entry `entry`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512ifma,avx512vbmi")]
    fn half(
        &mut self,
        pw: &Powers,
        a: __m512i,
        b: __m512i,
        perm: (__m512i, __m512i),
        entry: usize,
    ) {
        let y0 = _mm512_maskz_permutex2var_epi8(self.limb, a, perm.0, b);
        let y1 = _mm512_maskz_permutex2var_epi8(self.limb, a, perm.1, b);
        self.acc.mul_add(pw, entry, y0, y1);
    }

    /// End a double group (vectors 0 to 15): `S <- S K^128 + G`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512ifma,avx512vbmi")]
    pub(crate) fn end_double(&mut self) {
        self.end_group(DOUBLE_CHUNKS);
    }

    /// End a group of `chunks` (1 ..= 128) chunks: `S <- S K^chunks + G`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512ifma,avx512vbmi")]
    pub(crate) fn end_group(&mut self, chunks: usize) {
        self.s = step(self.pw, self.s, chunks, self.acc.value());
        self.acc = Acc::new();
    }

    /// End the input's last group, of `chunks` (1 ..= 128) chunks, and
    /// add the length block `y` (`< 2^100`): `R = S K^chunks + G + y`,
    /// canonical (one reduction fewer on the way to the tag than
    /// [`end_group`](Self::end_group) then `finish_value`).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512ifma,avx512vbmi")]
    pub(crate) fn end_last(self, chunks: usize, y: u128) -> u128 {
        // S K^chunks < p and y < 2^100: the sum fits in a u128; it is
        // ready long before the accumulators, and goes into their lanes
        // before the horizontal sums (`Acc::total`): after them, one
        // canonical reduction is all that is left before the tag.
        let before = mul127(self.s, self.pw.scalar[chunks]) + y;
        reduce127(self.acc.total(before))
    }

    /// The running value after the whole groups absorbed (canonical).
    pub(crate) fn finish(self) -> u128 {
        self.s
    }
}

/// `S K^g + G mod p`, canonical (`s` canonical, `group <= 2^127`).
#[inline]
fn step(pw: &Powers, s: u128, g: usize, group: u128) -> u128 {
    // mul127 < p and group <= 2^127: the sum fits in a u128
    reduce127(mul127(s, pw.scalar[g]) + group)
}

/// The byte permutations that turn 96 bytes (8 chunks) into the vectors of
/// their low (`y0`) and high (`y1`) 48-bit limbs.
struct Gather {
    y0: __m512i,
    y1: __m512i,
}

/// `vpermt2b` indices: byte `b < 6` of lane `l` takes byte
/// `12 l + first + 5 - b` of the 96 (big-endian to little-endian), from the
/// first load (bytes 0..64, indices 0..64) or, past byte 63, from the second
/// (bytes 32..96, indices 64..128).
const fn permutation(first: usize) -> [u64; LANES] {
    let mut lanes = [0u64; LANES];
    let mut l = 0;
    while l < LANES {
        let mut b = 0;
        while b < 6 {
            let x = CHUNK_BYTES * l + first + 5 - b;
            let index = if x < 64 { x } else { x - 32 + 64 };
            lanes[l] |= (index as u64) << (8 * b);
            b += 1;
        }
        l += 1;
    }
    lanes
}

const PERM_Y0: [u64; LANES] = permutation(6);
const PERM_Y1: [u64; LANES] = permutation(0);

#[target_feature(enable = "avx512f")]
fn vector(l: [u64; LANES]) -> __m512i {
    _mm512_set_epi64(
        l[7] as i64,
        l[6] as i64,
        l[5] as i64,
        l[4] as i64,
        l[3] as i64,
        l[2] as i64,
        l[1] as i64,
        l[0] as i64,
    )
}

impl Gather {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new() -> Self {
        Self {
            y0: vector(PERM_Y0),
            y1: vector(PERM_Y1),
        }
    }

    /// The limbs of two 64-byte halves (bytes 0..64 and 32..96 of 8 chunks).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn limbs(&self, lo: __m512i, hi: __m512i) -> (__m512i, __m512i) {
        (
            _mm512_maskz_permutex2var_epi8(LIMB_BYTES, lo, self.y0, hi),
            _mm512_maskz_permutex2var_epi8(LIMB_BYTES, lo, self.y1, hi),
        )
    }

    /// `(y0, y1)` of 8 whole chunks.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn full(&self, v: &[u8; VEC_BYTES]) -> (__m512i, __m512i) {
        let p = v.as_ptr();
        // SAFETY: `v` is 96 readable bytes; the loads read bytes 0..64 and
        // 32..96 of it (unaligned loads).
        let (lo, hi) = unsafe {
            (
                _mm512_loadu_si512(p.cast()),
                _mm512_loadu_si512(p.add(32).cast()),
            )
        };
        self.limbs(lo, hi)
    }

    /// `(y0, y1)` of `1..96` bytes: the chunks they start, zero padded.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn partial(&self, t: &[u8]) -> (__m512i, __m512i) {
        let n = t.len().min(VEC_BYTES - 1);
        let lo_mask: u64 = if n >= 64 { !0 } else { (1 << n) - 1 };
        let hi_mask: u64 = if n > 32 { (1 << (n - 32)) - 1 } else { 0 };
        let p = t.as_ptr();
        // SAFETY: a masked load reads only the bytes whose mask bit is set
        // (masked-off bytes are not accessed and cannot fault): bytes
        // 0..min(n, 64) of `t` for the first, bytes 32..n for the second
        // (whose address is formed with `wrapping_add`, never dereferenced
        // outside `t`). `n <= t.len()`.
        let (lo, hi) = unsafe {
            (
                _mm512_maskz_loadu_epi8(lo_mask, p.cast()),
                _mm512_maskz_loadu_epi8(hi_mask, p.wrapping_add(32).cast()),
            )
        };
        self.limbs(lo, hi)
    }
}

/// Lane sums of one group: `lo[j]`, `hi[j]` take the low / high 52 bits of
/// the products of the chunks' limbs with limb `j` of their powers (`y0`
/// with `K^e`, `y1` with `K^e 2^48`: one weight); weights `2^(48 j)` and
/// `2^(48 j + 52)`. Six accumulators, not one per product pair: the fused
/// CWC kernel needs the registers for its round keys.
struct Acc {
    lo: [__m512i; 3],
    hi: [__m512i; 3],
}

/// Eight entries `i..i + 8` of a limb array as a vector.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_powers(t: &[u64; TABLE], i: usize) -> __m512i {
    let w = &t[i..i + LANES];
    // SAFETY: `w` is 8 u64 = 64 readable bytes (unaligned load).
    unsafe { _mm512_loadu_si512(w.as_ptr().cast()) }
}

impl Acc {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new() -> Self {
        let z = _mm512_setzero_si512();
        Self {
            lo: [z; 3],
            hi: [z; 3],
        }
    }

    /// Add the 8 chunks `(y0, y1)` times the powers at entries `i..i + 8`:
    /// 12 multiply-adds.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn mul_add(&mut self, pw: &Powers, i: usize, y0: __m512i, y1: __m512i) {
        for j in 0..3 {
            let k = load_powers(&pw.k[j], i);
            let k48 = load_powers(&pw.k48[j], i);
            self.lo[j] = _mm512_madd52lo_epu64(self.lo[j], y0, k);
            self.hi[j] = _mm512_madd52hi_epu64(self.hi[j], y0, k);
            self.lo[j] = _mm512_madd52lo_epu64(self.lo[j], y1, k48);
            self.hi[j] = _mm512_madd52hi_epu64(self.hi[j], y1, k48);
        }
    }

    /// The group's value `G`, partially reduced (`<= 2^127`).
    ///
    /// Bounds (64 chunks, 8 per lane): a low half is `< 2^52`, a high half of
    /// a 48x48-bit product `< 2^44` and of a 48x31-bit one (limb 2 of a
    /// power) `< 2^27`; 16 of each per accumulator and lane (two products
    /// per chunk). So by weight, per lane: `2^0`: lo0 + hi2 2^21
    /// (`2^148 = 2^21 mod p`) `< 2^56 + 2^52`, `2^48`: lo1 + hi0 2^4 and
    /// `2^96`: lo2 + hi1 2^4, each `< 2^56 + 2^52`; over 8 lanes each sum is
    /// `< 2^60`: no lane or sum overflows 64 bits. A double group of
    /// [`Stream`] (128 chunks, 16 per lane) doubles each bound: `< 2^61`
    /// over 8 lanes, and the value combined in [`total`](Self::total) stays
    /// `< 2^128`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn value(&self) -> u128 {
        reduce127_partial(self.total(0))
    }

    /// `G + extra` congruent mod p, `< 2^128`, not reduced: `extra`'s
    /// limbs (48, 48 and 32 bits) are added to lane 0 of the three weights
    /// before the horizontal sums, which keeps them below `2^62` (bounds
    /// as in [`value`](Self::value)), and their sum below `2^128`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn total(&self, extra: u128) -> u128 {
        const M48: u128 = (1 << 48) - 1;
        let limb = |x: u128| _mm512_zextsi128_si512(_mm_cvtsi64_si128(x as u64 as i64));
        let (lo, hi) = (&self.lo, &self.hi);
        let e0 = _mm512_add_epi64(limb(extra & M48), _mm512_slli_epi64::<21>(hi[2]));
        let e48 = _mm512_add_epi64(limb((extra >> 48) & M48), _mm512_slli_epi64::<4>(hi[0]));
        let e96 = _mm512_add_epi64(limb(extra >> 96), _mm512_slli_epi64::<4>(hi[1]));
        let w0 = _mm512_reduce_add_epi64(_mm512_add_epi64(lo[0], e0)) as u64 as u128;
        let w48 = _mm512_reduce_add_epi64(_mm512_add_epi64(lo[1], e48)) as u64 as u128;
        let w96 = _mm512_reduce_add_epi64(_mm512_add_epi64(lo[2], e96)) as u64 as u128;
        // w96 2^96 = (w96 mod 2^31) 2^96 + (w96 >> 31) 2^127, 2^127 = 1 mod p
        w0 + (w48 << 48) + ((w96 & MASK31) << 96) + (w96 >> 31) // < 2^128
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::modular::{P127, to_block};

    /// The reference: [`crate::cwc::hash::horner_from`].
    use crate::cwc::hash::horner_from as horner;

    fn powers(k: u128) -> Option<Powers> {
        let p = Powers::new(reduce127(k));
        if p.is_none() {
            eprintln!("no AVX-512 IFMA on this CPU: IFMA tests skipped");
        }
        p
    }

    #[test]
    fn permutation_reads_each_limb() {
        // lane 5, y1: bytes 60..66 of the 96, the last two from the second load
        assert_eq!(
            PERM_Y1[5].to_le_bytes()[..6],
            [65 + 32, 64 + 32, 63, 62, 61, 60]
        );
        assert_eq!(PERM_Y0[0].to_le_bytes()[..6], [11, 10, 9, 8, 7, 6]);
        assert_eq!(
            PERM_Y0[7].to_le_bytes()[..6],
            [127, 126, 125, 124, 123, 122]
        );
    }

    #[test]
    fn every_length_and_offset() {
        let data: Vec<u8> = (0..2 * GROUP_BYTES + 200)
            .map(|i| (i as u8).wrapping_mul(151) ^ 0x3c)
            .collect();
        let k = 0x5a5a_0123_4567_89ab_cdef_1357_9bdf_0246u128;
        let Some(pw) = powers(k) else { return };
        for len in 0..=data.len() {
            for s in [0, 1, P127 - 1, 1 << 127] {
                assert_eq!(
                    pw.absorb(s, &data[..len]),
                    horner(k, s, &data[..len]),
                    "len {len} s {s:x}"
                );
            }
        }
        // a slice that is not at the start of its allocation
        assert_eq!(pw.absorb(7, &data[5..900]), horner(k, 7, &data[5..900]));
    }

    #[test]
    fn extreme_values() {
        let ones = vec![0xffu8; 3 * GROUP_BYTES + 11];
        for k in [0, 1, 2, P127 - 1, P127 - 2, 1 << 126, P127, (1 << 96) - 1] {
            let Some(pw) = powers(k) else { return };
            for len in [
                0,
                1,
                12,
                95,
                96,
                97,
                GROUP_BYTES,
                GROUP_BYTES + 1,
                ones.len(),
            ] {
                assert_eq!(
                    pw.absorb(P127 - 1, &ones[..len]),
                    horner(reduce127(k), P127 - 1, &ones[..len]),
                    "k {k:x} len {len}"
                );
            }
            // and through the hash, against the portable path
            let h = super::super::CwcHash::from_key_block(&to_block(k));
            assert!(h.uses_ifma());
            assert_eq!(
                h.hash(&ones[..100], &ones).unwrap(),
                h.clone().portable().hash(&ones[..100], &ones).unwrap()
            );
        }
    }
}
