//! The AES-NI functions outside the lane-generic loop (`kernel.rs`): one
//! block enciphered or deciphered with no job, and the short-message paths
//! of PMAC (`sigma_tag`) and OCB 1.0 (`whiten_sum_short`) in one function
//! each, under [`super::XMM_BELOW`] blocks.

use core::arch::x86_64::*;

use super::schedule::{load, store};
use crate::arith::gf128::Block;

/// `E_K(block)` for one block, `keys` the encryption round keys of `NR`
/// rounds (no job, no dispatch: the latency of the rounds and the loads).
#[inline]
#[target_feature(enable = "aes,sse2")]
pub(super) fn encrypt_one<const NR: usize>(keys: &[Block; 15], block: &Block) -> Block {
    let mut x = _mm_xor_si128(load(block), load(&keys[0]));
    for k in &keys[1..NR] {
        x = _mm_aesenc_si128(x, load(k));
    }
    store(_mm_aesenclast_si128(x, load(&keys[NR])))
}

/// PMAC's tag of a short message in one function: `E_K(Σ xor x)` with
/// `Σ = E_K(in[0] xor Z[0]) xor ... xor E_K(in[V-1] xor Z[V-1])`, the `V`
/// blocks interleaved, the keys read from `keys` (no copy, no job), the
/// tag's rounds right after. (`Σ`'s last round key and the tag's first are
/// folded: `x xor K0` is xored with the `aesenclast` outputs.)
///
/// # Safety
/// `src` and `z` valid for `V` blocks.
#[inline]
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn sigma_tag<const NR: usize, const V: usize>(
    keys: &[Block; 15],
    src: *const Block,
    z: *const Block,
    x: &Block,
) -> Block {
    let k0 = load(&keys[0]);
    let mut s = [_mm_setzero_si128(); V];
    for (v, sv) in s.iter_mut().enumerate() {
        // SAFETY: the caller's: blocks v of `src` and `z` are valid.
        let (m, zv) = unsafe {
            (
                _mm_loadu_si128(src.wrapping_add(v).cast()),
                _mm_loadu_si128(z.wrapping_add(v).cast()),
            )
        };
        *sv = _mm_xor_si128(_mm_xor_si128(m, zv), k0);
    }
    #[allow(clippy::needless_range_loop)]
    for r in 1..NR {
        let kr = load(&keys[r]);
        for sv in s.iter_mut() {
            *sv = _mm_aesenc_si128(*sv, kr);
        }
    }
    let kl = load(&keys[NR]);
    let mut acc = _mm_xor_si128(load(x), k0);
    for sv in s.iter_mut() {
        acc = _mm_xor_si128(acc, _mm_aesenclast_si128(*sv, kl));
        *sv = _mm_setzero_si128();
    }
    core::hint::black_box(&s);
    #[allow(clippy::needless_range_loop)]
    for r in 1..NR {
        acc = _mm_aesenc_si128(acc, load(&keys[r]));
    }
    store(_mm_aesenclast_si128(acc, kl))
}

/// OCB 1.0's blocks of a short message in one function:
/// `C[i] = E_K(M[i] xor Z[i]) xor Z[i]` (or, with `DEC`,
/// `M[i] = E_K^-1(C[i] xor Z[i]) xor Z[i]`) for `V` blocks with
/// `Z[i] = gamma_i L xor R` from `low` (the table's entries `1..`), the
/// sum of the `M[i]` (the Checksum's blocks: the inputs, or with `DEC` the
/// outputs) returned, and `extra = E_K(extra)` (`Y[m]`, under the encryption
/// keys `enc` whatever the direction) in the same round loop; the keys
/// read in place (no copy, no job). `keys` are the direction's round keys.
///
/// # Safety
/// `src`, `dst` and `low` valid for `V` blocks (`src` may equal `dst`).
#[inline]
#[target_feature(enable = "aes,sse2")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn whiten_sum_short<const NR: usize, const DEC: bool, const V: usize>(
    keys: &[Block; 15],
    enc: &[Block; 15],
    src: *const Block,
    dst: *mut Block,
    low: *const Block,
    r: &Block,
    extra: &mut Block,
) -> Block {
    let k0 = load(&keys[0]);
    let rr = load(r);
    let mut z = [_mm_setzero_si128(); V];
    let mut s = [_mm_setzero_si128(); V];
    let mut sum = _mm_setzero_si128();
    for v in 0..V {
        // SAFETY: the caller's: block v of `src` and of `low` is valid.
        let (m, g) = unsafe {
            (
                _mm_loadu_si128(src.wrapping_add(v).cast()),
                _mm_loadu_si128(low.wrapping_add(v).cast()),
            )
        };
        z[v] = _mm_xor_si128(g, rr);
        if !DEC {
            sum = _mm_xor_si128(sum, m);
        }
        s[v] = _mm_xor_si128(_mm_xor_si128(m, z[v]), k0);
    }
    let mut e = _mm_xor_si128(load(extra), load(&enc[0]));
    #[allow(clippy::needless_range_loop)]
    for r in 1..NR {
        let kr = load(&keys[r]);
        for sv in s.iter_mut() {
            *sv = if DEC {
                _mm_aesdec_si128(*sv, kr)
            } else {
                _mm_aesenc_si128(*sv, kr)
            };
        }
        e = _mm_aesenc_si128(e, if DEC { load(&enc[r]) } else { kr });
    }
    let kl = load(&keys[NR]);
    for v in 0..V {
        let y = if DEC {
            _mm_aesdeclast_si128(s[v], _mm_xor_si128(z[v], kl))
        } else {
            _mm_aesenclast_si128(s[v], _mm_xor_si128(z[v], kl))
        };
        if DEC {
            sum = _mm_xor_si128(sum, y);
        }
        // SAFETY: the caller's: block v of `dst` is valid.
        unsafe { _mm_storeu_si128(dst.wrapping_add(v).cast(), y) };
        s[v] = _mm_setzero_si128();
        z[v] = _mm_setzero_si128();
    }
    core::hint::black_box((&s, &z));
    *extra = store(_mm_aesenclast_si128(e, load(&enc[NR])));
    store(sum)
}

/// `E_K^-1(block)` for one block, `keys` the inverse cipher's round keys
/// of `NR` rounds.
#[inline]
#[target_feature(enable = "aes,sse2")]
pub(super) fn decrypt_one<const NR: usize>(keys: &[Block; 15], block: &Block) -> Block {
    let mut x = _mm_xor_si128(load(block), load(&keys[0]));
    for k in &keys[1..NR] {
        x = _mm_aesdec_si128(x, load(k));
    }
    store(_mm_aesdeclast_si128(x, load(&keys[NR])))
}
