use core::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm_loadu_si128, _mm_storeu_si128, _mm_xor_si128,
    _mm256_loadu_si256, _mm512_castsi128_si512, _mm512_castsi256_si512, _mm512_inserti32x4,
    _mm512_inserti64x4, _mm512_loadu_si512, _mm512_setzero_si512, _mm512_shuffle_i64x2,
    _mm512_storeu_si512, _mm512_xor_si512,
};

use super::{Rows, TILE_LANES};
use crate::arith::gf128::Block;

/// Four blocks as one vector.
#[inline]
#[target_feature(enable = "avx512f")]
fn load4(b: &[Block; 4]) -> __m512i {
    // SAFETY: `b` is 64 bytes: one unaligned 512-bit load.
    unsafe { _mm512_loadu_si512(b.as_ptr().cast()) }
}

/// Store one vector as four blocks.
#[inline]
#[target_feature(enable = "avx512f")]
fn store4(b: &mut [Block; 4], v: __m512i) {
    // SAFETY: `b` is 64 bytes: one unaligned 512-bit store.
    unsafe { _mm512_storeu_si512(b.as_mut_ptr().cast(), v) }
}

/// Transpose a 4x4 matrix of 128-bit elements (`v[a]` element `b` ->
/// result `a'`=`b`, element `a`): two rounds of four `vshufi64x2`.
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose4(v: [__m512i; 4]) -> [__m512i; 4] {
    // [v0.0 v0.1 v1.0 v1.1], [v0.2 v0.3 v1.2 v1.3], same for v2, v3
    let t0 = _mm512_shuffle_i64x2::<0x44>(v[0], v[1]);
    let t1 = _mm512_shuffle_i64x2::<0xee>(v[0], v[1]);
    let t2 = _mm512_shuffle_i64x2::<0x44>(v[2], v[3]);
    let t3 = _mm512_shuffle_i64x2::<0xee>(v[2], v[3]);
    [
        _mm512_shuffle_i64x2::<0x88>(t0, t2),
        _mm512_shuffle_i64x2::<0xdd>(t0, t2),
        _mm512_shuffle_i64x2::<0x88>(t1, t3),
        _mm512_shuffle_i64x2::<0xdd>(t1, t3),
    ]
}

#[target_feature(enable = "avx512f")]
pub(super) fn transpose_in_avx512(
    runs: &[Block],
    stride: usize,
    lanes: usize,
    first: Option<&[Block; 4]>,
    last: Option<&[Block; 4]>,
    rows: &mut Rows,
    sums: &mut [Block; TILE_LANES],
) {
    let lanes = lanes.min(TILE_LANES);
    let skip = usize::from(first.is_some());
    let run = |l: usize| -> __m512i {
        let edge = match (l, first, last) {
            (0, Some(f), _) => Some(f),
            (_, _, Some(e)) if l + 1 == lanes => Some(e),
            _ => None,
        };
        let at = l.wrapping_sub(skip).wrapping_mul(stride);
        let from_runs = runs
            .get(at..at.wrapping_add(4))
            .map(<&[Block; 4]>::try_from);
        match (edge, from_runs) {
            (Some(e), _) => load4(e),
            (None, Some(Ok(r))) if l < lanes => load4(r),
            _ => _mm512_setzero_si512(),
        }
    };
    let [r0, r1, r2, r3] = rows;
    let mut rows4 = [
        r0.as_chunks_mut::<4>().0,
        r1.as_chunks_mut::<4>().0,
        r2.as_chunks_mut::<4>().0,
        r3.as_chunks_mut::<4>().0,
    ];
    // Lanes `skip .. plain` are runs of `runs` (not an edge).
    let held = match runs.len().checked_sub(4) {
        Some(k) => k / stride.max(1) + 1 + skip,
        None => 0,
    };
    let plain = (lanes - usize::from(last.is_some())).min(held);
    let (s4, _) = sums.as_chunks_mut::<4>();
    for (q, sum) in s4.iter_mut().enumerate().take(lanes.div_ceil(4)) {
        let l = 4 * q;
        let v = if l >= skip && l + 4 <= plain {
            // Halves of two lanes' runs in one vector straight from
            // memory (a blend, not a shuffle); one shuffle stage left.
            // SAFETY: lane l + 3 < `plain` <= `held`: `runs` holds its
            // run, at (l + 3 - skip) * stride; the pointer stays inside.
            let at = unsafe { runs.as_ptr().add((l - skip) * stride) };
            let half = |lane: usize, h: usize| -> __m256i {
                // SAFETY: lanes l .. l + 4 are below `plain`, so their
                // four blocks at `lane * stride` from `at` are in `runs`.
                unsafe { _mm256_loadu_si256(at.add(lane * stride + 2 * h).cast()) }
            };
            let pair = |a: usize, h: usize| {
                _mm512_inserti64x4::<1>(_mm512_castsi256_si512(half(a, h)), half(a + 1, h))
            };
            let (t0, t1, t2, t3) = (pair(0, 0), pair(0, 1), pair(2, 0), pair(2, 1));
            [
                _mm512_shuffle_i64x2::<0x88>(t0, t2),
                _mm512_shuffle_i64x2::<0xdd>(t0, t2),
                _mm512_shuffle_i64x2::<0x88>(t1, t3),
                _mm512_shuffle_i64x2::<0xdd>(t1, t3),
            ]
        } else {
            transpose4([run(l), run(l + 1), run(l + 2), run(l + 3)])
        };
        let mut acc = load4(sum);
        for (row, t) in rows4.iter_mut().zip(v) {
            if let Some(r) = row.get_mut(q) {
                store4(r, t);
            }
            acc = _mm512_xor_si512(acc, t);
        }
        store4(sum, acc);
    }
}

#[target_feature(enable = "avx512f")]
pub(super) fn xor_blocks_avx512(a: &[Block], b: &[Block], out: &mut [Block]) {
    let n = a.len().min(b.len()).min(out.len());
    let (a4, a_rest) = a[..n].as_chunks::<4>();
    let (b4, b_rest) = b[..n].as_chunks::<4>();
    let (o4, o_rest) = out[..n].as_chunks_mut::<4>();
    for ((a, b), o) in a4.iter().zip(b4).zip(o4.iter_mut()) {
        store4(o, _mm512_xor_si512(load4(a), load4(b)));
    }
    for ((a, b), o) in a_rest.iter().zip(b_rest).zip(o_rest.iter_mut()) {
        // SAFETY: `o` is one 16-byte block: unaligned 128-bit store.
        unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), _mm_xor_si128(load1(a), load1(b))) };
    }
}

/// One block as a 128-bit vector.
#[inline]
#[target_feature(enable = "avx512f")]
fn load1(b: &Block) -> __m128i {
    // SAFETY: `b` is 16 bytes.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn gather_xor_sum_avx512(
    src: &[Block],
    stride: usize,
    prev: &[Block],
    blocks: &mut [Block],
    sums: &mut [Block],
) {
    let stride = stride.max(1);
    let have = if src.is_empty() {
        0
    } else {
        (src.len() - 1) / stride + 1
    };
    let n = prev.len().min(blocks.len()).min(sums.len()).min(have);
    let (p4, p_rest) = prev[..n].as_chunks::<4>();
    let (b4, b_rest) = blocks[..n].as_chunks_mut::<4>();
    let (s4, s_rest) = sums[..n].as_chunks_mut::<4>();
    for (c, ((p, b), sm)) in p4.iter().zip(b4.iter_mut()).zip(s4.iter_mut()).enumerate() {
        let l = 4 * c;
        // Lanes l .. l + 4 < n: all four source blocks exist.
        let (Some(x0), Some(x1), Some(x2), Some(x3)) = (
            src.get(l * stride),
            src.get((l + 1) * stride),
            src.get((l + 2) * stride),
            src.get((l + 3) * stride),
        ) else {
            continue;
        };
        let x = _mm512_castsi128_si512(load1(x0));
        let x = _mm512_inserti32x4::<1>(x, load1(x1));
        let x = _mm512_inserti32x4::<2>(x, load1(x2));
        let x = _mm512_inserti32x4::<3>(x, load1(x3));
        // SAFETY: `p`, `b` and `sm` are 4 blocks (64 bytes) each.
        unsafe {
            let pv = _mm512_loadu_si512(p.as_ptr().cast());
            _mm512_storeu_si512(b.as_mut_ptr().cast(), _mm512_xor_si512(pv, x));
            let sv = _mm512_loadu_si512(sm.as_ptr().cast());
            _mm512_storeu_si512(sm.as_mut_ptr().cast(), _mm512_xor_si512(sv, x));
        }
    }
    let done = 4 * p4.len();
    let rest = p_rest.iter().zip(b_rest.iter_mut()).zip(s_rest.iter_mut());
    for (j, ((p, b), sm)) in rest.enumerate() {
        let Some(x) = src.get((done + j) * stride) else {
            break;
        };
        let x = load1(x);
        // SAFETY: `b` and `sm` are one 16-byte block each.
        unsafe {
            _mm_storeu_si128(b.as_mut_ptr().cast(), _mm_xor_si128(load1(p), x));
            _mm_storeu_si128(sm.as_mut_ptr().cast(), _mm_xor_si128(load1(sm), x));
        }
    }
}
