//! The model-only build's code (`--cfg blockmodes_mca`,
//! `tools/mca/armv8.sh`; never built otherwise, never run): the generic
//! path's whitening passes, one 8-block batch each (the `aes` crate's batch
//! width on aarch64), each between llvm-mca region markers. They call the
//! modes' own helpers, so the model sees the code the generic path runs
//! around the `aes` crate's batch call; the script adds the batch itself
//! (`batch_encrypt`/`batch_decrypt` of the `aes` crate) and sums per block.
//!
//! The sum of these passes (the script's `passes` column) leaves out the
//! generic path's control (batch bookkeeping, Gray-code runs, group
//! steps, the copies, the call), and compiled alone each pass is not the
//! code inlined into the real loop: it is not a bound either way. The
//! gated figure (`full`) is the generic path as it runs, traced under qemu
//! (`examples/mca_generic.rs`, `tools/mca/trace.awk`).

use crate::Block;
use crate::armv8::{mca_begin, mca_end};

/// Blocks per batch (`aes` crate, aarch64: `ParBlocksSize = U8`).
const N: usize = 8;

/// OCB 1.0, PMAC: the batch's offsets `Z = gamma_j L xor W_q`.
pub fn offsets(dst: &mut [Block; N], low: &[Block; N], w4: &[Block; 4]) {
    mca_begin();
    crate::ocb1::xor_base(dst, low, w4);
    mca_end();
}

/// OCB 1.0 (`before` both ways, `after` encrypting), PMAC (`before`),
/// XEX (`before`, `after`: its `xor_blocks_to` is the same byte loop):
/// `dst = a xor z`.
pub fn xor(dst: &mut [Block; N], a: &[Block; N], z: &[Block; N]) {
    mca_begin();
    crate::ocb1::xor2(dst, a, z);
    mca_end();
}

/// OCB 1.0 encrypting (`before`): `dst = a xor z`, the Checksum lanes
/// take the plaintext `a`.
pub fn xor_sum_in(dst: &mut [Block; N], a: &[Block; N], z: &[Block; N], sum: &mut [Block; N]) {
    mca_begin();
    crate::ocb1::xor2_sum(dst, a, z, sum, false);
    mca_end();
}

/// OCB 1.0 decrypting (`after`): `dst = a xor z`, the Checksum lanes take
/// the plaintext `dst`.
pub fn xor_sum_out(dst: &mut [Block; N], a: &[Block; N], z: &[Block; N], sum: &mut [Block; N]) {
    mca_begin();
    crate::ocb1::xor2_sum(dst, a, z, sum, true);
    mca_end();
}

/// PMAC's `after`: the cipher outputs into the sum.
pub fn sum(acc: &mut [Block; N], out: &[Block; N]) {
    mca_begin();
    for (a, o) in acc.iter_mut().zip(out) {
        crate::arith::gf128::xor_in_place(a, o);
    }
    mca_end();
}

/// XEX: the batch's deltas `first x^j`.
pub fn xex_deltas(first: &Block, out: &mut [Block; N]) {
    mca_begin();
    crate::arith::gf128::powers_x_be(first, out);
    mca_end();
}
