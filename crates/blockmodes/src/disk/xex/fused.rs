//! XEX on the fused AES kernels (x86-64 with AES-NI; see `crate::backend`):
//! the units' `E_K(N)` are one ECB call per 64 units, no padding; then, on
//! VAES-512 with units of a multiple of 4 blocks, one kernel call makes
//! the deltas `Δ = 2^i E_K(N)` in registers (`AesKey::xex_units`);
//! otherwise the deltas of a group of blocks are made first (the AVX-512
//! kernel of `disk::simd` where present), then one kernel call enciphers
//! the group with `Δ` folded into the first and last round keys.

use crate::arith::gf128::{Block, double_be};
use crate::backend::AesKey;
use crate::disk::simd::Avx512;
use crate::disk::units::{MAX_GROUP, group_units, wipe};
use crate::engine::{Dir, Io, Offsets, XEX_UNITS};

use super::{Scratch, powers_be};

/// `blocks` (units of `m` blocks numbered from `first_unit`) through XEX in
/// the direction `dir` with everything in the kernel (`AesKey::xex_units`:
/// VAES-512, `m` a multiple of 4); false, doing nothing, where it does not
/// apply.
pub(super) fn units_in_kernel(
    key: &AesKey,
    dir: Dir,
    first_unit: u128,
    m: usize,
    blocks: &mut [Block],
) -> bool {
    for (k, many) in blocks.chunks_mut(XEX_UNITS * m).enumerate() {
        let u0 = first_unit + (k * XEX_UNITS) as u128;
        if !key.xex_units(dir, u0, m, Io::InPlace(many)) {
            return false; // (the first call already: the same for all)
        }
    }
    true
}

/// `blocks` (units of `m` blocks numbered from `first_unit`) through XEX in
/// the direction `dir`: as `Xex::units_in`, where [`units_in_kernel`] does
/// not apply.
pub(super) fn units(
    key: &AesKey,
    simd: Option<Avx512>,
    dir: Dir,
    first_unit: u128,
    m: usize,
    blocks: &mut [Block],
    scratch: &mut Scratch,
) {
    let g = 64usize.div_ceil(m).min(group_units(m));
    let (mut most_units, mut most_blocks) = (0, 0);
    for (k, many) in blocks.chunks_mut(MAX_GROUP * m).enumerate() {
        let units = many.len() / m;
        let u0 = first_unit + (k * MAX_GROUP) as u128;
        for (s, e) in scratch.en[..units].iter_mut().enumerate() {
            *e = (u0 + s as u128).to_be_bytes();
        }
        key.ecb(Dir::Encrypt, Io::InPlace(&mut scratch.en[..units])); // E_K(N)
        // Pieces of at least 64 blocks: each piece's deltas (a chain of
        // carry-less steps per unit) are made just before its kernel call,
        // so the processor overlaps them with the rounds of the piece
        // before; one pass of all a group's deltas first ran 12% slower
        // than the generic path at 16 KiB.
        for (piece, en) in many.chunks_mut(g * m).zip(scratch.en.chunks(g)) {
            let n = piece.len();
            let deltas = &mut scratch.deltas[..n];
            for (e, unit) in en.iter().zip(deltas.chunks_exact_mut(m)) {
                powers_be(simd, &double_be(e), unit); // Δ = 2^(j+1) E_K(N)
            }
            key.whiten(dir, Offsets::Slice(deltas), false, Io::InPlace(piece));
            most_blocks = most_blocks.max(n);
        }
        most_units = most_units.max(units);
    }
    wipe(&mut scratch.en[..most_units]);
    wipe(&mut scratch.deltas[..most_blocks]);
}

/// A run of blocks whose first delta is `first` (block j: `first x^j`), in
/// the direction `dir`: as `xex_run`.
pub(super) fn run(key: &AesKey, simd: Option<Avx512>, dir: Dir, first: &Block, data: &mut [Block]) {
    let mut deltas = [[0u8; 16]; 128];
    let mut next = *first;
    for chunk in data.chunks_mut(128) {
        let d = &mut deltas[..chunk.len()];
        powers_be(simd, &next, d);
        next = double_be(&d[d.len() - 1]);
        key.whiten(dir, Offsets::Slice(d), false, Io::InPlace(chunk));
    }
    wipe(&mut deltas);
    wipe(core::slice::from_mut(&mut next));
}
