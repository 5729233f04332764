use core::arch::x86_64::{
    __m512i, _mm_loadu_si128, _mm_storeu_si128, _mm_xor_si128, _mm256_castsi256_si128,
    _mm256_extracti128_si256, _mm256_xor_si256, _mm512_castsi512_si256, _mm512_extracti64x4_epi64,
    _mm512_loadu_si512, _mm512_mask_storeu_epi64, _mm512_maskz_loadu_epi64, _mm512_setzero_si512,
    _mm512_storeu_si512, _mm512_xor_si512,
};

use crate::arith::gf128::Block;

/// The xor of the four 128-bit lanes of `acc`, xored into `sum`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn fold_into(acc: __m512i, sum: &mut Block) {
    let a = _mm256_xor_si256(
        _mm512_castsi512_si256(acc),
        _mm512_extracti64x4_epi64::<1>(acc),
    );
    let a = _mm_xor_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256::<1>(a));
    // SAFETY: `sum` is one 16-byte block: unaligned 128-bit load and store.
    unsafe {
        let s = _mm_xor_si128(a, _mm_loadu_si128(sum.as_ptr().cast()));
        _mm_storeu_si128(sum.as_mut_ptr().cast(), s);
    }
}

#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn xor_into_avx512(blocks: &[Block], sum: &mut Block) {
    let mut acc = [_mm512_setzero_si512(); 4];
    let (b16, rest) = blocks.as_chunks::<16>();
    for b in b16 {
        let p = b.as_ptr().cast::<__m512i>();
        for (j, a) in acc.iter_mut().enumerate() {
            // SAFETY: `b` is 16 blocks: vectors 0..4 of 64 bytes.
            *a = _mm512_xor_si512(*a, unsafe { _mm512_loadu_si512(p.add(j)) });
        }
    }
    let (b4, last) = rest.as_chunks::<4>();
    for (b, a) in b4.iter().zip(acc.iter_mut()) {
        // SAFETY: `b` is 4 blocks (64 bytes).
        *a = _mm512_xor_si512(*a, unsafe { _mm512_loadu_si512(b.as_ptr().cast()) });
    }
    if !last.is_empty() {
        let mask = ((1u16 << (2 * last.len())) - 1) as u8;
        // SAFETY: the mask covers the `last.len() < 4` blocks of `last`
        // only; masked-off lanes are not read.
        let v = unsafe { _mm512_maskz_loadu_epi64(mask, last.as_ptr().cast()) };
        acc[3] = _mm512_xor_si512(acc[3], v);
    }
    let a = _mm512_xor_si512(
        _mm512_xor_si512(acc[0], acc[1]),
        _mm512_xor_si512(acc[2], acc[3]),
    );
    fold_into(a, sum);
}

#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn xor_in_and_sum_avx512(out: &mut [Block], b: &[Block], sum: &mut Block) {
    let n = out.len().min(b.len());
    let (out, b) = (&mut out[..n], &b[..n]);
    let mut acc = _mm512_setzero_si512();
    let (o4, o_rest) = out.as_chunks_mut::<4>();
    let (b4, b_rest) = b.as_chunks::<4>();
    for (o, b) in o4.iter_mut().zip(b4) {
        let (po, pb) = (
            o.as_mut_ptr().cast::<__m512i>(),
            b.as_ptr().cast::<__m512i>(),
        );
        // SAFETY: `o` and `b` are 4 blocks (64 bytes) each.
        unsafe {
            let x = _mm512_xor_si512(_mm512_loadu_si512(po), _mm512_loadu_si512(pb));
            _mm512_storeu_si512(po, x);
            acc = _mm512_xor_si512(acc, x);
        }
    }
    let k = o_rest.len().min(b_rest.len());
    if k > 0 {
        let mask = ((1u16 << (2 * k)) - 1) as u8;
        let (po, pb) = (
            o_rest.as_mut_ptr().cast::<__m512i>(),
            b_rest.as_ptr().cast::<__m512i>(),
        );
        // SAFETY: the masks cover the first `k` blocks (`2 k` 64-bit
        // lanes) of `o_rest` and `b_rest` only; masked-off lanes are
        // neither read nor written.
        unsafe {
            let x = _mm512_xor_si512(
                _mm512_maskz_loadu_epi64(mask, po.cast()),
                _mm512_maskz_loadu_epi64(mask, pb.cast()),
            );
            _mm512_mask_storeu_epi64(po.cast(), mask, x);
            acc = _mm512_xor_si512(acc, x);
        }
    }
    fold_into(acc, sum);
}
