//! XCBC's encryption chain (paper, section 3) on AES-NI in one function:
//! `z_i = f(x_i xor z_{i-1})`, `y_i = z_i + i r0 (mod 2^128)`, and with the
//! XOR check the block `x_{n+1} = z0 xor x_1 xor ... xor x_n` after the
//! others.
//!
//! The chain is serial, like CBC's: one block in flight, so one xmm
//! register. What this saves over the generic path is everything around
//! the rounds: the round keys stay in registers for the whole message,
//! `z_{i-1}` never leaves its register (no store and reload on the chain),
//! `x_i xor K0` and the output addition run beside the rounds, and there is
//! no backend call per message (the `aes` crate's VAES-512 backend copies
//! its round keys into vector registers on every call).

use core::arch::x86_64::*;

use super::schedule::{load, store};
use crate::arith::gf128::Block;

/// The chain over `n` blocks `x(0) .. x(n - 1)` (`x_1 .. x_n`) from `z0`,
/// then, if `CHECK`, the check block: `out[i - 1] = y_i`, `n + CHECK`
/// blocks. `keys`: the encryption round keys of `NR` rounds.
#[inline]
#[target_feature(enable = "aes,sse2")]
pub(super) fn xcbc_chain<const NR: usize, const CHECK: bool>(
    keys: &[Block; 15],
    r0: u128,
    z0: &Block,
    n: usize,
    x: impl Fn(usize) -> Block,
    out: &mut [Block],
) {
    debug_assert_eq!(out.len(), n + CHECK as usize);
    let k: [__m128i; 15] = core::array::from_fn(|i| load(&keys[i.min(NR)]));
    let mut z = load(z0); // z_{i-1}
    let mut sum = z; // z0 xor x_1 xor ... (the check block once all are in)
    let mut offset = 0u128; // i r0
    for (i, y) in out.iter_mut().enumerate() {
        let xi = if i < n { load(&x(i)) } else { sum };
        if CHECK {
            sum = _mm_xor_si128(sum, xi);
        }
        // x_i xor K0 does not wait for z_{i-1}: one xor on the chain.
        let mut b = _mm_xor_si128(_mm_xor_si128(xi, k[0]), z);
        for kr in &k[1..NR] {
            b = _mm_aesenc_si128(b, *kr);
        }
        z = _mm_aesenclast_si128(b, k[NR]);
        offset = offset.wrapping_add(r0);
        *y = u128::from_be_bytes(store(z))
            .wrapping_add(offset)
            .to_be_bytes();
    }
}
