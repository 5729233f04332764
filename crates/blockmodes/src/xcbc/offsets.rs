//! The offsets `i * r0` (mod 2^128) of one message, applied to runs of
//! big-endian blocks in a form the compiler vectorizes.
//!
//! XCBC decryption computes `z_i = y_i - i * r0` and XECB `x_i + i * r0` for
//! every block. Done one block at a time with `u128`, each is a serial
//! add-with-carry between byte swaps, more work than the block cipher itself
//! on a VAES machine. Here the offsets come from a per-message table of
//! `j * r0` (j = 1..=64) plus one multiple of r0 per batch of 64, and the
//! 128-bit additions are written on 64-bit halves with explicit carries:
//! a loop the compiler turns into AVX-512 code inside the cipher's backend.

use zeroize::Zeroize;

use crate::gf128::Block;

/// The batch length of the table.
pub(crate) const BATCH: usize = 64;

/// `j * r0` for `j = 1..=BATCH`, as high and low 64-bit halves.
pub(crate) struct Offsets {
    r0: u128,
    hi: [u64; BATCH],
    lo: [u64; BATCH],
    /// Entries filled so far (the table is filled lazily, so short
    /// messages pay only for the entries they use).
    len: usize,
}

#[inline(always)]
fn be_halves(b: &Block) -> (u64, u64) {
    let (h, l) = b.split_at(8);
    let mut hb = [0u8; 8];
    let mut lb = [0u8; 8];
    hb.copy_from_slice(h);
    lb.copy_from_slice(l);
    (u64::from_be_bytes(hb), u64::from_be_bytes(lb))
}

#[inline(always)]
fn from_halves(h: u64, l: u64) -> Block {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&h.to_be_bytes());
    b[8..].copy_from_slice(&l.to_be_bytes());
    b
}

impl Offsets {
    /// The (lazily filled) table for `r0`.
    #[inline]
    pub(crate) fn new(r0: u128) -> Self {
        Self {
            r0,
            hi: [0; BATCH],
            lo: [0; BATCH],
            len: 0,
        }
    }

    /// r0.
    #[inline(always)]
    pub(crate) fn r0(&self) -> u128 {
        self.r0
    }

    /// Fill the table up to `k` entries.
    #[inline(always)]
    fn fill(&mut self, k: usize) {
        if self.len >= k {
            return;
        }
        let mut m = self.r0.wrapping_mul(self.len as u128);
        for j in self.len..k {
            m = m.wrapping_add(self.r0);
            self.hi[j] = (m >> 64) as u64;
            self.lo[j] = m as u64;
        }
        self.len = k;
    }

    /// `out[j] = input[j] + (first + j) * r0` (`ADD`) or
    /// `out[j] = input[j] - (first + j) * r0` (`!ADD`), mod 2^128 on
    /// big-endian blocks, for every `j < min(input.len(), out.len())`.
    #[inline(always)]
    pub(crate) fn apply<const ADD: bool>(
        &mut self,
        first: u128,
        input: &[Block],
        out: &mut [Block],
    ) {
        let mut first = first;
        for (chunk, out) in input.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
            self.fill(chunk.len());
            // base = (first - 1) r0, so block j gets base + (j + 1) r0 = base + table[j].
            let base = self.r0.wrapping_mul(first.wrapping_sub(1));
            let (bh, bl) = ((base >> 64) as u64, base as u64);
            let rows = chunk
                .iter()
                .zip(out.iter_mut())
                .zip(self.hi.iter().zip(&self.lo));
            for ((x, o), (th, tl)) in rows {
                let (ol, c1) = tl.overflowing_add(bl);
                let oh = th.wrapping_add(bh).wrapping_add(c1 as u64);
                let (xh, xl) = be_halves(x);
                let (zh, zl) = if ADD {
                    let (l, c2) = xl.overflowing_add(ol);
                    (xh.wrapping_add(oh).wrapping_add(c2 as u64), l)
                } else {
                    let (l, b2) = xl.overflowing_sub(ol);
                    (xh.wrapping_sub(oh).wrapping_sub(b2 as u64), l)
                };
                *o = from_halves(zh, zl);
            }
            first = first.wrapping_add(BATCH as u128);
        }
    }
}

/// Blocks per step of the xor passes: sixteen blocks as four 512-bit
/// vectors, so the accumulator's four independent chains hide the latency
/// of the (stack-resident) accumulator.
const STEP: usize = 16 * 16;

/// `out[j] = a[j] xor b[j]` for every j, and `sum ^= out[j]`: the xor pass
/// of a batch, sixteen blocks at a time.
#[inline(always)]
pub(crate) fn xor_and_sum(a: &[Block], b: &[Block], out: &mut [Block], sum: &mut Block) {
    let n = a.len().min(b.len()).min(out.len());
    let full = n - n % 16;
    let (a16, _) = a[..full].as_flattened().as_chunks::<STEP>();
    let (b16, _) = b[..full].as_flattened().as_chunks::<STEP>();
    let (o16, _) = out[..full].as_flattened_mut().as_chunks_mut::<STEP>();
    let mut acc = [0u8; STEP];
    for ((a, b), o) in a16.iter().zip(b16).zip(o16.iter_mut()) {
        for t in 0..STEP {
            o[t] = a[t] ^ b[t];
            acc[t] ^= o[t];
        }
    }
    let mut s = u128::from_ne_bytes(*sum) ^ fold(&acc);
    for j in full..n {
        out[j] = crate::gf128::xor(&a[j], &b[j]);
        s ^= u128::from_ne_bytes(out[j]);
    }
    *sum = s.to_ne_bytes();
}

/// `sum ^= blocks[0] xor blocks[1] xor ...`, sixteen blocks at a time.
#[inline(always)]
pub(crate) fn xor_into(blocks: &[Block], sum: &mut Block) {
    let full = blocks.len() - blocks.len() % 16;
    let (b16, _) = blocks[..full].as_flattened().as_chunks::<STEP>();
    let mut acc = [0u8; STEP];
    for b in b16 {
        for t in 0..STEP {
            acc[t] ^= b[t];
        }
    }
    let mut s = u128::from_ne_bytes(*sum) ^ fold(&acc);
    for b in &blocks[full..] {
        s ^= u128::from_ne_bytes(*b);
    }
    *sum = s.to_ne_bytes();
}

/// The xor of the sixteen blocks held side by side in `acc`, as a
/// native-endian word.
#[inline(always)]
fn fold(acc: &[u8; STEP]) -> u128 {
    let (lanes, _) = acc.as_chunks::<16>();
    lanes
        .iter()
        .fold(0u128, |s, lane| s ^ u128::from_ne_bytes(*lane))
}

impl Drop for Offsets {
    fn drop(&mut self) {
        self.r0.zeroize();
        self.hi[..self.len].zeroize();
        self.lo[..self.len].zeroize();
    }
}

/// Overwrite `blocks` with zeros (a vectorized fill the compiler may not
/// remove): the wipe for scratch batches, which `Zeroize` would clear one
/// byte at a time.
#[inline(always)]
pub(crate) fn wipe(blocks: &mut [Block]) {
    blocks.fill([0; 16]);
    zeroize::optimization_barrier(blocks);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modular::{to_block, to_int};

    #[test]
    fn matches_the_definition() {
        let r0 = 0xfedc_ba98_7654_3210_0123_4567_89ab_cdefu128.wrapping_mul(0x9e37_79b9);
        let mut t = Offsets::new(r0);
        let input: Vec<Block> = (0..150u128)
            .map(|j| to_block(j.wrapping_mul(u128::MAX / 7)))
            .collect();
        for first in [1u128, 5, 64, u128::MAX - 3] {
            for k in [1usize, 3, 64, 65, 150] {
                let mut out = vec![[0u8; 16]; k];
                t.apply::<true>(first, &input[..k], &mut out);
                for j in 0..k {
                    let off = r0.wrapping_mul(first.wrapping_add(j as u128));
                    assert_eq!(to_int(&out[j]), to_int(&input[j]).wrapping_add(off));
                }
                t.apply::<false>(first, &input[..k], &mut out);
                for j in 0..k {
                    let off = r0.wrapping_mul(first.wrapping_add(j as u128));
                    assert_eq!(to_int(&out[j]), to_int(&input[j]).wrapping_sub(off));
                }
            }
        }
    }

    #[test]
    fn xor_and_sum_matches() {
        for n in [0usize, 1, 3, 4, 5, 64] {
            let a: Vec<Block> = (0..n).map(|j| [j as u8; 16]).collect();
            let b: Vec<Block> = (0..n).map(|j| [(j * 7 + 1) as u8; 16]).collect();
            let mut out = vec![[0u8; 16]; n];
            let mut sum = [0x5a; 16];
            xor_and_sum(&a, &b, &mut out, &mut sum);
            let mut want = [0x5a; 16];
            for j in 0..n {
                assert_eq!(out[j], crate::gf128::xor(&a[j], &b[j]));
                crate::gf128::xor_in_place(&mut want, &out[j]);
            }
            assert_eq!(sum, want);
        }
    }

    #[test]
    fn xor_into_matches() {
        for n in [0usize, 1, 4, 7, 64] {
            let b: Vec<Block> = (0..n).map(|j| [(j * 13 + 5) as u8; 16]).collect();
            let mut sum = [1; 16];
            xor_into(&b, &mut sum);
            let mut want = [1; 16];
            for x in &b {
                crate::gf128::xor_in_place(&mut want, x);
            }
            assert_eq!(sum, want);
        }
    }

    #[test]
    fn wipe_clears() {
        let mut b = [[7u8; 16]; 3];
        wipe(&mut b);
        assert_eq!(b, [[0u8; 16]; 3]);
    }
}
