//! Hooks for the differential fuzz targets of `fuzz/` (not API: hidden from
//! the docs, may change at any time). Each runs one of the crate's SIMD
//! kernels that no public switch reaches and its portable twin on the same
//! input, and returns both results; the target asserts they are equal.
//! (The kernels a public `portable()` switch or `backend::force` reaches,
//! XEX, EME, CWC-HASH and the fused AES path, are compared through the
//! modes themselves.)

use alloc::vec::Vec;

use crate::Block;
use crate::disk::simd::Avx512 as DiskAvx512;
use crate::disk::ste::SteSwap;
use crate::gligor_donescu::offsets::Offsets;
use crate::gligor_donescu::simd::Avx512;

/// The XCBC/XECB offsets: `x[j] + (first + j) * r0` (`add`) or
/// `x[j] - (first + j) * r0`, mod 2^128 on big-endian blocks, through the
/// AVX-512 kernel (`None` where the CPU has no AVX-512 VBMI) and through the
/// portable table.
///
/// ```
/// let x = [[7u8; 16]; 5];
/// let (simd, portable) = blockmodes::__fuzz::xcbc_offsets(true, 3, 1, &x);
/// assert_eq!(portable[0][15], 7 + 3);
/// if let Some(s) = simd { assert_eq!(s, portable); }
/// ```
pub fn xcbc_offsets(
    add: bool,
    r0: u128,
    first: u128,
    x: &[Block],
) -> (Option<Vec<Block>>, Vec<Block>) {
    let run = |mut o: Offsets| {
        let mut out = alloc::vec![[0u8; 16]; x.len()];
        if add {
            o.apply::<true>(first, x, &mut out);
        } else {
            o.apply::<false>(first, x, &mut out);
        }
        out
    };
    let simd = Avx512::detect().map(|s| run(Offsets::with_simd(r0, Some(s))));
    (simd, run(Offsets::portable(r0)))
}

/// StE's swap of `k` and `h` followed or preceded by a xor with `c`
/// (`SteSwap::swap_xor`) on a copy of `blocks`, then the plain swap on
/// another copy, the two results one after the other: through the AVX-512
/// kernel (`None` without AVX-512) and the portable loops.
///
/// ```
/// let (k, h, c) = ([1u8; 16], [2u8; 16], [4u8; 16]);
/// let (_, portable) = blockmodes::__fuzz::ste_swap(&k, &h, &c, true, &[k, [3; 16]]);
/// // swap then xor c: [h ^ c, 3 ^ c]; the plain swap: [h, 3].
/// assert_eq!(portable, [[6; 16], [7; 16], h, [3; 16]]);
/// ```
pub fn ste_swap(
    k: &Block,
    h: &Block,
    c: &Block,
    swap_first: bool,
    blocks: &[Block],
) -> (Option<Vec<Block>>, Vec<Block>) {
    let run = |simd: Option<DiskAvx512>| {
        let s = SteSwap::with_simd(*k, *h, simd);
        let mut out = blocks.to_vec();
        s.swap_xor(&mut out, c, swap_first);
        let mut plain = blocks.to_vec();
        s.swap(&mut plain);
        out.extend_from_slice(&plain);
        out
    };
    let simd = DiskAvx512::detect().map(|s| run(Some(s)));
    (simd, run(None))
}

/// XCBC decryption's xor pass `out[j] ^= b[j]` and its check sum, then
/// XECB's `sum ^= out[0] xor out[1] xor ...`, on a copy of `out` and `sum`:
/// through the AVX-512 kernels (`None` without AVX-512) and the portable
/// loops. Returns the blocks with the final sum appended.
///
/// ```
/// let (_, portable) = blockmodes::__fuzz::xcbc_xor_passes(&[[1u8; 16]], &[[2u8; 16]], &[0; 16]);
/// assert_eq!(portable, [[3u8; 16], [0; 16]]);
/// ```
pub fn xcbc_xor_passes(
    out: &[Block],
    b: &[Block],
    sum: &Block,
) -> (Option<Vec<Block>>, Vec<Block>) {
    use crate::gligor_donescu::offsets::{xor_in_and_sum, xor_into};
    let run = |simd: Option<Avx512>| {
        let (mut o, mut s) = (out.to_vec(), *sum);
        match simd {
            Some(v) => v.xor_in_and_sum(&mut o, b, &mut s),
            None => xor_in_and_sum(&mut o, b, &mut s),
        }
        match simd {
            Some(v) => v.xor_into(&o, &mut s),
            None => xor_into(&o, &mut s),
        }
        o.push(s);
        o
    };
    (Avx512::detect().map(|s| run(Some(s))), run(None))
}
