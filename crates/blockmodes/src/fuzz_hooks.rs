//! Hooks for the differential fuzz targets of `fuzz/` (not API: hidden from
//! the docs, may change at any time). Each runs one of the crate's SIMD
//! kernels that no public switch reaches and its portable twin on the same
//! input, and returns both results; the target asserts they are equal.
//! (The kernels a public `portable()` switch or `backend::force` reaches,
//! XEX's deltas, CWC-HASH and the fused AES path, are compared through the
//! modes themselves.)

use alloc::vec::Vec;

use crate::Block;
use crate::disk::simd::Avx512;
use crate::disk::ste::SteSwap;

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
    let run = |simd: Option<Avx512>| {
        let s = SteSwap::with_simd(*k, *h, simd);
        let mut out = blocks.to_vec();
        s.swap_xor(&mut out, c, swap_first);
        let mut plain = blocks.to_vec();
        s.swap(&mut plain);
        out.extend_from_slice(&plain);
        out
    };
    let simd = Avx512::detect().map(|s| run(Some(s)));
    (simd, run(None))
}
