//! The AES key expansion (FIPS-197 section 5.2) on 32-bit words, shared
//! by both architectures' key schedules (`aesni::schedule`,
//! `armv8::schedule`), each passing its SubWord (an AES instruction) in;
//! the inverse cipher's keys (`InvMixColumns`, an instruction too) stay
//! theirs. No intrinsics and no `unsafe`.

use zeroize::Zeroize;

use crate::arith::gf128::Block;

/// Expand `key` (16, 24 or 32 bytes) into the encryption round keys
/// `enc[0..=nr]` and return `nr` (10, 12 or 14); `None`, the keys left
/// untouched, for any other length. `sub_word` is SubWord of a word held
/// as the little-endian `u32` of its four bytes (byte 0 lowest).
pub(crate) fn expand_enc(
    key: &[u8],
    enc: &mut [Block; 15],
    mut sub_word: impl FnMut(u32) -> u32,
) -> Option<usize> {
    let nk = key.len() / 4;
    if !matches!(key.len(), 16 | 24 | 32) {
        return None;
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
    Some(nr)
}
