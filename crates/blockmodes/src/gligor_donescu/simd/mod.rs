//! The XCBC family's whitening on AVX-512 (F, BW, VBMI): the one module of
//! the family with `unsafe` code.
//!
//! # What it does
//!
//! * [`Avx512::apply`]: `out[j] = x[j] + (first + j) * r0` (or minus) on
//!   big-endian blocks, eight blocks per step: two `vpermt2b` (AVX-512
//!   VBMI) turn two vectors of four big-endian blocks into one vector of
//!   the eight high halves and one of the eight low halves as integers;
//!   the 128-bit addition is `vpaddq` on both, the low halves' carry an
//!   unsigned compare into a mask on the same lanes (`vpcmpuq`) and a
//!   masked `vpsubq` of -1 on the high halves; two more `vpermt2b` put the
//!   blocks back. The offsets of sixteen blocks live in two such
//!   (high, low) pairs, built once per call from `first * r0` and
//!   advanced by `16 r0`. A run that is not a multiple of sixteen blocks
//!   ends with masked loads and stores.
//! * [`Avx512::xor_in_and_sum`] and [`Avx512::xor_into`]: the xor passes
//!   of XCBC decryption (`x_i = f^-1(z_i) xor z_{i-1}` and its check
//!   sum) and of XECB (`w ^= y_i`), with the sums in registers.
//! * [`Avx512::gather_xor_sum`] and [`Avx512::add_scatter`]: pXCBC's
//!   lock-step rounds, the blocks of 64 segments at a stride of S (+ 1)
//!   blocks, four lanes per vector (the rounds the tiles below leave:
//!   the check round, S mod 4 rounds, a short last segment).
//! * pXCBC's tile path, which moves whole vectors instead of single
//!   blocks: [`Avx512::transpose_in`] turns four rounds of the segments'
//!   message blocks (each lane's four blocks are one 64-byte run) into
//!   round-major rows, 4x4 tiles of 128-bit lanes at a time (two
//!   256-bit halves per `vinserti64x4` from memory, then four
//!   `vshufi64x2`), with the check sums in the same pass; each round is
//!   then one contiguous [`Avx512::xor_blocks`]. [`Avx512::add_pairs`]
//!   takes the cipher's outputs of two rounds at once: the `vpermt2b`
//!   pair that byte-swaps four lanes of rounds i and i + 1 into (high,
//!   low) halves and back also transposes them, so each lane's
//!   `y_i || y_{i+1}` leaves as one 32-byte store; the offsets
//!   `i r0^(s)` advance by additions ([`PairSteps`]).
//!
//! The callers run these over whole chunks of a message between calls of
//! the cipher (XECB-MAC: offsets pass, cipher pass, xor pass per 256
//! blocks; XCBC decryption likewise), or once per lock-step round
//! (pXCBC). Inside the `aes` crate's backend closures, compiled with
//! AVX-512F only, the portable code (`super::offsets`) byte-swaps with
//! rotates and masks and pairs words with permutes; and whitening
//! interleaved with the cipher per 64-block batch competes with the
//! 512-bit AES rounds for the same two vector ports without overlapping
//! them (measured: the AES time and the whitening time add up).
//!
//! No branch or memory index depends on r0, the keys or the data: the
//! only branches and indices are on lengths and strides.
//!
//! # Why `unsafe`
//!
//! * The kernels are compiled with `#[target_feature(enable = ...)]`;
//!   calling them is `unsafe` because the CPU must have those features.
//!   An [`Avx512`] value exists only after [`Avx512::detect`] found them:
//!   it is the proof, and its methods are the safe entry points.
//! * Vector loads and stores take raw pointers: each full one covers
//!   blocks inside the slices it comes from, each masked one only the
//!   blocks of its slice.
//!
//! # The benchmark that justified it
//!
//! In `docs/performance.md`, section "The generic path's AVX-512
//! kernels"; the steps and what was dropped in
//! `docs/lab/2026-11-24-generic-avx512-kernels.md`.

#![allow(unsafe_code)]

use crate::arith::gf128::Block;

/// The lanes of one pXCBC tile row (one backend width).
pub(crate) const TILE_LANES: usize = 64;

/// Four rounds of [`TILE_LANES`] lanes, round-major (row k = round j + k).
pub(crate) type Rows = [[Block; TILE_LANES]; 4];

/// The offsets of pXCBC's paired output rounds (see
/// [`Avx512::add_pairs`]), as eight 128-bit values split into a row of
/// high and a row of low 64-bit halves, element `e` = lane `e mod 4` of
/// round `i` (`e < 4`) or of round `i + 1` (`e >= 4`): `off` holds lanes
/// 0 .. 4's offsets `i r0^(s)`, `(i + 1) r0^(s)`; `quad` what four lanes
/// further adds (`4 i`, `4 (i + 1)`); `next` what two rounds further adds
/// to `off` (`2 r0^(s)`). r0^(s) = `first + lane`. Wiped on drop.
#[derive(Default)]
#[repr(align(64))]
pub(crate) struct PairSteps {
    off: [[u64; 8]; 2],
    quad: [[u64; 8]; 2],
    next: [[u64; 8]; 2],
}

impl PairSteps {
    /// Rounds i = 1 and 2 of lanes with r0^(s) = `first + lane`.
    pub(crate) fn start(&mut self, first: u128) {
        let set = |row: &mut [[u64; 8]; 2], v: &dyn Fn(usize) -> u128| {
            let [hi, lo] = row;
            for (e, (hi, lo)) in hi.iter_mut().zip(lo.iter_mut()).enumerate() {
                let x = v(e);
                *hi = (x >> 64) as u64;
                *lo = x as u64;
            }
        };
        let r0s = |e: usize| first.wrapping_add((e % 4) as u128);
        let round = |e: usize| 1 + (e / 4) as u128;
        set(&mut self.off, &|e| r0s(e).wrapping_mul(round(e)));
        set(&mut self.quad, &|e| 4 * round(e));
        set(&mut self.next, &|e| r0s(e).wrapping_mul(2));
    }
}

impl Drop for PairSteps {
    fn drop(&mut self) {
        for row in [&mut self.off, &mut self.quad, &mut self.next] {
            *row = [[0; 8]; 2];
            zeroize::optimization_barrier(row);
        }
    }
}

/// A token proving the CPU runs AVX-512 F, BW and VBMI (see [`Avx512::detect`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512(Private);

#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
struct Private;

/// No value: off x86-64 an [`Avx512`] token cannot exist.
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
enum Private {}

#[cfg(target_arch = "x86_64")]
cpufeatures::new!(cpu_avx512_vbmi, "avx512f", "avx512bw", "avx512vbmi");

impl Avx512 {
    /// The token, if this CPU has AVX-512 F, BW and VBMI (the feature check is
    /// cached by `cpufeatures`: one atomic load).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        if crate::backend::ISLANDS_OFF.load(core::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        {
            if cpu_avx512_vbmi::get() {
                return Some(Self(Private));
            }
        }
        None
    }

    /// `out[j] = x[j] + (first + j) * r0` (`ADD`) or
    /// `out[j] = x[j] - (first + j) * r0` (`!ADD`), mod 2^128 on big-endian
    /// blocks, for every `j < min(x.len(), out.len())`.
    #[inline]
    pub(crate) fn apply<const ADD: bool>(
        self,
        r0: u128,
        first: u128,
        x: &[Block],
        out: &mut [Block],
    ) {
        #[cfg(target_arch = "x86_64")]
        {
            let Self(Private) = self;
            // SAFETY: an `Avx512` value is only made by `detect`, after the
            // CPU reported AVX-512 F, BW and VBMI, the features
            // `apply_avx512` is compiled with.
            unsafe { x86::apply_avx512::<ADD>(r0, first, x, out) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (r0, first, x, out);
            match self.0 {}
        }
    }

    /// `sum ^= blocks[0] xor blocks[1] xor ...`, four accumulators of four
    /// blocks each.
    #[inline]
    pub(crate) fn xor_into(self, blocks: &[Block], sum: &mut Block) {
        #[cfg(target_arch = "x86_64")]
        {
            let Self(Private) = self;
            // SAFETY: as in `apply`: the token proves the CPU features.
            unsafe { x86_xor::xor_into_avx512(blocks, sum) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (blocks, sum);
            match self.0 {}
        }
    }

    /// pXCBC's lock-step gather: for lane `l < n`, with
    /// `x_l = src[l * stride]`, `blocks[l] = prev[l] xor x_l` and
    /// `sums[l] ^= x_l`; `n` is the shortest of `prev`, `blocks`, `sums`
    /// and the lanes `src` holds.
    #[inline]
    pub(crate) fn gather_xor_sum(
        self,
        src: &[Block],
        stride: usize,
        prev: &[Block],
        blocks: &mut [Block],
        sums: &mut [Block],
    ) {
        #[cfg(target_arch = "x86_64")]
        {
            let Self(Private) = self;
            // SAFETY: as in `apply`: the token proves the CPU features.
            unsafe { x86_lanes::gather_xor_sum_avx512(src, stride, prev, blocks, sums) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (src, stride, prev, blocks, sums);
            match self.0 {}
        }
    }

    /// pXCBC's lock-step scatter: `dst[l * stride] = z[l] + i * (first + l)`
    /// (mod 2^128, big-endian blocks) for every lane `l < n`, `n` the
    /// shorter of `z` and the lanes `dst` holds.
    #[inline]
    pub(crate) fn add_scatter(
        self,
        i: u128,
        first: u128,
        z: &[Block],
        dst: &mut [Block],
        stride: usize,
    ) {
        #[cfg(target_arch = "x86_64")]
        {
            let Self(Private) = self;
            // SAFETY: as in `apply`: the token proves the CPU features.
            unsafe { x86::add_scatter_avx512(i, first, z, dst, stride) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (i, first, z, dst, stride);
            match self.0 {}
        }
    }

    /// pXCBC's tile input: every lane `l < lanes` (at most [`TILE_LANES`])
    /// has four consecutive blocks (rounds j .. j + 4 of one segment, one
    /// 64-byte vector): `first` for lane 0 if given, `last` for lane
    /// `lanes - 1` if given, otherwise `runs[(l - skip) * stride ..][..4]`
    /// (`skip` = 1 when `first` is given, else 0). They are transposed into
    /// `rows[k][l]` (round-major: row k holds round j + k of every lane),
    /// and their xor is xored into `sums[l]`. Lanes `lanes ..` of the last
    /// group of four get zero blocks (their sums are unchanged), as do
    /// lanes whose run `runs` does not hold.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn transpose_in(
        self,
        runs: &[Block],
        stride: usize,
        lanes: usize,
        first: Option<&[Block; 4]>,
        last: Option<&[Block; 4]>,
        rows: &mut Rows,
        sums: &mut [Block; TILE_LANES],
    ) {
        #[cfg(target_arch = "x86_64")]
        {
            let Self(Private) = self;
            // SAFETY: as in `apply`: the token proves the CPU features.
            unsafe { x86_lanes::transpose_in_avx512(runs, stride, lanes, first, last, rows, sums) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (runs, stride, lanes, first, last, rows, sums);
            match self.0 {}
        }
    }

    /// pXCBC's paired output rounds: for every lane `l < n` (`n` the
    /// shortest of `z0`, `z1` and [`TILE_LANES`]),
    /// `dst[l * stride] = z0[l] + i r0^(s)` and
    /// `dst[l * stride + 1] = z1[l] + (i + 1) r0^(s)` (mod 2^128,
    /// big-endian blocks; lanes whose two blocks `dst` does not hold are
    /// skipped), with i and r0^(s) = `first + l` from `steps`, which then
    /// advance to i + 2. The two rounds' rows become 32-byte runs of the
    /// segments in the permutations that undo the byte swap.
    #[inline]
    pub(crate) fn add_pairs(
        self,
        z0: &[Block],
        z1: &[Block],
        steps: &mut PairSteps,
        dst: &mut [Block],
        stride: usize,
    ) {
        #[cfg(target_arch = "x86_64")]
        {
            let Self(Private) = self;
            // SAFETY: as in `apply`: the token proves the CPU features.
            unsafe { x86::add_pairs_avx512(z0, z1, steps, dst, stride) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (z0, z1, steps, dst, stride);
            match self.0 {}
        }
    }

    /// `out[j] = a[j] xor b[j]` for every `j` below the shortest length
    /// (64-byte vectors, 16-byte blocks for the last `n mod 4`).
    #[inline]
    pub(crate) fn xor_blocks(self, a: &[Block], b: &[Block], out: &mut [Block]) {
        #[cfg(target_arch = "x86_64")]
        {
            let Self(Private) = self;
            // SAFETY: as in `apply`: the token proves the CPU features.
            unsafe { x86_lanes::xor_blocks_avx512(a, b, out) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (a, b, out);
            match self.0 {}
        }
    }

    /// `out[j] ^= b[j]` for every `j < min(out.len(), b.len())`, and
    /// `sum ^= out[j]` (the new value): XCBC decryption's
    /// `x_i = f^-1(z_i) xor z_{i-1}` and its check-block sum, in one pass
    /// with the sum in a register.
    #[inline]
    pub(crate) fn xor_in_and_sum(self, out: &mut [Block], b: &[Block], sum: &mut Block) {
        #[cfg(target_arch = "x86_64")]
        {
            let Self(Private) = self;
            // SAFETY: as in `apply`: the token proves the CPU features.
            unsafe { x86_xor::xor_in_and_sum_avx512(out, b, sum) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (out, b, sum);
            match self.0 {}
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(target_arch = "x86_64")]
mod x86_lanes;

#[cfg(target_arch = "x86_64")]
mod x86_xor;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::modular::{add_mod128, sub_mod128, to_block, to_int};

    #[test]
    fn xor_into_matches_the_definition() {
        let Some(simd) = Avx512::detect() else {
            return;
        };
        for n in 0..=70usize {
            let b: Vec<Block> = (0..n).map(|j| [(j * 13 + 5) as u8; 16]).collect();
            let mut want = [1; 16];
            for x in &b {
                crate::arith::gf128::xor_in_place(&mut want, x);
            }
            let mut sum = [1; 16];
            simd.xor_into(&b, &mut sum);
            assert_eq!(sum, want, "n {n}");
        }
    }

    #[test]
    fn xor_in_and_sum_matches_the_definition() {
        let Some(simd) = Avx512::detect() else {
            return;
        };
        for n in 0..=70usize {
            let b: Vec<Block> = (0..n).map(|j| [(j * 7 + 1) as u8; 16]).collect();
            let mut out: Vec<Block> = (0..=n).map(|j| [(j * 3) as u8 ^ 0x5c; 16]).collect();
            let mut want_out = out.clone();
            let mut want = [0x5a; 16];
            for j in 0..n {
                crate::arith::gf128::xor_in_place(&mut want_out[j], &b[j]);
                crate::arith::gf128::xor_in_place(&mut want, &want_out[j]);
            }
            let mut sum = [0x5a; 16];
            simd.xor_in_and_sum(&mut out[..n], &b, &mut sum);
            assert_eq!((out, sum), (want_out, want), "n {n}");
        }
    }

    /// pXCBC's paired output rounds against the definition
    /// (`y = z + i (first + l)`, `add_mod128`) for 0 ..= 70 lanes, two
    /// pairs of rounds in a row (the offsets advance), strides of 2 to 17
    /// blocks; nothing else in `dst` is written.
    #[test]
    fn add_pairs_matches_the_definition() {
        let Some(simd) = Avx512::detect() else {
            return;
        };
        let z: Vec<Block> = (0..140u128)
            .map(|j| to_block(j.wrapping_mul(u128::MAX / 7) ^ (j << 100)))
            .collect();
        for first in [1u128, u128::MAX - 3, u64::MAX as u128] {
            for stride in [2usize, 3, 5, 17] {
                for n in 0..=70usize {
                    let mut steps = PairSteps::default();
                    steps.start(first);
                    let mut dst = vec![[0xa5u8; 16]; n * stride + 4];
                    let mut want = dst.clone();
                    for pair in 0..2usize {
                        let (z0, z1) = (&z[..n], &z[70..70 + n]);
                        let at = 2 * pair;
                        simd.add_pairs(z0, z1, &mut steps, &mut dst[at..], stride);
                        // At most one row of lanes is taken.
                        for l in 0..n.min(TILE_LANES) {
                            let r0s = first.wrapping_add(l as u128);
                            for (k, zk) in [z0[l], z1[l]].iter().enumerate() {
                                let i = (at + k + 1) as u128;
                                let off = to_block(i.wrapping_mul(r0s));
                                want[at + l * stride + k] = add_mod128(zk, &off);
                            }
                        }
                        assert_eq!(dst, want, "first {first} stride {stride} n {n} pair {pair}");
                    }
                }
            }
        }
    }

    /// Issue 13, finding 4: a stride whose lane offsets overflow `usize`
    /// takes the checked stores (lanes outside `dst` are skipped), never
    /// the unchecked ones. Before the fix the guard read an overflow as
    /// "inside" and stored far outside `dst`.
    #[test]
    fn add_pairs_with_an_overflowing_stride_stays_inside() {
        let Some(simd) = Avx512::detect() else {
            return;
        };
        let z: Vec<Block> = (0..8u128).map(to_block).collect();
        for stride in [usize::MAX / 2 + 1, usize::MAX / 3, usize::MAX] {
            let mut steps = PairSteps::default();
            steps.start(1);
            let mut dst = vec![[0xa5u8; 16]; 4];
            simd.add_pairs(&z[..4], &z[4..], &mut steps, &mut dst, stride);
            // Lane 0 is at offset 0: written; every other lane is outside.
            let off = |i: u128| to_block(i);
            assert_eq!(dst[0], add_mod128(&z[0], &off(1)));
            assert_eq!(dst[1], add_mod128(&z[4], &off(2)));
            assert_eq!(dst[2..], [[0xa5u8; 16]; 2]);
        }
    }

    /// pXCBC's tile input against the definition: `rows[k][l]` = block k
    /// of lane l's run, sums xored with the four; edge runs for the first
    /// and last lane; 1 ..= 70 lanes (at most 64 taken).
    #[test]
    fn transpose_in_matches_the_definition() {
        let Some(simd) = Avx512::detect() else {
            return;
        };
        let src: Vec<Block> = (0..70 * 9 + 4).map(|j| [(j * 11 + 3) as u8; 16]).collect();
        let edge_a = [[0xe1u8; 16], [0xe2; 16], [0xe3; 16], [0xe4; 16]];
        let edge_b = [[0xf1u8; 16], [0xf2; 16], [0xf3; 16], [0xf4; 16]];
        for stride in [4usize, 5, 9] {
            for lanes in 1..=70usize {
                for (first, last) in [
                    (None, None),
                    (Some(&edge_a), None),
                    (None, Some(&edge_b)),
                    (Some(&edge_a), Some(&edge_b)),
                ] {
                    let mut rows: Rows = [[[0x77; 16]; TILE_LANES]; 4];
                    let mut sums = [[0x3cu8; 16]; TILE_LANES];
                    let n = lanes.min(TILE_LANES);
                    let skip = usize::from(first.is_some());
                    let runs = &src[..(n - skip) * stride + 4];
                    simd.transpose_in(runs, stride, lanes, first, last, &mut rows, &mut sums);
                    for l in 0..n {
                        let run: [Block; 4] = match (first, last) {
                            (Some(f), _) if l == 0 => *f,
                            (_, Some(e)) if l + 1 == n => *e,
                            _ => core::array::from_fn(|k| src[(l - skip) * stride + k]),
                        };
                        let mut sum = [0x3cu8; 16];
                        for (k, b) in run.iter().enumerate() {
                            assert_eq!(rows[k][l], *b, "stride {stride} lanes {lanes} l {l} k {k}");
                            crate::arith::gf128::xor_in_place(&mut sum, b);
                        }
                        assert_eq!(sums[l], sum, "stride {stride} lanes {lanes} l {l}");
                    }
                }
            }
        }
    }

    #[test]
    fn apply_matches_the_definition_at_every_length() {
        let Some(simd) = Avx512::detect() else {
            return;
        };
        let input: Vec<Block> = (0..131u128)
            .map(|j| to_block(j.wrapping_mul(u128::MAX / 13) ^ (j << 120)))
            .collect();
        for (r0, first) in [
            (1u128, 0u128),
            (u128::MAX, 1),
            (0x0123_4567_89ab_cdef_fedc_ba98_7654_3210, u128::MAX - 40),
            (u64::MAX as u128, (u64::MAX as u128) - 3),
        ] {
            for n in 0..=130usize {
                let mut out = vec![[0xa5u8; 16]; n + 1];
                simd.apply::<true>(r0, first, &input[..n], &mut out[..n]);
                for j in 0..n {
                    let off = to_block(first.wrapping_add(j as u128).wrapping_mul(r0));
                    assert_eq!(out[j], add_mod128(&input[j], &off), "n {n} j {j}");
                }
                assert_eq!(out[n], [0xa5; 16], "wrote past the run");
                simd.apply::<false>(r0, first, &input[..n], &mut out[..n]);
                for j in 0..n {
                    let off = to_block(first.wrapping_add(j as u128).wrapping_mul(r0));
                    assert_eq!(out[j], sub_mod128(&input[j], &off), "n {n} j {j}");
                    let _ = to_int(&out[j]);
                }
                assert_eq!(out[n], [0xa5; 16], "wrote past the run");
            }
        }
    }
}
