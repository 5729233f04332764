use core::arch::x86_64::{
    __m512i, _mm_storeu_si128, _mm256_storeu_si256, _mm512_add_epi64, _mm512_castsi512_si256,
    _mm512_cmplt_epu64_mask, _mm512_extracti32x4_epi32, _mm512_extracti64x4_epi64,
    _mm512_loadu_si512, _mm512_mask_add_epi64, _mm512_mask_storeu_epi64, _mm512_mask_sub_epi64,
    _mm512_maskz_loadu_epi64, _mm512_permutex2var_epi8, _mm512_set1_epi64, _mm512_setzero_si512,
    _mm512_storeu_si512, _mm512_sub_epi64,
};

use super::{PairSteps, TILE_LANES};
use crate::arith::gf128::Block;

/// Byte indices of `vpermt2b` over two vectors of four big-endian
/// blocks (blocks 0..4 in the first, 4..8 in the second): 64-bit lane
/// k receives block k's low half (`LOW`) or high half, as a
/// little-endian integer.
const fn gather_idx(low: bool) -> [u8; 64] {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        let (k, m) = (i / 8, i % 8);
        let byte = if low { 15 - m } else { 7 - m };
        t[i] = (64 * (k / 4) + 16 * (k % 4) + byte) as u8;
        i += 1;
    }
    t
}

/// Byte indices of `vpermt2b` over (high halves, low halves) that
/// rebuild big-endian blocks `4 * part .. 4 * part + 4`.
const fn scatter_idx(part: usize) -> [u8; 64] {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        let (k, b) = (4 * part + i / 16, i % 16);
        t[i] = if b < 8 {
            (8 * k + 7 - b) as u8
        } else {
            (64 + 8 * k + 15 - b) as u8
        };
        i += 1;
    }
    t
}

static GATHER_LO: [u8; 64] = gather_idx(true);
static GATHER_HI: [u8; 64] = gather_idx(false);
static SCATTER_0: [u8; 64] = scatter_idx(0);
static SCATTER_1: [u8; 64] = scatter_idx(1);

/// The four permutations and all-ones.
#[derive(Clone, Copy)]
struct Consts {
    lo: __m512i,
    hi: __m512i,
    out0: __m512i,
    out1: __m512i,
    m1: __m512i,
}

/// Eight 128-bit values as (high halves, low halves), value k in 64-bit
/// lane k.
#[derive(Clone, Copy)]
struct Soa {
    hi: __m512i,
    lo: __m512i,
}

#[inline]
#[target_feature(enable = "avx512f")]
fn load_idx(t: &[u8; 64]) -> __m512i {
    // SAFETY: `t` is 64 bytes.
    unsafe { _mm512_loadu_si512(t.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx512f")]
fn soa(v: &[u128; 8]) -> Soa {
    let hi = v.map(|x| (x >> 64) as u64);
    let lo = v.map(|x| x as u64);
    // SAFETY: both arrays are 64 bytes.
    unsafe {
        Soa {
            hi: _mm512_loadu_si512(hi.as_ptr().cast()),
            lo: _mm512_loadu_si512(lo.as_ptr().cast()),
        }
    }
}

/// `a + b` (`ADD`) or `a - b` mod 2^128 in each of the eight lanes:
/// the carry (borrow) of the low halves is a compare mask on the same
/// lanes of the high halves.
#[inline]
#[target_feature(enable = "avx512f")]
fn add_soa<const ADD: bool>(a: Soa, b: Soa, m1: __m512i) -> Soa {
    if ADD {
        let lo = _mm512_add_epi64(a.lo, b.lo);
        let carry = _mm512_cmplt_epu64_mask(lo, b.lo);
        let hi = _mm512_add_epi64(a.hi, b.hi);
        Soa {
            hi: _mm512_mask_sub_epi64(hi, carry, hi, m1),
            lo,
        }
    } else {
        let lo = _mm512_sub_epi64(a.lo, b.lo);
        let borrow = _mm512_cmplt_epu64_mask(a.lo, b.lo);
        let hi = _mm512_sub_epi64(a.hi, b.hi);
        Soa {
            hi: _mm512_mask_add_epi64(hi, borrow, hi, m1),
            lo,
        }
    }
}

/// Eight blocks (`v0`: blocks 0..4, `v1`: 4..8) plus or minus `off`.
#[inline]
#[target_feature(enable = "avx512f,avx512vbmi")]
fn eight<const ADD: bool>(v0: __m512i, v1: __m512i, off: Soa, c: Consts) -> (__m512i, __m512i) {
    let x = Soa {
        hi: _mm512_permutex2var_epi8(v0, c.hi, v1),
        lo: _mm512_permutex2var_epi8(v0, c.lo, v1),
    };
    let z = add_soa::<ADD>(x, off, c.m1);
    (
        _mm512_permutex2var_epi8(z.hi, c.out0, z.lo),
        _mm512_permutex2var_epi8(z.hi, c.out1, z.lo),
    )
}

/// The 64-bit-lane mask of the first `blocks` (at most 4) blocks of a vector.
#[inline(always)]
fn lanes(blocks: usize) -> u8 {
    ((1u16 << (2 * blocks.min(4))) - 1) as u8
}

/// The lanes `dst` holds at a stride of `stride` blocks.
#[inline(always)]
fn strided_lanes(len: usize, stride: usize) -> usize {
    if len == 0 {
        0
    } else {
        (len - 1) / stride.max(1) + 1
    }
}

/// Store the four blocks of `v` to `dst[0]`, `dst[stride]`, ... (`k <= 4`
/// of them; `dst.len() > (k - 1) * stride` is checked by the caller).
#[inline]
#[target_feature(enable = "avx512f")]
fn scatter4(v: __m512i, dst: &mut [Block], stride: usize, k: usize) {
    let lanes = [
        _mm512_extracti32x4_epi32::<0>(v),
        _mm512_extracti32x4_epi32::<1>(v),
        _mm512_extracti32x4_epi32::<2>(v),
        _mm512_extracti32x4_epi32::<3>(v),
    ];
    for (l, x) in lanes.iter().enumerate().take(k) {
        if let Some(d) = dst.get_mut(l * stride) {
            // SAFETY: `d` is one 16-byte block: unaligned 128-bit store.
            unsafe { _mm_storeu_si128(d.as_mut_ptr().cast(), *x) };
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) fn add_scatter_avx512(
    i: u128,
    first: u128,
    z: &[Block],
    dst: &mut [Block],
    stride: usize,
) {
    let n = z.len().min(strided_lanes(dst.len(), stride));
    let z = &z[..n];
    let c = Consts {
        lo: load_idx(&GATHER_LO),
        hi: load_idx(&GATHER_HI),
        out0: load_idx(&SCATTER_0),
        out1: load_idx(&SCATTER_1),
        m1: _mm512_set1_epi64(-1),
    };
    // i * (first + l) for lanes l .. l + 8, advancing by 8 i.
    let mut v = [0u128; 8];
    let mut acc = first.wrapping_mul(i);
    for o in v.iter_mut() {
        *o = acc;
        acc = acc.wrapping_add(i);
    }
    let mut off = soa(&v);
    let step = soa(&[i.wrapping_mul(8); 8]);
    v.fill(0);
    core::hint::black_box(&v);
    acc = 0;
    core::hint::black_box(&acc);
    for (g, zs) in z.chunks(8).enumerate() {
        let (z0, z1) = zs.split_at(zs.len().min(4));
        let (a, b) = if let Ok(full) = <&[Block; 8]>::try_from(zs) {
            // Plain loads: the cipher has just stored these blocks, and
            // only unmasked loads are forwarded from the store buffer.
            let p = full.as_ptr().cast::<__m512i>();
            // SAFETY: `full` is 8 blocks: two 64-byte vectors.
            unsafe { (_mm512_loadu_si512(p), _mm512_loadu_si512(p.add(1))) }
        } else {
            let (m0, m1) = (lanes(z0.len()), lanes(z1.len()));
            // SAFETY: each mask covers exactly the blocks of its slice;
            // masked-off lanes are not read.
            unsafe {
                (
                    _mm512_maskz_loadu_epi64(m0, z0.as_ptr().cast()),
                    _mm512_maskz_loadu_epi64(m1, z1.as_ptr().cast()),
                )
            }
        };
        let (y0, y1) = eight::<true>(a, b, off, c);
        let len = dst.len();
        let base = (8 * g * stride).min(len);
        scatter4(y0, &mut dst[base..], stride, z0.len());
        let base = ((8 * g + 4) * stride).min(len);
        scatter4(y1, &mut dst[base..], stride, z1.len());
        off = add_soa::<true>(off, step, c.m1);
    }
}

/// Byte indices of `vpermt2b` over (high halves, low halves) that
/// build big-endian blocks of the elements `order`.
const fn pair_idx(order: [usize; 4]) -> [u8; 64] {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        let (k, b) = (order[i / 16], i % 16);
        t[i] = if b < 8 {
            (8 * k + 7 - b) as u8
        } else {
            (64 + 8 * k + 15 - b) as u8
        };
        i += 1;
    }
    t
}

/// Lanes 0 and 1 of a pair of rounds: (i, 0), (i + 1, 0), (i, 1), (i + 1, 1).
static PAIR_01: [u8; 64] = pair_idx([0, 4, 1, 5]);
/// Lanes 2 and 3.
static PAIR_23: [u8; 64] = pair_idx([2, 6, 3, 7]);

#[inline]
#[target_feature(enable = "avx512f")]
fn load_soa(row: &[[u64; 8]; 2]) -> Soa {
    // SAFETY: two arrays of 8 u64: 64 bytes each.
    unsafe {
        Soa {
            hi: _mm512_loadu_si512(row[0].as_ptr().cast()),
            lo: _mm512_loadu_si512(row[1].as_ptr().cast()),
        }
    }
}

#[inline]
#[target_feature(enable = "avx512f")]
fn store_soa(row: &mut [[u64; 8]; 2], v: Soa) {
    // SAFETY: two arrays of 8 u64: 64 bytes each.
    unsafe {
        _mm512_storeu_si512(row[0].as_mut_ptr().cast(), v.hi);
        _mm512_storeu_si512(row[1].as_mut_ptr().cast(), v.lo);
    }
}

/// Store the 32-byte halves of `v` (lanes l and l + 1 of two rounds) to
/// `dst[l * stride ..][..2]` and `dst[(l + 1) * stride ..][..2]`, for
/// lanes below `n` that `dst` holds.
#[inline]
#[target_feature(enable = "avx512f")]
fn store_pairs(v: __m512i, dst: &mut [Block], l: usize, n: usize, stride: usize) {
    let halves = [_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v)];
    for (m, h) in halves.into_iter().enumerate() {
        let range = (l + m)
            .checked_mul(stride)
            .and_then(|at| Some(at..at.checked_add(2)?));
        let d = range
            .and_then(|r| dst.get_mut(r))
            .map(<&mut [Block; 2]>::try_from);
        if let (true, Some(Ok(d))) = (l + m < n, d) {
            // SAFETY: `d` is two blocks: one unaligned 256-bit store.
            unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast(), h) };
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) fn add_pairs_avx512(
    z0: &[Block],
    z1: &[Block],
    steps: &mut PairSteps,
    dst: &mut [Block],
    stride: usize,
) {
    let n = z0.len().min(z1.len()).min(TILE_LANES);
    let c = Consts {
        lo: load_idx(&GATHER_LO),
        hi: load_idx(&GATHER_HI),
        out0: load_idx(&PAIR_01),
        out1: load_idx(&PAIR_23),
        m1: _mm512_set1_epi64(-1),
    };
    let start = load_soa(&steps.off);
    let quad = load_soa(&steps.quad);
    let mut off = start;
    let (a4, a_rest) = z0[..n].as_chunks::<4>();
    let (b4, b_rest) = z1[..n].as_chunks::<4>();
    // Every lane's two blocks inside `dst`: unchecked stores.
    // (An overflow is `None`, which must mean "not inside": `None <= Some(_)`
    // would be true.)
    let inside = n == 0
        || (n - 1)
            .checked_mul(stride)
            .and_then(|e| e.checked_add(2))
            .is_some_and(|end| end <= dst.len());
    let base = dst.as_mut_ptr();
    for (q, (a, b)) in a4.iter().zip(b4).enumerate() {
        // SAFETY: `a` and `b` are 4 blocks (64 bytes) each: plain loads
        // (the cipher has just stored them).
        let (va, vb) = unsafe {
            (
                _mm512_loadu_si512(a.as_ptr().cast()),
                _mm512_loadu_si512(b.as_ptr().cast()),
            )
        };
        let (p01, p23) = eight::<true>(va, vb, off, c);
        if inside {
            // SAFETY: lanes 4 q .. 4 q + 4 are below `n`, and `inside`
            // checked that `dst` holds two blocks at `l * stride` for
            // every lane `l < n`: four 32-byte stores inside `dst`.
            unsafe {
                let d = base.add(4 * q * stride);
                _mm256_storeu_si256(d.cast(), _mm512_castsi512_si256(p01));
                _mm256_storeu_si256(d.add(stride).cast(), _mm512_extracti64x4_epi64::<1>(p01));
                _mm256_storeu_si256(d.add(2 * stride).cast(), _mm512_castsi512_si256(p23));
                _mm256_storeu_si256(
                    d.add(3 * stride).cast(),
                    _mm512_extracti64x4_epi64::<1>(p23),
                );
            }
        } else {
            store_pairs(p01, dst, 4 * q, n, stride);
            store_pairs(p23, dst, 4 * q + 2, n, stride);
        }
        off = add_soa::<true>(off, quad, c.m1);
    }
    let k = a_rest.len().min(b_rest.len());
    if k > 0 {
        let m = lanes(k);
        // SAFETY: the mask covers the `k < 4` blocks of `a_rest` and
        // `b_rest` only; masked-off lanes are not read.
        let (va, vb) = unsafe {
            (
                _mm512_maskz_loadu_epi64(m, a_rest.as_ptr().cast()),
                _mm512_maskz_loadu_epi64(m, b_rest.as_ptr().cast()),
            )
        };
        let (p01, p23) = eight::<true>(va, vb, off, c);
        let l = 4 * a4.len();
        store_pairs(p01, dst, l, n, stride);
        store_pairs(p23, dst, l + 2, n, stride);
    }
    // Rounds i + 2, i + 3: `off` + 2 r0^(s), `quad` + 8.
    store_soa(
        &mut steps.off,
        add_soa::<true>(start, load_soa(&steps.next), c.m1),
    );
    let eight_ = Soa {
        hi: _mm512_setzero_si512(),
        lo: _mm512_set1_epi64(8),
    };
    store_soa(&mut steps.quad, add_soa::<true>(quad, eight_, c.m1));
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) fn apply_avx512<const ADD: bool>(r0: u128, first: u128, x: &[Block], out: &mut [Block]) {
    let n = x.len().min(out.len());
    let (x, out) = (&x[..n], &mut out[..n]);
    let c = Consts {
        lo: load_idx(&GATHER_LO),
        hi: load_idx(&GATHER_HI),
        out0: load_idx(&SCATTER_0),
        out1: load_idx(&SCATTER_1),
        m1: _mm512_set1_epi64(-1),
    };
    // Offsets of blocks j .. j + 16: two groups of eight.
    let mut v = [0u128; 16];
    let mut acc = first.wrapping_mul(r0);
    for o in v.iter_mut() {
        *o = acc;
        acc = acc.wrapping_add(r0);
    }
    let (v0, v1) = v.split_at(8);
    let mut off0 = soa(v0.try_into().unwrap_or(&[0; 8]));
    let mut off1 = soa(v1.try_into().unwrap_or(&[0; 8]));
    let step = r0.wrapping_mul(16);
    let step = soa(&[step; 8]);
    v.fill(0);
    core::hint::black_box(&v);
    acc = 0;
    core::hint::black_box(&acc);

    let (x16, x_rest) = x.as_chunks::<16>();
    let (o16, o_rest) = out.as_chunks_mut::<16>();
    for (xs, os) in x16.iter().zip(o16.iter_mut()) {
        let src = xs.as_ptr().cast::<__m512i>();
        let dst = os.as_mut_ptr().cast::<__m512i>();
        // SAFETY: `xs` and `os` are 16 blocks (256 bytes) each: the four
        // unaligned 64-byte loads and stores at offsets 0, 64, 128 and
        // 192 stay inside them.
        unsafe {
            let (a0, a1) = eight::<ADD>(
                _mm512_loadu_si512(src),
                _mm512_loadu_si512(src.add(1)),
                off0,
                c,
            );
            let (b0, b1) = eight::<ADD>(
                _mm512_loadu_si512(src.add(2)),
                _mm512_loadu_si512(src.add(3)),
                off1,
                c,
            );
            _mm512_storeu_si512(dst, a0);
            _mm512_storeu_si512(dst.add(1), a1);
            _mm512_storeu_si512(dst.add(2), b0);
            _mm512_storeu_si512(dst.add(3), b1);
        }
        off0 = add_soa::<true>(off0, step, c.m1);
        off1 = add_soa::<true>(off1, step, c.m1);
    }
    // The last 0 .. 15 blocks: up to two groups of eight, masked.
    for (g, off) in [off0, off1].into_iter().enumerate() {
        let lo = (8 * g).min(x_rest.len());
        let hi = (8 * g + 8).min(x_rest.len());
        let (xs, os) = (&x_rest[lo..hi], &mut o_rest[lo..hi]);
        if xs.is_empty() {
            break;
        }
        let (m0, m1) = (lanes(xs.len()), lanes(xs.len().saturating_sub(4)));
        let (xs0, xs1) = xs.split_at(xs.len().min(4));
        let (os0, os1) = os.split_at_mut(xs.len().min(4));
        // SAFETY: each mask covers exactly the blocks of the slice it
        // goes with (`xs0`/`os0`: the first up to four, `xs1`/`os1`: the
        // rest); masked-off lanes are neither read nor written.
        unsafe {
            let a = _mm512_maskz_loadu_epi64(m0, xs0.as_ptr().cast());
            let b = _mm512_maskz_loadu_epi64(m1, xs1.as_ptr().cast());
            let (y0, y1) = eight::<ADD>(a, b, off, c);
            _mm512_mask_storeu_epi64(os0.as_mut_ptr().cast(), m0, y0);
            _mm512_mask_storeu_epi64(os1.as_mut_ptr().cast(), m1, y1);
        }
    }
}
