//! The VAES-512 parts that only this tier has: the GF(2^128) helpers on
//! four lanes the wide-block kernels share.

use core::arch::x86_64::*;

/// `d x^k` per 128-bit lane (BE, lanes as 128-bit integers), `k < 64`: a
/// 128-bit shift by k and the k carried-out bits times `poly` =
/// x^7+x^2+x+1 folded back in.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
pub(super) fn times_x(d: __m512i, k: usize, poly: __m512i) -> __m512i {
    let (kl, kr) = (
        _mm_cvtsi64_si128(k as i64),
        _mm_cvtsi64_si128(64 - k as i64),
    );
    let up = _mm512_bslli_epi128::<8>(d); // lo qword moved up, 0 below
    let shifted = _mm512_or_si512(_mm512_sll_epi64(d, kl), _mm512_srl_epi64(up, kr));
    let top = _mm512_srl_epi64(_mm512_bsrli_epi128::<8>(d), kr); // hi >> (64 - k)
    _mm512_xor_si512(shifted, _mm512_clmulepi64_epi128::<0x00>(top, poly))
}

/// `d x^(E + l)` in lane `l` (0..=3), `E + 3 < 64`, as [`times_x`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
pub(super) fn times_x_lanes<const E: i64>(d: __m512i, poly: __m512i) -> __m512i {
    let kl = _mm512_add_epi64(
        _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0),
        _mm512_set1_epi64(E),
    );
    let kr = _mm512_sub_epi64(_mm512_set1_epi64(64), kl);
    let up = _mm512_bslli_epi128::<8>(d);
    let shifted = _mm512_or_si512(_mm512_sllv_epi64(d, kl), _mm512_srlv_epi64(up, kr));
    let top = _mm512_srlv_epi64(_mm512_bsrli_epi128::<8>(d), kr);
    _mm512_xor_si512(shifted, _mm512_clmulepi64_epi128::<0x00>(top, poly))
}

/// The two parts of `v x^(8A)` per lane (128-bit values, `A` <= 4
/// bytes): `v` shifted up by `A` bytes, and the `A` bytes shifted out (at
/// most 32 bits) times `x^7 + x^2 + x + 1`, to be xored together (with
/// whatever else in the same ternary op). Byte shifts and the carry-less
/// multiply: port-5 work.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
pub(super) fn times_x8_parts<const A: i32, const R: i32>(
    v: __m512i,
    poly: __m512i,
) -> (__m512i, __m512i) {
    let shifted = _mm512_bslli_epi128::<A>(v);
    let out = _mm512_bsrli_epi128::<R>(v);
    (shifted, _mm512_clmulepi64_epi128::<0x00>(out, poly))
}

/// `v x^(8A)` per lane (see [`times_x8_parts`]; `R = 16 - A`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
pub(super) fn times_x8<const A: i32, const R: i32>(v: __m512i, poly: __m512i) -> __m512i {
    let (s, c) = times_x8_parts::<A, R>(v, poly);
    _mm512_xor_si512(s, c)
}
