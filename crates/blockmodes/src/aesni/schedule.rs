//! The AES key schedule (FIPS-197 section 5.2, the word loop in
//! `crate::engine::schedule`) with `aeskeygenassist` doing SubWord, and
//! the equivalent inverse cipher's keys (section 5.3.5) with `aesimc`.

use core::arch::x86_64::*;

use crate::arith::gf128::Block;

/// `SubWord(w)` of a word held as the little-endian `u32` of its four
/// bytes (byte 0 lowest), from one `aeskeygenassist`.
#[target_feature(enable = "aes,sse2")]
fn sub_word(w: u32) -> u32 {
    // aeskeygenassist: dword 0 = SubWord(X1), with X1 = dword 1 of the
    // source.
    let r = _mm_aeskeygenassist_si128::<0>(_mm_set_epi32(0, 0, w as i32, 0));
    _mm_cvtsi128_si32(r) as u32
}

/// Expand `key` (16, 24 or 32 bytes; any other length leaves the keys
/// zero) into the encryption round keys `enc[0..=nr]`
/// (`crate::engine::schedule::expand_enc`) and the inverse cipher's
/// `dec[0..=nr]`: `dec[0] = enc[nr]`, `dec[r] = InvMixColumns(enc[nr -
/// r])`, `dec[nr] = enc[0]`.
///
/// # Safety
/// The CPU must have AES-NI and SSE2.
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn expand(key: &[u8], enc: &mut [Block; 15], dec: &mut [Block; 15]) {
    let Some(nr) = crate::engine::schedule::expand_enc(key, enc, |w| sub_word(w)) else {
        return;
    };
    dec[0] = enc[nr];
    dec[nr] = enc[0];
    for r in 1..nr {
        let k = load(&enc[nr - r]);
        dec[r] = store(_mm_aesimc_si128(k));
    }
}

/// A block as a vector (a safe load: two 64-bit halves).
#[inline]
#[target_feature(enable = "sse2")]
pub(crate) fn load(b: &Block) -> __m128i {
    let lo = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    let hi = u64::from_le_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]);
    _mm_set_epi64x(hi as i64, lo as i64)
}

/// A vector as a block.
#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn store(v: __m128i) -> Block {
    let lo = _mm_cvtsi128_si64(v) as u64;
    let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v)) as u64;
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&lo.to_le_bytes());
    b[8..].copy_from_slice(&hi.to_le_bytes());
    b
}
