//! The AES key schedule (FIPS-197 section 5.2) with `aeskeygenassist`
//! doing SubWord, and the equivalent inverse cipher's keys (section 5.3.5)
//! with `aesimc`.

use core::arch::x86_64::*;

use zeroize::Zeroize;

use crate::arith::gf128::Block;

/// `(SubWord(w), RotWord(SubWord(w)))` of a word held as the little-endian
/// `u32` of its four bytes (byte 0 lowest), from one `aeskeygenassist`.
#[target_feature(enable = "aes,sse2")]
fn sub_word(w: u32) -> (u32, u32) {
    // aeskeygenassist: dword 0 = SubWord(X1), dword 1 = RotWord(SubWord(X1))
    // xor rcon (rcon = 0 here), with X1 = dword 1 of the source.
    let r = _mm_aeskeygenassist_si128::<0>(_mm_set_epi32(0, 0, w as i32, 0));
    let sub = _mm_cvtsi128_si32(r) as u32;
    let rot = _mm_cvtsi128_si32(_mm_srli_si128::<4>(r)) as u32;
    (sub, rot)
}

/// Expand `key` (16, 24 or 32 bytes; any other length leaves the keys
/// zero) into the encryption round keys `enc[0..=nr]` and the inverse
/// cipher's `dec[0..=nr]`: `dec[0] = enc[nr]`,
/// `dec[r] = InvMixColumns(enc[nr - r])`, `dec[nr] = enc[0]`.
///
/// # Safety
/// The CPU must have AES-NI and SSE2.
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn expand(key: &[u8], enc: &mut [Block; 15], dec: &mut [Block; 15]) {
    let nk = key.len() / 4;
    if !matches!(key.len(), 16 | 24 | 32) {
        return;
    }
    let nr = nk + 6;
    let total = 4 * (nr + 1);
    let mut w = [0u32; 60];
    for (word, bytes) in w.iter_mut().zip(key.chunks_exact(4)) {
        *word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }
    let mut rcon = 1u8;
    for i in nk..total {
        let mut t = w[i - 1];
        if i % nk == 0 {
            t = sub_word(t).1 ^ u32::from(rcon); // SubWord(RotWord(t)) xor Rcon
            rcon = (rcon << 1) ^ if rcon & 0x80 != 0 { 0x1b } else { 0 };
        } else if nk > 6 && i % nk == 4 {
            t = sub_word(t).0;
        }
        w[i] = w[i - nk] ^ t;
    }
    for (r, k) in enc.iter_mut().take(nr + 1).enumerate() {
        for (c, bytes) in k.chunks_exact_mut(4).enumerate() {
            bytes.copy_from_slice(&w[4 * r + c].to_le_bytes());
        }
    }
    w.zeroize();
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
