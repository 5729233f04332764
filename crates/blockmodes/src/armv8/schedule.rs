//! The AES key schedule (FIPS-197 section 5.2) with `AESE` doing SubWord,
//! and the equivalent inverse cipher's keys (section 5.3.5) with `AESIMC`.

use core::arch::aarch64::*;

use zeroize::Zeroize;

use crate::arith::gf128::Block;

/// `SubWord(w)` of a word held as the little-endian `u32` of its four
/// bytes: `AESE` with a zero key on four copies of `w` (ShiftRows moves
/// bytes between equal columns, so column 0 is `SubWord(w)`).
#[inline]
#[target_feature(enable = "aes,neon")]
fn sub_word(w: u32) -> u32 {
    let v = vreinterpretq_u8_u32(vdupq_n_u32(w));
    let s = vaeseq_u8(v, vdupq_n_u8(0));
    vgetq_lane_u32::<0>(vreinterpretq_u32_u8(s))
}

/// Expand `key` (16, 24 or 32 bytes; any other length leaves the keys
/// zero) into the encryption round keys `enc[0..=nr]` and the inverse
/// cipher's `dec[0..=nr]`: `dec[0] = enc[nr]`,
/// `dec[r] = InvMixColumns(enc[nr - r])`, `dec[nr] = enc[0]`.
///
/// # Safety
/// The CPU must have the AES instructions (and NEON).
#[target_feature(enable = "aes,neon")]
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
            // SubWord(RotWord(t)) xor Rcon; RotWord of the LE word is a
            // rotation right by one byte.
            t = sub_word(t.rotate_right(8)) ^ u32::from(rcon);
            rcon = (rcon << 1) ^ if rcon & 0x80 != 0 { 0x1b } else { 0 };
        } else if nk > 6 && i % nk == 4 {
            t = sub_word(t);
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
        // SAFETY: `enc[nr - r]` and `dec[r]` are 16-byte blocks.
        unsafe {
            let k = vld1q_u8(enc[nr - r].as_ptr());
            vst1q_u8(dec[r].as_mut_ptr(), vaesimcq_u8(k));
        }
    }
}
