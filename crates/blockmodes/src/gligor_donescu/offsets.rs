//! The offsets `i * r0` (mod 2^128) of one message, applied to runs of
//! big-endian blocks in a form the compiler vectorizes.
//!
//! XCBC decryption computes `z_i = y_i - i * r0` and XECB `x_i + i * r0` for
//! every block. Done one block at a time with `u128`, each is a serial
//! add-with-carry between byte swaps, more work than the block cipher itself
//! on a VAES machine. Here the offsets of a batch of 64 consecutive blocks
//! live in a table of high and low 64-bit halves (structure of arrays); the
//! next batch's table is this one plus `64 * r0`, one vectorized pass.
//!
//! A full batch goes through fixed-length passes over stack arrays
//! ([`add_batch`]): byte swaps of 32-bit words, the words paired into
//! 64-bit halves, the 128-bit additions with explicit carries, and back.
//! Inside the cipher's backend (AVX-512F without the byte-shuffle
//! extension) the compiler turns each pass into a few 512-bit instructions
//! per four blocks and interleaves them with the AES rounds.

use crate::arith::gf128::Block;

/// The batch length of the table.
pub(crate) const BATCH: usize = 64;

/// `i * r0` for `i = pos .. pos + len` (`len <= BATCH`), as high and low
/// 64-bit halves.
pub(crate) struct Offsets {
    r0: u128,
    hi: [u64; BATCH],
    lo: [u64; BATCH],
    /// The block index of entry 0.
    pos: u128,
    /// Entries filled (the table is filled lazily, so short messages pay
    /// only for the entries they use).
    len: usize,
    /// `0x00ff_00ff`, hidden from the optimiser (see [`bswap32`]).
    mask: u32,
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

/// `(h, l) + (th, tl)` (`ADD`) or `(h, l) - (th, tl)` (`!ADD`) mod 2^128,
/// on 64-bit halves with an explicit carry.
#[inline(always)]
fn add128<const ADD: bool>(h: u64, l: u64, th: u64, tl: u64) -> (u64, u64) {
    if ADD {
        let (s, c) = l.overflowing_add(tl);
        (h.wrapping_add(th).wrapping_add(c as u64), s)
    } else {
        let (s, b) = l.overflowing_sub(tl);
        (h.wrapping_sub(th).wrapping_sub(b as u64), s)
    }
}

/// `out[j] = x[j] + (hi[j], lo[j])` (`ADD`) or `x[j] - (hi[j], lo[j])`
/// (`!ADD`), mod 2^128 on big-endian blocks, one block at a time: the
/// short runs' path.
#[inline(always)]
fn add_halves<const ADD: bool>(hi: &[u64], lo: &[u64], x: &[Block], out: &mut [Block]) {
    for (((x, o), th), tl) in x.iter().zip(out.iter_mut()).zip(hi).zip(lo) {
        let (xh, xl) = be_halves(x);
        let (zh, zl) = add128::<ADD>(xh, xl, *th, *tl);
        *o = from_halves(zh, zl);
    }
}

/// The byte swap of a 32-bit word as two rotations and a bitwise select
/// on `mask = 0x00ff_00ff` (three AVX-512F instructions per sixteen words).
/// With the mask a visible constant the compiler would recognise a byte
/// swap and, lacking AVX-512BW's 512-bit byte shuffle, emit 256-bit
/// shuffles, inserts and extracts, all on one execution port.
#[inline(always)]
fn bswap32(w: u32, mask: u32) -> u32 {
    let a = w.rotate_left(8); // bytes 3, 1 land in place
    let b = w.rotate_left(24); // bytes 2, 0 land in place
    b ^ ((a ^ b) & mask)
}

/// `out[j] = x[j] + (hi[j], lo[j])` (`ADD`) or `x[j] - (hi[j], lo[j])`
/// (`!ADD`) for a full batch, in fixed-length passes the compiler
/// vectorizes: the byte-swapped 32-bit words of the batch, paired into
/// 64-bit halves (high word first), the 128-bit additions, and back.
///
/// The scratch arrays are not wiped: the optimiser keeps them in vector
/// registers (they never reach memory as arrays), and a wipe would force
/// them to the stack, which measured 15-35% slower. The buffers the modes
/// own (chaining values, batches, offset tables) are wiped.
#[inline(always)]
fn add_batch<const ADD: bool>(
    hi: &[u64; BATCH],
    lo: &[u64; BATCH],
    mask: u32,
    x: &[Block; BATCH],
    out: &mut [Block; BATCH],
) {
    // Block j is w[4j] (most significant) .. w[4j + 3].
    let mut w = [0u32; 4 * BATCH];
    let (words, _) = x.as_flattened().as_chunks::<4>();
    for (w, b) in w.iter_mut().zip(words) {
        *w = bswap32(u32::from_ne_bytes(*b), mask);
    }
    let mut h = [0u64; BATCH];
    let mut l = [0u64; BATCH];
    for j in 0..BATCH {
        // (high word, low word): a 64-bit lane rotated by 32, which the
        // compiler folds into one permute of 32-bit lanes.
        h[j] = ((w[4 * j + 1] as u64) << 32 | w[4 * j] as u64).rotate_left(32);
        l[j] = ((w[4 * j + 3] as u64) << 32 | w[4 * j + 2] as u64).rotate_left(32);
    }
    for j in 0..BATCH {
        (h[j], l[j]) = add128::<ADD>(h[j], l[j], hi[j], lo[j]);
    }
    for j in 0..BATCH {
        let (a, b) = (h[j].rotate_left(32), l[j].rotate_left(32));
        w[4 * j] = a as u32;
        w[4 * j + 1] = (a >> 32) as u32;
        w[4 * j + 2] = b as u32;
        w[4 * j + 3] = (b >> 32) as u32;
    }
    let (words, _) = out.as_flattened_mut().as_chunks_mut::<4>();
    for (b, w) in words.iter_mut().zip(w.iter()) {
        *b = bswap32(*w, mask).to_ne_bytes();
    }
}

impl Offsets {
    /// The offsets for `r0` (the table is filled lazily).
    #[inline]
    pub(crate) fn new(r0: u128) -> Self {
        Self {
            r0,
            hi: [0; BATCH],
            lo: [0; BATCH],
            pos: 0,
            len: 0,
            mask: core::hint::black_box(0x00ff_00ff),
        }
    }

    /// r0.
    #[inline(always)]
    pub(crate) fn r0(&self) -> u128 {
        self.r0
    }

    /// Make the table hold the offsets of blocks `first .. first + k`
    /// (`k <= BATCH`) from entry 0 on.
    #[inline(always)]
    fn seek(&mut self, first: u128, k: usize) {
        if first == self.pos && k <= self.len {
            return;
        }
        if self.len == BATCH && first == self.pos.wrapping_add(BATCH as u128) {
            self.advance();
        } else {
            self.fill(first, k);
        }
    }

    /// The next batch: every entry plus `BATCH * r0`, one vectorized pass.
    #[inline(always)]
    fn advance(&mut self) {
        let step = self.r0.wrapping_mul(BATCH as u128);
        let (sh, sl) = ((step >> 64) as u64, step as u64);
        for (h, l) in self.hi.iter_mut().zip(self.lo.iter_mut()) {
            (*h, *l) = add128::<true>(*h, *l, sh, sl);
        }
        self.pos = self.pos.wrapping_add(BATCH as u128);
    }

    /// Fill entries `0 .. k` from scratch for blocks `first ..`: entry 0,
    /// then entries `n .. 2n` as entries `0 .. n` plus `n * r0`, doubling
    /// (vectorized passes instead of a serial chain of 128-bit additions).
    #[inline(never)]
    fn fill(&mut self, first: u128, k: usize) {
        let k = k.clamp(1, BATCH);
        let base = self.r0.wrapping_mul(first);
        (self.hi[0], self.lo[0]) = ((base >> 64) as u64, base as u64);
        let mut n = 1;
        while n < k {
            let m = n.min(k - n);
            let step = self.r0.wrapping_mul(n as u128);
            let (sh, sl) = ((step >> 64) as u64, step as u64);
            let (hi_src, hi_dst) = self.hi.split_at_mut(n);
            let (lo_src, lo_dst) = self.lo.split_at_mut(n);
            let src = hi_src.iter().zip(lo_src.iter());
            let dst = hi_dst[..m].iter_mut().zip(lo_dst[..m].iter_mut());
            for ((h, l), (sh0, sl0)) in dst.zip(src) {
                (*h, *l) = add128::<true>(*sh0, *sl0, sh, sl);
            }
            n += m;
        }
        self.pos = first;
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
        let n = input.len().min(out.len());
        let mut done = 0;
        while done < n {
            let k = (n - done).min(BATCH);
            self.apply_run::<ADD>(
                first.wrapping_add(done as u128),
                &input[done..done + k],
                &mut out[done..done + k],
            );
            done += k;
        }
    }

    /// As [`apply`](Self::apply) for one run of at most [`BATCH`] blocks.
    #[inline(always)]
    fn apply_run<const ADD: bool>(&mut self, first: u128, input: &[Block], out: &mut [Block]) {
        let k = input.len().min(out.len()).min(BATCH);
        self.seek(first, k);
        let full = (
            <&[Block; BATCH]>::try_from(input),
            <&mut [Block; BATCH]>::try_from(&mut *out),
        );
        if let (Ok(x), Ok(o)) = full {
            add_batch::<ADD>(&self.hi, &self.lo, self.mask, x, o);
        } else {
            let (hi, lo) = (&self.hi[..k], &self.lo[..k]);
            add_halves::<ADD>(hi, lo, &input[..k], &mut out[..k]);
        }
    }
}

/// The offsets `i * r0^(l)` of up to [`BATCH`] chains in lock step, all at
/// the same index i (pXCBC's segments, lane l with its own r0^(l)), as
/// high and low 64-bit halves; the next index adds every lane's r0^(l) in
/// one vectorized pass.
pub(crate) struct LaneOffsets {
    step_hi: [u64; BATCH],
    step_lo: [u64; BATCH],
    hi: [u64; BATCH],
    lo: [u64; BATCH],
    /// The index the table holds.
    i: u128,
    /// `0x00ff_00ff`, hidden from the optimiser (see [`bswap32`]).
    mask: u32,
}

impl LaneOffsets {
    /// An empty table.
    pub(crate) fn new() -> Self {
        Self {
            step_hi: [0; BATCH],
            step_lo: [0; BATCH],
            hi: [0; BATCH],
            lo: [0; BATCH],
            i: 0,
            mask: core::hint::black_box(0x00ff_00ff),
        }
    }

    /// Lanes `0 .. BATCH` with `r0^(l) = first + l`, at index 0.
    pub(crate) fn start(&mut self, first: u128) {
        let (fh, fl) = ((first >> 64) as u64, first as u64);
        let steps = self.step_hi.iter_mut().zip(self.step_lo.iter_mut());
        for (l, (h, lo)) in steps.enumerate() {
            (*h, *lo) = add128::<true>(fh, fl, 0, l as u64);
        }
        self.hi.fill(0);
        self.lo.fill(0);
        self.i = 0;
    }

    /// Move the table to index `i`.
    #[inline(always)]
    pub(crate) fn seek(&mut self, i: u128) {
        if i == self.i.wrapping_add(1) {
            let rows = self.hi.iter_mut().zip(self.lo.iter_mut());
            for ((h, l), (sh, sl)) in rows.zip(self.step_hi.iter().zip(&self.step_lo)) {
                (*h, *l) = add128::<true>(*h, *l, *sh, *sl);
            }
        } else if i != self.i {
            let rows = self.hi.iter_mut().zip(self.lo.iter_mut());
            for ((h, l), (sh, sl)) in rows.zip(self.step_hi.iter().zip(&self.step_lo)) {
                let r = ((*sh as u128) << 64 | *sl as u128).wrapping_mul(i);
                (*h, *l) = ((r >> 64) as u64, r as u64);
            }
        }
        self.i = i;
    }

    /// `y[j] = z[j] + i * r0^(lane0 + j)` (mod 2^128, big-endian blocks).
    #[inline(always)]
    pub(crate) fn add(&self, lane0: usize, z: &[Block], y: &mut [Block]) {
        let full = (
            <&[Block; BATCH]>::try_from(z),
            <&mut [Block; BATCH]>::try_from(&mut *y),
        );
        if let (0, (Ok(z), Ok(y))) = (lane0, full) {
            add_batch::<true>(&self.hi, &self.lo, self.mask, z, y);
            return;
        }
        let k = z.len().min(y.len()).min(BATCH.saturating_sub(lane0));
        let (hi, lo) = (&self.hi[lane0..lane0 + k], &self.lo[lane0..lane0 + k]);
        add_halves::<true>(hi, lo, &z[..k], &mut y[..k]);
    }
}

impl Drop for LaneOffsets {
    fn drop(&mut self) {
        for t in [
            &mut self.step_hi,
            &mut self.step_lo,
            &mut self.hi,
            &mut self.lo,
        ] {
            t.fill(0);
            zeroize::optimization_barrier(t);
        }
    }
}

/// `out[j] ^= b[j]` for every j, then `sum ^= out[j]`: two plain passes,
/// so the sum's accumulator stays in a register (in the same loop as the
/// stores the compiler keeps it on the stack and every step waits on store
/// forwarding).
#[inline(always)]
pub(crate) fn xor_in_and_sum(out: &mut [Block], b: &[Block], sum: &mut Block) {
    let n = b.len().min(out.len());
    let out = &mut out[..n];
    let (b4, b_rest) = b[..n].as_flattened().as_chunks::<64>();
    let (o4, o_rest) = out.as_flattened_mut().as_chunks_mut::<64>();
    for (o, b) in o4.iter_mut().zip(b4) {
        for t in 0..64 {
            o[t] ^= b[t];
        }
    }
    for (o, b) in o_rest.iter_mut().zip(b_rest) {
        *o ^= b;
    }
    xor_into(out, sum);
}

/// `sum ^= blocks[0] xor blocks[1] xor ...`, four blocks (one 512-bit
/// vector) at a time into a register accumulator.
///
/// The accumulator is folded through memory (`black_box`): folded in
/// registers, the compiler rebuilds its lanes byte by byte when the length
/// is not a compile-time constant.
#[inline(always)]
pub(crate) fn xor_into(blocks: &[Block], sum: &mut Block) {
    let (b4, rest) = blocks.as_flattened().as_chunks::<64>();
    let mut acc = [0u8; 64];
    for c in b4 {
        for (a, b) in acc.iter_mut().zip(c) {
            *a ^= b;
        }
    }
    let acc = core::hint::black_box(acc);
    let (lanes, _) = acc.as_chunks::<16>();
    let (rest, _) = rest.as_chunks::<16>();
    let mut s = u128::from_ne_bytes(*sum);
    for b in lanes.iter().chain(rest) {
        s ^= u128::from_ne_bytes(*b);
    }
    *sum = s.to_ne_bytes();
}

impl Drop for Offsets {
    fn drop(&mut self) {
        // A vectorized wipe (`Zeroize` would store one word at a time).
        self.r0 = 0;
        self.pos = 0;
        self.hi.fill(0);
        self.lo.fill(0);
        zeroize::optimization_barrier(&self.r0);
        zeroize::optimization_barrier(&self.hi);
        zeroize::optimization_barrier(&self.lo);
    }
}

pub(crate) use crate::oracle::scratch::wipe;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::modular::{to_block, to_int};

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
    fn xor_in_and_sum_matches() {
        for n in [0usize, 1, 3, 4, 5, 63, 64, 65] {
            let b: Vec<Block> = (0..n).map(|j| [(j * 7 + 1) as u8; 16]).collect();
            let mut out: Vec<Block> = (0..n).map(|j| [(j * 3) as u8; 16]).collect();
            let want_out: Vec<Block> = (0..n)
                .map(|j| crate::arith::gf128::xor(&out[j], &b[j]))
                .collect();
            let mut sum = [0x5a; 16];
            xor_in_and_sum(&mut out, &b, &mut sum);
            let mut want = [0x5a; 16];
            for x in &want_out {
                crate::arith::gf128::xor_in_place(&mut want, x);
            }
            assert_eq!((out, sum), (want_out, want));
        }
    }

    /// The lock-step offsets against `i * r0^(l)` computed directly, through
    /// consecutive indices, jumps, wrap-around steps, full and partial sets
    /// of lanes.
    #[test]
    fn lane_offsets_match_the_definition() {
        let mut t = LaneOffsets::new();
        for first in [
            1u128,
            0x0123_4567_89ab_cdef_0011_2233_4455_6677,
            u128::MAX - 20,
        ] {
            t.start(first);
            for i in [1u128, 2, 3, 7, 8, 9, 1 << 40, (1 << 40) + 1] {
                t.seek(i);
                let z: Vec<Block> = (0..BATCH)
                    .map(|l| to_block((l as u128).wrapping_mul(u128::MAX / 11).wrapping_add(i)))
                    .collect();
                for (lane0, k) in [(0usize, BATCH), (0, 5), (3, 17), (60, 4)] {
                    let mut y = vec![[0u8; 16]; k];
                    t.add(lane0, &z[..k], &mut y);
                    for (j, y) in y.iter().enumerate() {
                        let r0 = first.wrapping_add((lane0 + j) as u128);
                        let want = to_int(&z[j]).wrapping_add(i.wrapping_mul(r0));
                        assert_eq!(to_int(y), want, "first {first:x} i {i} lane {}", lane0 + j);
                    }
                }
            }
        }
    }

    #[test]
    fn xor_into_matches() {
        for n in (0usize..10).chain([63, 64, 65, 67, 130]) {
            let b: Vec<Block> = (0..n).map(|j| [(j * 13 + 5) as u8; 16]).collect();
            let mut sum = [1; 16];
            xor_into(&b, &mut sum);
            let mut want = [1; 16];
            for x in &b {
                crate::arith::gf128::xor_in_place(&mut want, x);
            }
            assert_eq!(sum, want);
        }
    }
}
