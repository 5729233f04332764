//! The VAES-512 parts that only this tier has: OCB 1.0's mid-size
//! messages in one function (`ocb_mid`), and the GF(2^128) helpers on four
//! lanes the wide-block kernels share.

use core::arch::x86_64::*;

use super::kernel::batch;
use super::lane::{Lane, Zmm};
use super::schedule::{load, store};
use super::{SUM_IN, SUM_OUT};
use crate::arith::gf128::Block;

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

/// OCB 1.0's blocks of a mid-size message in one function: as
/// [`super::xmm::whiten_sum_short`] for `n` blocks, `4 (A + B - 1) < n <=
/// 4 (A + B)`, all in the first Gray-code group (`Z[i] = gamma_i L xor R`
/// for `i = 1 ..= n <= 63`, from `low`, the table's entries `1..`): a
/// batch of `A` registers, then one of `B` (the last register masked),
/// `Y[m] = E_K(extra)` under the encryption keys `enc` on an xmm register
/// beside them; the keys broadcast from `keys` in place (no job, no
/// dispatch, no group walk). Returns the sum of the `M[i]` (the inputs,
/// or with `DEC` the outputs).
///
/// # Safety
/// The CPU must have AVX-512F, AVX-512BW and VAES; `src` and `dst` valid
/// for `n` blocks (equal or disjoint), `low` for `4 (A + B)`.
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn ocb_mid<const NR: usize, const DEC: bool, const A: usize, const B: usize>(
    keys: &[Block; 15],
    enc: &[Block; 15],
    src: *const Block,
    dst: *mut Block,
    n: usize,
    low: *const Block,
    r: &Block,
    extra: &mut Block,
) -> Block {
    // SAFETY: this function has the VAES-512 tier's features (those of the
    // lane operations); pointer accesses are justified where they are.
    unsafe {
        let mut k = [Zmm::zero(); 15];
        for (kr, b) in k.iter_mut().zip(keys.iter()).take(NR + 1) {
            *kr = Zmm::broadcast(load(b));
        }
        let rb = Zmm::broadcast(load(r));
        let last = n - 4 * (A + B - 1); // 1 ..= 4 blocks in the last register
        let mut acc = Zmm::zero();
        // SAFETY: `low` holds 4 (A + B) blocks.
        let za: [Zmm; A] = core::array::from_fn(|v| Zmm::xor(Zmm::load(low.add(4 * v)), rb));
        let y_m = super::xmm::encrypt_one::<NR>(enc, extra);
        let (mut ex, ek) = (_mm_setzero_si128(), [_mm_setzero_si128(); 15]);
        // SAFETY: blocks 0 .. 4A are below n when B > 0; else the last
        // register holds `last` of them, the only ones it touches.
        let part_a = if B == 0 { last } else { 4 };
        let kk = (k[0], k[NR]);
        if DEC {
            batch::<Zmm, A, NR, true, true, SUM_OUT, true, false>(
                &k,
                src,
                dst,
                part_a,
                (&za, kk.0, kk.1),
                &mut acc,
                (&mut ex, &ek),
            );
        } else {
            batch::<Zmm, A, NR, false, true, SUM_IN, true, false>(
                &k,
                src,
                dst,
                part_a,
                (&za, kk.0, kk.1),
                &mut acc,
                (&mut ex, &ek),
            );
        }
        if B > 0 {
            // SAFETY: `low` holds 4 (A + B) blocks.
            let zb: [Zmm; B] =
                core::array::from_fn(|v| Zmm::xor(Zmm::load(low.add(4 * (A + v))), rb));
            let (s, d) = (src.wrapping_add(4 * A), dst.wrapping_add(4 * A));
            // SAFETY: blocks 4A .. n are valid; the last register holds
            // `last` of them, the only ones it touches.
            if DEC {
                batch::<Zmm, B, NR, true, true, SUM_OUT, true, false>(
                    &k,
                    s,
                    d,
                    last,
                    (&zb, kk.0, kk.1),
                    &mut acc,
                    (&mut ex, &ek),
                );
            } else {
                batch::<Zmm, B, NR, false, true, SUM_IN, true, false>(
                    &k,
                    s,
                    d,
                    last,
                    (&zb, kk.0, kk.1),
                    &mut acc,
                    (&mut ex, &ek),
                );
            }
        }
        *extra = y_m;
        store(Zmm::fold(acc))
    }
}
