//! The AES key schedule (FIPS-197 section 5.2, the word loop in
//! `crate::engine::schedule`) with `AESE` doing SubWord,
//! and the equivalent inverse cipher's keys (section 5.3.5) with `AESIMC`.

use core::arch::aarch64::*;

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
/// zero) into the encryption round keys `enc[0..=nr]`
/// (`crate::engine::schedule::expand_enc`) and the inverse cipher's
/// `dec[0..=nr]`: `dec[0] = enc[nr]`, `dec[r] = InvMixColumns(enc[nr -
/// r])`, `dec[nr] = enc[0]`.
///
/// # Safety
/// The CPU must have the AES instructions (and NEON).
#[target_feature(enable = "aes,neon")]
pub(super) unsafe fn expand(key: &[u8], enc: &mut [Block; 15], dec: &mut [Block; 15]) {
    let Some(nr) = crate::engine::schedule::expand_enc(key, enc, |w| sub_word(w)) else {
        return;
    };
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
