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
//! AES-128, 16 KiB messages, one core, minimum over 3000 samples of 8
//! calls each (a harness calling the public API; the `bench` command's
//! medians moved by +-15% while other builds shared the 2 cores), before
//! (the portable whitening interleaved per batch) -> after:
//!
//! ```text
//! ecb                      857 ns
//! xcbc-xor-decrypt        2305 ns (0.37x ECB) -> 1687 ns (0.51x)
//! xecb-mac (OS CSPRNG r0) 1999 ns (0.43x)     -> 1727 ns (0.50x)
//! xecb-mac-ctr            1684 ns (0.51x)     -> 1454 ns (0.59x)
//! xecb verify             1686 ns (0.51x)     -> 1475 ns (0.58x)
//! pxcbc-xor-ctr, S = 16   3613 ns (0.24x)     -> 2955 ns (0.29x)
//! ```
//!
//! pXCBC's tile path (same harness, quiet machine, ECB 857 ns): the
//! per-block gathers and scatters 2985 ns (0.29x) -> 4x4 tiles in,
//! round-major y rows tiled out every fourth round 3250 ns (slower: the
//! per-call offset set-up and a second 4 KiB buffer) -> y of two rounds
//! per `vpermt2b` pair, stored as 32-byte runs 2720 ns -> three-batch
//! ring in `encrypt_chains` (no copy of the even round) and loops without
//! per-lane bounds checks 2615-2645 ns -> the short last segment as one
//! serial chain (no lock step of one lane) 2580 ns (0.33x; the `bench`
//! command: pxcbc-xor-ctr-encrypt 0.28x -> 0.35-0.36x ECB at 16 KiB,
//! pxcbc-xor-encrypt, which adds an OS CSPRNG call, 0.25x -> 0.30x).
//! Tried and dropped: masked 512-bit stores instead of `vextracti64x4`
//! for the upper halves (2725 ns); handing round r - 1's outputs over
//! before round r's cipher call instead of after it (2586 ns, no change).
//! Switching parts off shows the work adds up rather than overlapping the
//! cipher (a 64-block call is 160 `vaesenc` on one port, queued ahead of
//! whatever follows): without `add_pairs` about -550 ns, without the
//! input transposition about -450 ns; what is left (the cipher's
//! lock-step rounds, the check round, buffer set-up and wiping) is about
//! 1500 ns, so 0.4x (2140 ns) would need the whitening at a fifth of its
//! present cost.
//!
//! The first step, the same offset arithmetic on AVX-512BW inside the
//! interleaved batches (one `vpshufb` per four blocks), gained nothing
//! for XECB (1731 ns) and little for decryption (1973 ns): the passes of
//! their own made the difference.

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

impl Avx512 {
    /// The token, if this CPU has AVX-512 F, BW and VBMI (the feature check is
    /// cached by the standard library: one atomic load).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vbmi")
            {
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
mod x86 {
    use core::arch::x86_64::{
        __m512i, _mm_storeu_si128, _mm256_storeu_si256, _mm512_add_epi64, _mm512_castsi512_si256,
        _mm512_cmplt_epu64_mask, _mm512_extracti32x4_epi32, _mm512_extracti64x4_epi64,
        _mm512_loadu_si512, _mm512_mask_add_epi64, _mm512_mask_storeu_epi64, _mm512_mask_sub_epi64,
        _mm512_maskz_loadu_epi64, _mm512_permutex2var_epi8, _mm512_set1_epi64,
        _mm512_setzero_si512, _mm512_storeu_si512, _mm512_sub_epi64,
    };

    use super::{PairSteps, TILE_LANES};
    use crate::arith::gf128::Block;

    /// Byte indices of `vpermt2b` over two vectors of four big-endian
    /// blocks (blocks 0..4 in the first, 4..8 in the second): 64-bit lane
    /// k receives block k's low half (`LOW`) or high half, as a
    /// little-endian integer.
    const fn gather_idx(low: bool) -> [u8; 64] {
        let mut t = [0u8; 64];
        let mut i = 0;
        while i < 64 {
            let (k, m) = (i / 8, i % 8);
            let byte = if low { 15 - m } else { 7 - m };
            t[i] = (64 * (k / 4) + 16 * (k % 4) + byte) as u8;
            i += 1;
        }
        t
    }

    /// Byte indices of `vpermt2b` over (high halves, low halves) that
    /// rebuild big-endian blocks `4 * part .. 4 * part + 4`.
    const fn scatter_idx(part: usize) -> [u8; 64] {
        let mut t = [0u8; 64];
        let mut i = 0;
        while i < 64 {
            let (k, b) = (4 * part + i / 16, i % 16);
            t[i] = if b < 8 {
                (8 * k + 7 - b) as u8
            } else {
                (64 + 8 * k + 15 - b) as u8
            };
            i += 1;
        }
        t
    }

    static GATHER_LO: [u8; 64] = gather_idx(true);
    static GATHER_HI: [u8; 64] = gather_idx(false);
    static SCATTER_0: [u8; 64] = scatter_idx(0);
    static SCATTER_1: [u8; 64] = scatter_idx(1);

    /// The four permutations and all-ones.
    #[derive(Clone, Copy)]
    struct Consts {
        lo: __m512i,
        hi: __m512i,
        out0: __m512i,
        out1: __m512i,
        m1: __m512i,
    }

    /// Eight 128-bit values as (high halves, low halves), value k in 64-bit
    /// lane k.
    #[derive(Clone, Copy)]
    struct Soa {
        hi: __m512i,
        lo: __m512i,
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load_idx(t: &[u8; 64]) -> __m512i {
        // SAFETY: `t` is 64 bytes.
        unsafe { _mm512_loadu_si512(t.as_ptr().cast()) }
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn soa(v: &[u128; 8]) -> Soa {
        let hi = v.map(|x| (x >> 64) as u64);
        let lo = v.map(|x| x as u64);
        // SAFETY: both arrays are 64 bytes.
        unsafe {
            Soa {
                hi: _mm512_loadu_si512(hi.as_ptr().cast()),
                lo: _mm512_loadu_si512(lo.as_ptr().cast()),
            }
        }
    }

    /// `a + b` (`ADD`) or `a - b` mod 2^128 in each of the eight lanes:
    /// the carry (borrow) of the low halves is a compare mask on the same
    /// lanes of the high halves.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn add_soa<const ADD: bool>(a: Soa, b: Soa, m1: __m512i) -> Soa {
        if ADD {
            let lo = _mm512_add_epi64(a.lo, b.lo);
            let carry = _mm512_cmplt_epu64_mask(lo, b.lo);
            let hi = _mm512_add_epi64(a.hi, b.hi);
            Soa {
                hi: _mm512_mask_sub_epi64(hi, carry, hi, m1),
                lo,
            }
        } else {
            let lo = _mm512_sub_epi64(a.lo, b.lo);
            let borrow = _mm512_cmplt_epu64_mask(a.lo, b.lo);
            let hi = _mm512_sub_epi64(a.hi, b.hi);
            Soa {
                hi: _mm512_mask_add_epi64(hi, borrow, hi, m1),
                lo,
            }
        }
    }

    /// Eight blocks (`v0`: blocks 0..4, `v1`: 4..8) plus or minus `off`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vbmi")]
    fn eight<const ADD: bool>(v0: __m512i, v1: __m512i, off: Soa, c: Consts) -> (__m512i, __m512i) {
        let x = Soa {
            hi: _mm512_permutex2var_epi8(v0, c.hi, v1),
            lo: _mm512_permutex2var_epi8(v0, c.lo, v1),
        };
        let z = add_soa::<ADD>(x, off, c.m1);
        (
            _mm512_permutex2var_epi8(z.hi, c.out0, z.lo),
            _mm512_permutex2var_epi8(z.hi, c.out1, z.lo),
        )
    }

    /// The 64-bit-lane mask of the first `blocks` (at most 4) blocks of a vector.
    #[inline(always)]
    fn lanes(blocks: usize) -> u8 {
        ((1u16 << (2 * blocks.min(4))) - 1) as u8
    }

    /// The lanes `dst` holds at a stride of `stride` blocks.
    #[inline(always)]
    fn strided_lanes(len: usize, stride: usize) -> usize {
        if len == 0 {
            0
        } else {
            (len - 1) / stride.max(1) + 1
        }
    }

    /// Store the four blocks of `v` to `dst[0]`, `dst[stride]`, ... (`k <= 4`
    /// of them; `dst.len() > (k - 1) * stride` is checked by the caller).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn scatter4(v: __m512i, dst: &mut [Block], stride: usize, k: usize) {
        let lanes = [
            _mm512_extracti32x4_epi32::<0>(v),
            _mm512_extracti32x4_epi32::<1>(v),
            _mm512_extracti32x4_epi32::<2>(v),
            _mm512_extracti32x4_epi32::<3>(v),
        ];
        for (l, x) in lanes.iter().enumerate().take(k) {
            if let Some(d) = dst.get_mut(l * stride) {
                // SAFETY: `d` is one 16-byte block: unaligned 128-bit store.
                unsafe { _mm_storeu_si128(d.as_mut_ptr().cast(), *x) };
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) fn add_scatter_avx512(
        i: u128,
        first: u128,
        z: &[Block],
        dst: &mut [Block],
        stride: usize,
    ) {
        let n = z.len().min(strided_lanes(dst.len(), stride));
        let z = &z[..n];
        let c = Consts {
            lo: load_idx(&GATHER_LO),
            hi: load_idx(&GATHER_HI),
            out0: load_idx(&SCATTER_0),
            out1: load_idx(&SCATTER_1),
            m1: _mm512_set1_epi64(-1),
        };
        // i * (first + l) for lanes l .. l + 8, advancing by 8 i.
        let mut v = [0u128; 8];
        let mut acc = first.wrapping_mul(i);
        for o in v.iter_mut() {
            *o = acc;
            acc = acc.wrapping_add(i);
        }
        let mut off = soa(&v);
        let step = soa(&[i.wrapping_mul(8); 8]);
        v.fill(0);
        core::hint::black_box(&v);
        acc = 0;
        core::hint::black_box(&acc);
        for (g, zs) in z.chunks(8).enumerate() {
            let (z0, z1) = zs.split_at(zs.len().min(4));
            let (a, b) = if let Ok(full) = <&[Block; 8]>::try_from(zs) {
                // Plain loads: the cipher has just stored these blocks, and
                // only unmasked loads are forwarded from the store buffer.
                let p = full.as_ptr().cast::<__m512i>();
                // SAFETY: `full` is 8 blocks: two 64-byte vectors.
                unsafe { (_mm512_loadu_si512(p), _mm512_loadu_si512(p.add(1))) }
            } else {
                let (m0, m1) = (lanes(z0.len()), lanes(z1.len()));
                // SAFETY: each mask covers exactly the blocks of its slice;
                // masked-off lanes are not read.
                unsafe {
                    (
                        _mm512_maskz_loadu_epi64(m0, z0.as_ptr().cast()),
                        _mm512_maskz_loadu_epi64(m1, z1.as_ptr().cast()),
                    )
                }
            };
            let (y0, y1) = eight::<true>(a, b, off, c);
            let len = dst.len();
            let base = (8 * g * stride).min(len);
            scatter4(y0, &mut dst[base..], stride, z0.len());
            let base = ((8 * g + 4) * stride).min(len);
            scatter4(y1, &mut dst[base..], stride, z1.len());
            off = add_soa::<true>(off, step, c.m1);
        }
    }

    /// Byte indices of `vpermt2b` over (high halves, low halves) that
    /// build big-endian blocks of the elements `order`.
    const fn pair_idx(order: [usize; 4]) -> [u8; 64] {
        let mut t = [0u8; 64];
        let mut i = 0;
        while i < 64 {
            let (k, b) = (order[i / 16], i % 16);
            t[i] = if b < 8 {
                (8 * k + 7 - b) as u8
            } else {
                (64 + 8 * k + 15 - b) as u8
            };
            i += 1;
        }
        t
    }

    /// Lanes 0 and 1 of a pair of rounds: (i, 0), (i + 1, 0), (i, 1), (i + 1, 1).
    static PAIR_01: [u8; 64] = pair_idx([0, 4, 1, 5]);
    /// Lanes 2 and 3.
    static PAIR_23: [u8; 64] = pair_idx([2, 6, 3, 7]);

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load_soa(row: &[[u64; 8]; 2]) -> Soa {
        // SAFETY: two arrays of 8 u64: 64 bytes each.
        unsafe {
            Soa {
                hi: _mm512_loadu_si512(row[0].as_ptr().cast()),
                lo: _mm512_loadu_si512(row[1].as_ptr().cast()),
            }
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn store_soa(row: &mut [[u64; 8]; 2], v: Soa) {
        // SAFETY: two arrays of 8 u64: 64 bytes each.
        unsafe {
            _mm512_storeu_si512(row[0].as_mut_ptr().cast(), v.hi);
            _mm512_storeu_si512(row[1].as_mut_ptr().cast(), v.lo);
        }
    }

    /// Store the 32-byte halves of `v` (lanes l and l + 1 of two rounds) to
    /// `dst[l * stride ..][..2]` and `dst[(l + 1) * stride ..][..2]`, for
    /// lanes below `n` that `dst` holds.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn store_pairs(v: __m512i, dst: &mut [Block], l: usize, n: usize, stride: usize) {
        let halves = [_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v)];
        for (m, h) in halves.into_iter().enumerate() {
            let at = (l + m) * stride;
            let d = dst.get_mut(at..at + 2).map(<&mut [Block; 2]>::try_from);
            if let (true, Some(Ok(d))) = (l + m < n, d) {
                // SAFETY: `d` is two blocks: one unaligned 256-bit store.
                unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast(), h) };
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) fn add_pairs_avx512(
        z0: &[Block],
        z1: &[Block],
        steps: &mut PairSteps,
        dst: &mut [Block],
        stride: usize,
    ) {
        let n = z0.len().min(z1.len()).min(TILE_LANES);
        let c = Consts {
            lo: load_idx(&GATHER_LO),
            hi: load_idx(&GATHER_HI),
            out0: load_idx(&PAIR_01),
            out1: load_idx(&PAIR_23),
            m1: _mm512_set1_epi64(-1),
        };
        let start = load_soa(&steps.off);
        let quad = load_soa(&steps.quad);
        let mut off = start;
        let (a4, a_rest) = z0[..n].as_chunks::<4>();
        let (b4, b_rest) = z1[..n].as_chunks::<4>();
        // Every lane's two blocks inside `dst`: unchecked stores.
        let inside =
            n == 0 || (n - 1).checked_mul(stride).and_then(|e| e.checked_add(2)) <= Some(dst.len());
        let base = dst.as_mut_ptr();
        for (q, (a, b)) in a4.iter().zip(b4).enumerate() {
            // SAFETY: `a` and `b` are 4 blocks (64 bytes) each: plain loads
            // (the cipher has just stored them).
            let (va, vb) = unsafe {
                (
                    _mm512_loadu_si512(a.as_ptr().cast()),
                    _mm512_loadu_si512(b.as_ptr().cast()),
                )
            };
            let (p01, p23) = eight::<true>(va, vb, off, c);
            if inside {
                // SAFETY: lanes 4 q .. 4 q + 4 are below `n`, and `inside`
                // checked that `dst` holds two blocks at `l * stride` for
                // every lane `l < n`: four 32-byte stores inside `dst`.
                unsafe {
                    let d = base.add(4 * q * stride);
                    _mm256_storeu_si256(d.cast(), _mm512_castsi512_si256(p01));
                    _mm256_storeu_si256(d.add(stride).cast(), _mm512_extracti64x4_epi64::<1>(p01));
                    _mm256_storeu_si256(d.add(2 * stride).cast(), _mm512_castsi512_si256(p23));
                    _mm256_storeu_si256(
                        d.add(3 * stride).cast(),
                        _mm512_extracti64x4_epi64::<1>(p23),
                    );
                }
            } else {
                store_pairs(p01, dst, 4 * q, n, stride);
                store_pairs(p23, dst, 4 * q + 2, n, stride);
            }
            off = add_soa::<true>(off, quad, c.m1);
        }
        let k = a_rest.len().min(b_rest.len());
        if k > 0 {
            let m = lanes(k);
            // SAFETY: the mask covers the `k < 4` blocks of `a_rest` and
            // `b_rest` only; masked-off lanes are not read.
            let (va, vb) = unsafe {
                (
                    _mm512_maskz_loadu_epi64(m, a_rest.as_ptr().cast()),
                    _mm512_maskz_loadu_epi64(m, b_rest.as_ptr().cast()),
                )
            };
            let (p01, p23) = eight::<true>(va, vb, off, c);
            let l = 4 * a4.len();
            store_pairs(p01, dst, l, n, stride);
            store_pairs(p23, dst, l + 2, n, stride);
        }
        // Rounds i + 2, i + 3: `off` + 2 r0^(s), `quad` + 8.
        store_soa(
            &mut steps.off,
            add_soa::<true>(start, load_soa(&steps.next), c.m1),
        );
        let eight_ = Soa {
            hi: _mm512_setzero_si512(),
            lo: _mm512_set1_epi64(8),
        };
        store_soa(&mut steps.quad, add_soa::<true>(quad, eight_, c.m1));
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) fn apply_avx512<const ADD: bool>(
        r0: u128,
        first: u128,
        x: &[Block],
        out: &mut [Block],
    ) {
        let n = x.len().min(out.len());
        let (x, out) = (&x[..n], &mut out[..n]);
        let c = Consts {
            lo: load_idx(&GATHER_LO),
            hi: load_idx(&GATHER_HI),
            out0: load_idx(&SCATTER_0),
            out1: load_idx(&SCATTER_1),
            m1: _mm512_set1_epi64(-1),
        };
        // Offsets of blocks j .. j + 16: two groups of eight.
        let mut v = [0u128; 16];
        let mut acc = first.wrapping_mul(r0);
        for o in v.iter_mut() {
            *o = acc;
            acc = acc.wrapping_add(r0);
        }
        let (v0, v1) = v.split_at(8);
        let mut off0 = soa(v0.try_into().unwrap_or(&[0; 8]));
        let mut off1 = soa(v1.try_into().unwrap_or(&[0; 8]));
        let step = r0.wrapping_mul(16);
        let step = soa(&[step; 8]);
        v.fill(0);
        core::hint::black_box(&v);
        acc = 0;
        core::hint::black_box(&acc);

        let (x16, x_rest) = x.as_chunks::<16>();
        let (o16, o_rest) = out.as_chunks_mut::<16>();
        for (xs, os) in x16.iter().zip(o16.iter_mut()) {
            let src = xs.as_ptr().cast::<__m512i>();
            let dst = os.as_mut_ptr().cast::<__m512i>();
            // SAFETY: `xs` and `os` are 16 blocks (256 bytes) each: the four
            // unaligned 64-byte loads and stores at offsets 0, 64, 128 and
            // 192 stay inside them.
            unsafe {
                let (a0, a1) = eight::<ADD>(
                    _mm512_loadu_si512(src),
                    _mm512_loadu_si512(src.add(1)),
                    off0,
                    c,
                );
                let (b0, b1) = eight::<ADD>(
                    _mm512_loadu_si512(src.add(2)),
                    _mm512_loadu_si512(src.add(3)),
                    off1,
                    c,
                );
                _mm512_storeu_si512(dst, a0);
                _mm512_storeu_si512(dst.add(1), a1);
                _mm512_storeu_si512(dst.add(2), b0);
                _mm512_storeu_si512(dst.add(3), b1);
            }
            off0 = add_soa::<true>(off0, step, c.m1);
            off1 = add_soa::<true>(off1, step, c.m1);
        }
        // The last 0 .. 15 blocks: up to two groups of eight, masked.
        for (g, off) in [off0, off1].into_iter().enumerate() {
            let lo = (8 * g).min(x_rest.len());
            let hi = (8 * g + 8).min(x_rest.len());
            let (xs, os) = (&x_rest[lo..hi], &mut o_rest[lo..hi]);
            if xs.is_empty() {
                break;
            }
            let (m0, m1) = (lanes(xs.len()), lanes(xs.len().saturating_sub(4)));
            let (xs0, xs1) = xs.split_at(xs.len().min(4));
            let (os0, os1) = os.split_at_mut(xs.len().min(4));
            // SAFETY: each mask covers exactly the blocks of the slice it
            // goes with (`xs0`/`os0`: the first up to four, `xs1`/`os1`: the
            // rest); masked-off lanes are neither read nor written.
            unsafe {
                let a = _mm512_maskz_loadu_epi64(m0, xs0.as_ptr().cast());
                let b = _mm512_maskz_loadu_epi64(m1, xs1.as_ptr().cast());
                let (y0, y1) = eight::<ADD>(a, b, off, c);
                _mm512_mask_storeu_epi64(os0.as_mut_ptr().cast(), m0, y0);
                _mm512_mask_storeu_epi64(os1.as_mut_ptr().cast(), m1, y1);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86_lanes {
    use core::arch::x86_64::{
        __m128i, __m256i, __m512i, _mm_loadu_si128, _mm_storeu_si128, _mm_xor_si128,
        _mm256_loadu_si256, _mm512_castsi128_si512, _mm512_castsi256_si512, _mm512_inserti32x4,
        _mm512_inserti64x4, _mm512_loadu_si512, _mm512_setzero_si512, _mm512_shuffle_i64x2,
        _mm512_storeu_si512, _mm512_xor_si512,
    };

    use super::{Rows, TILE_LANES};
    use crate::arith::gf128::Block;

    /// Four blocks as one vector.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load4(b: &[Block; 4]) -> __m512i {
        // SAFETY: `b` is 64 bytes: one unaligned 512-bit load.
        unsafe { _mm512_loadu_si512(b.as_ptr().cast()) }
    }

    /// Store one vector as four blocks.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn store4(b: &mut [Block; 4], v: __m512i) {
        // SAFETY: `b` is 64 bytes: one unaligned 512-bit store.
        unsafe { _mm512_storeu_si512(b.as_mut_ptr().cast(), v) }
    }

    /// Transpose a 4x4 matrix of 128-bit elements (`v[a]` element `b` ->
    /// result `a'`=`b`, element `a`): two rounds of four `vshufi64x2`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn transpose4(v: [__m512i; 4]) -> [__m512i; 4] {
        // [v0.0 v0.1 v1.0 v1.1], [v0.2 v0.3 v1.2 v1.3], same for v2, v3
        let t0 = _mm512_shuffle_i64x2::<0x44>(v[0], v[1]);
        let t1 = _mm512_shuffle_i64x2::<0xee>(v[0], v[1]);
        let t2 = _mm512_shuffle_i64x2::<0x44>(v[2], v[3]);
        let t3 = _mm512_shuffle_i64x2::<0xee>(v[2], v[3]);
        [
            _mm512_shuffle_i64x2::<0x88>(t0, t2),
            _mm512_shuffle_i64x2::<0xdd>(t0, t2),
            _mm512_shuffle_i64x2::<0x88>(t1, t3),
            _mm512_shuffle_i64x2::<0xdd>(t1, t3),
        ]
    }

    #[target_feature(enable = "avx512f")]
    pub(super) fn transpose_in_avx512(
        runs: &[Block],
        stride: usize,
        lanes: usize,
        first: Option<&[Block; 4]>,
        last: Option<&[Block; 4]>,
        rows: &mut Rows,
        sums: &mut [Block; TILE_LANES],
    ) {
        let lanes = lanes.min(TILE_LANES);
        let skip = usize::from(first.is_some());
        let run = |l: usize| -> __m512i {
            let edge = match (l, first, last) {
                (0, Some(f), _) => Some(f),
                (_, _, Some(e)) if l + 1 == lanes => Some(e),
                _ => None,
            };
            let at = l.wrapping_sub(skip).wrapping_mul(stride);
            let from_runs = runs
                .get(at..at.wrapping_add(4))
                .map(<&[Block; 4]>::try_from);
            match (edge, from_runs) {
                (Some(e), _) => load4(e),
                (None, Some(Ok(r))) if l < lanes => load4(r),
                _ => _mm512_setzero_si512(),
            }
        };
        let [r0, r1, r2, r3] = rows;
        let mut rows4 = [
            r0.as_chunks_mut::<4>().0,
            r1.as_chunks_mut::<4>().0,
            r2.as_chunks_mut::<4>().0,
            r3.as_chunks_mut::<4>().0,
        ];
        // Lanes `skip .. plain` are runs of `runs` (not an edge).
        let held = match runs.len().checked_sub(4) {
            Some(k) => k / stride.max(1) + 1 + skip,
            None => 0,
        };
        let plain = (lanes - usize::from(last.is_some())).min(held);
        let (s4, _) = sums.as_chunks_mut::<4>();
        for (q, sum) in s4.iter_mut().enumerate().take(lanes.div_ceil(4)) {
            let l = 4 * q;
            let v = if l >= skip && l + 4 <= plain {
                // Halves of two lanes' runs in one vector straight from
                // memory (a blend, not a shuffle); one shuffle stage left.
                // SAFETY: lane l + 3 < `plain` <= `held`: `runs` holds its
                // run, at (l + 3 - skip) * stride; the pointer stays inside.
                let at = unsafe { runs.as_ptr().add((l - skip) * stride) };
                let half = |lane: usize, h: usize| -> __m256i {
                    // SAFETY: lanes l .. l + 4 are below `plain`, so their
                    // four blocks at `lane * stride` from `at` are in `runs`.
                    unsafe { _mm256_loadu_si256(at.add(lane * stride + 2 * h).cast()) }
                };
                let pair = |a: usize, h: usize| {
                    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(half(a, h)), half(a + 1, h))
                };
                let (t0, t1, t2, t3) = (pair(0, 0), pair(0, 1), pair(2, 0), pair(2, 1));
                [
                    _mm512_shuffle_i64x2::<0x88>(t0, t2),
                    _mm512_shuffle_i64x2::<0xdd>(t0, t2),
                    _mm512_shuffle_i64x2::<0x88>(t1, t3),
                    _mm512_shuffle_i64x2::<0xdd>(t1, t3),
                ]
            } else {
                transpose4([run(l), run(l + 1), run(l + 2), run(l + 3)])
            };
            let mut acc = load4(sum);
            for (row, t) in rows4.iter_mut().zip(v) {
                if let Some(r) = row.get_mut(q) {
                    store4(r, t);
                }
                acc = _mm512_xor_si512(acc, t);
            }
            store4(sum, acc);
        }
    }

    #[target_feature(enable = "avx512f")]
    pub(super) fn xor_blocks_avx512(a: &[Block], b: &[Block], out: &mut [Block]) {
        let n = a.len().min(b.len()).min(out.len());
        let (a4, a_rest) = a[..n].as_chunks::<4>();
        let (b4, b_rest) = b[..n].as_chunks::<4>();
        let (o4, o_rest) = out[..n].as_chunks_mut::<4>();
        for ((a, b), o) in a4.iter().zip(b4).zip(o4.iter_mut()) {
            store4(o, _mm512_xor_si512(load4(a), load4(b)));
        }
        for ((a, b), o) in a_rest.iter().zip(b_rest).zip(o_rest.iter_mut()) {
            // SAFETY: `o` is one 16-byte block: unaligned 128-bit store.
            unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), _mm_xor_si128(load1(a), load1(b))) };
        }
    }

    /// One block as a 128-bit vector.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load1(b: &Block) -> __m128i {
        // SAFETY: `b` is 16 bytes.
        unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) fn gather_xor_sum_avx512(
        src: &[Block],
        stride: usize,
        prev: &[Block],
        blocks: &mut [Block],
        sums: &mut [Block],
    ) {
        let stride = stride.max(1);
        let have = if src.is_empty() {
            0
        } else {
            (src.len() - 1) / stride + 1
        };
        let n = prev.len().min(blocks.len()).min(sums.len()).min(have);
        let (p4, p_rest) = prev[..n].as_chunks::<4>();
        let (b4, b_rest) = blocks[..n].as_chunks_mut::<4>();
        let (s4, s_rest) = sums[..n].as_chunks_mut::<4>();
        for (c, ((p, b), sm)) in p4.iter().zip(b4.iter_mut()).zip(s4.iter_mut()).enumerate() {
            let l = 4 * c;
            // Lanes l .. l + 4 < n: all four source blocks exist.
            let (Some(x0), Some(x1), Some(x2), Some(x3)) = (
                src.get(l * stride),
                src.get((l + 1) * stride),
                src.get((l + 2) * stride),
                src.get((l + 3) * stride),
            ) else {
                continue;
            };
            let x = _mm512_castsi128_si512(load1(x0));
            let x = _mm512_inserti32x4::<1>(x, load1(x1));
            let x = _mm512_inserti32x4::<2>(x, load1(x2));
            let x = _mm512_inserti32x4::<3>(x, load1(x3));
            // SAFETY: `p`, `b` and `sm` are 4 blocks (64 bytes) each.
            unsafe {
                let pv = _mm512_loadu_si512(p.as_ptr().cast());
                _mm512_storeu_si512(b.as_mut_ptr().cast(), _mm512_xor_si512(pv, x));
                let sv = _mm512_loadu_si512(sm.as_ptr().cast());
                _mm512_storeu_si512(sm.as_mut_ptr().cast(), _mm512_xor_si512(sv, x));
            }
        }
        let done = 4 * p4.len();
        let rest = p_rest.iter().zip(b_rest.iter_mut()).zip(s_rest.iter_mut());
        for (j, ((p, b), sm)) in rest.enumerate() {
            let Some(x) = src.get((done + j) * stride) else {
                break;
            };
            let x = load1(x);
            // SAFETY: `b` and `sm` are one 16-byte block each.
            unsafe {
                _mm_storeu_si128(b.as_mut_ptr().cast(), _mm_xor_si128(load1(p), x));
                _mm_storeu_si128(sm.as_mut_ptr().cast(), _mm_xor_si128(load1(sm), x));
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86_xor {
    use core::arch::x86_64::{
        __m512i, _mm_loadu_si128, _mm_storeu_si128, _mm_xor_si128, _mm256_castsi256_si128,
        _mm256_extracti128_si256, _mm256_xor_si256, _mm512_castsi512_si256,
        _mm512_extracti64x4_epi64, _mm512_loadu_si512, _mm512_mask_storeu_epi64,
        _mm512_maskz_loadu_epi64, _mm512_setzero_si512, _mm512_storeu_si512, _mm512_xor_si512,
    };

    use crate::arith::gf128::Block;

    /// The xor of the four 128-bit lanes of `acc`, xored into `sum`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn fold_into(acc: __m512i, sum: &mut Block) {
        let a = _mm256_xor_si256(
            _mm512_castsi512_si256(acc),
            _mm512_extracti64x4_epi64::<1>(acc),
        );
        let a = _mm_xor_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256::<1>(a));
        // SAFETY: `sum` is one 16-byte block: unaligned 128-bit load and store.
        unsafe {
            let s = _mm_xor_si128(a, _mm_loadu_si128(sum.as_ptr().cast()));
            _mm_storeu_si128(sum.as_mut_ptr().cast(), s);
        }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) fn xor_into_avx512(blocks: &[Block], sum: &mut Block) {
        let mut acc = [_mm512_setzero_si512(); 4];
        let (b16, rest) = blocks.as_chunks::<16>();
        for b in b16 {
            let p = b.as_ptr().cast::<__m512i>();
            for (j, a) in acc.iter_mut().enumerate() {
                // SAFETY: `b` is 16 blocks: vectors 0..4 of 64 bytes.
                *a = _mm512_xor_si512(*a, unsafe { _mm512_loadu_si512(p.add(j)) });
            }
        }
        let (b4, last) = rest.as_chunks::<4>();
        for (b, a) in b4.iter().zip(acc.iter_mut()) {
            // SAFETY: `b` is 4 blocks (64 bytes).
            *a = _mm512_xor_si512(*a, unsafe { _mm512_loadu_si512(b.as_ptr().cast()) });
        }
        if !last.is_empty() {
            let mask = ((1u16 << (2 * last.len())) - 1) as u8;
            // SAFETY: the mask covers the `last.len() < 4` blocks of `last`
            // only; masked-off lanes are not read.
            let v = unsafe { _mm512_maskz_loadu_epi64(mask, last.as_ptr().cast()) };
            acc[3] = _mm512_xor_si512(acc[3], v);
        }
        let a = _mm512_xor_si512(
            _mm512_xor_si512(acc[0], acc[1]),
            _mm512_xor_si512(acc[2], acc[3]),
        );
        fold_into(a, sum);
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) fn xor_in_and_sum_avx512(out: &mut [Block], b: &[Block], sum: &mut Block) {
        let n = out.len().min(b.len());
        let (out, b) = (&mut out[..n], &b[..n]);
        let mut acc = _mm512_setzero_si512();
        let (o4, o_rest) = out.as_chunks_mut::<4>();
        let (b4, b_rest) = b.as_chunks::<4>();
        for (o, b) in o4.iter_mut().zip(b4) {
            let (po, pb) = (
                o.as_mut_ptr().cast::<__m512i>(),
                b.as_ptr().cast::<__m512i>(),
            );
            // SAFETY: `o` and `b` are 4 blocks (64 bytes) each.
            unsafe {
                let x = _mm512_xor_si512(_mm512_loadu_si512(po), _mm512_loadu_si512(pb));
                _mm512_storeu_si512(po, x);
                acc = _mm512_xor_si512(acc, x);
            }
        }
        let k = o_rest.len().min(b_rest.len());
        if k > 0 {
            let mask = ((1u16 << (2 * k)) - 1) as u8;
            let (po, pb) = (
                o_rest.as_mut_ptr().cast::<__m512i>(),
                b_rest.as_ptr().cast::<__m512i>(),
            );
            // SAFETY: the masks cover the first `k` blocks (`2 k` 64-bit
            // lanes) of `o_rest` and `b_rest` only; masked-off lanes are
            // neither read nor written.
            unsafe {
                let x = _mm512_xor_si512(
                    _mm512_maskz_loadu_epi64(mask, po.cast()),
                    _mm512_maskz_loadu_epi64(mask, pb.cast()),
                );
                _mm512_mask_storeu_epi64(po.cast(), mask, x);
                acc = _mm512_xor_si512(acc, x);
            }
        }
        fold_into(acc, sum);
    }
}

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
