//! pXCBC encryption's segment chains, written once for the vector lanes
//! (`lane.rs`; VAES-512 and VAES-256, instantiated per tier by
//! [`ChainLane::chains`]): up to [`CHAINS`] independent XCBC-XOR chains
//! (Gligor–Donescu, section 4: one per segment) in lock step, `BLOCKS` per
//! register (chain `BLOCKS v + j` in block j of register v). Round t of
//! every chain:
//!
//! * `x` gathered from the chain's own run of blocks, two rounds at a time
//!   ([`ChainLane::gather2`]: one 32-byte load per chain, transposed; a lone
//!   round: [`ChainLane::gather`], one 16-byte load per chain), `Σ ^= x` (the
//!   check block's sum, seeded with z0^(s) by the caller);
//! * `z = E_K(z xor x)`: `z xor x xor K0` is one 3-way xor;
//! * `y = z + i r0^(s)` (i = first + t, mod 2^128 on big-endian blocks) on
//!   pairs of registers in the Gligor–Donescu offsets' form
//!   ([`GdLane::gd_pair`], `gd.rs`), each chain's offset `i r0^(s)` advancing
//!   by its own r0^(s) per round;
//! * the blocks of `y` scattered into each chain's run of outputs
//!   ([`ChainLane::scatter`]).
//!
//! With `check`, one more round takes `x = Σ` (the check block
//! `x_{n+1} = z0 xor x_1 xor ... xor x_n`).
//!
//! Why sixteen chains: a chain's round is the AES latency times the round
//! count (about 30 cycles for AES-128); four zmm registers keep the one
//! 512-bit AES port busy. Measured with `aesni::bench::bench_chain_bound`
//! (16 KiB, AES-128, Sapphire Rapids): `z = E(z xor x)` on 1, 2, 3, 4, 6
//! registers runs at 0.32, 0.62, 0.92, 0.96, 1.02x of ECB. The round's
//! other work (gathers, offsets, scatters) then shares the vector ports
//! with the rounds: that, not the latency, bounds the kernel. (AES-NI keeps
//! the generic path: sixteen xmm states and their offsets do not fit its
//! sixteen registers.)

use core::arch::x86_64::*;

use super::gd::{GdLane, XmmOff, YmmOff, ZmmOff, add128};
use super::lane::{Lane, Xmm, Ymm, Zmm};
use super::schedule::load;
use crate::arith::gf128::Block;

/// The most chains one call runs.
pub(crate) const CHAINS: usize = 16;

/// One call of the kernel.
pub(super) struct ChainsJob<'a> {
    /// The encryption round keys.
    pub(super) keys: &'a [Block; 15],
    /// Chain l's x of rounds `0 .. n`.
    pub(super) src: [*const Block; CHAINS],
    /// Chain l's y of rounds `0 .. n` (and `n` with `check`).
    pub(super) dst: [*mut Block; CHAINS],
    /// Chains `0 .. lanes` (1 ..= 16); `src`, `dst` beyond are unused.
    pub(super) lanes: usize,
    /// Rounds taking x from `src`.
    pub(super) n: usize,
    /// One more round with `x = Σ`.
    pub(super) check: bool,
    /// r0^(s) of chain 0; chain l's is `r0 + l`.
    pub(super) r0: u128,
    /// The index i of round 0 (its offset `i r0^(s)`).
    pub(super) first: u128,
    /// Each chain's z before round 0, and after the last.
    pub(super) z: &'a mut [Block; CHAINS],
    /// Each chain's Σ before round 0, and after the last.
    pub(super) sums: &'a mut [Block; CHAINS],
    /// Instead of `z` and `sums`: the round keys and the counter c of
    /// chain 0; chain l starts with z = Σ = `E(c + l)` (z0^(s)).
    pub(super) z0: Option<(&'a [Block; 15], u128)>,
}

/// Rounds per tile: one 32-byte load per chain, transposed.
const TILE: usize = 2;

/// Run `job` with `NR` rounds on `V` registers of lane `L` (`BLOCKS (V -
/// 1) < lanes <= BLOCKS V`; instantiated by [`ChainLane::chains`]).
///
/// # Safety
/// The CPU must have `L`'s tier's features. For every
/// chain l below `job.lanes`, `job.src[l]` must be valid for `job.n`
/// blocks and `job.dst[l]` for `job.n + job.check` blocks, the outputs
/// disjoint from each other and from the inputs.
#[inline(always)]
pub(super) unsafe fn run<L: ChainLane, const NR: usize, const V: usize>(job: &mut ChainsJob<'_>) {
    // SAFETY: the caller's: the CPU has `L`'s features; pointer accesses
    // are justified where they are.
    unsafe {
        let k = L::round_keys::<NR>(job.keys);
        let zero = L::zero();
        let mut z = [zero; V];
        let mut sum = [zero; V];
        if let Some((keys, c)) = job.z0 {
            fresh::<L, NR, V>(keys, c, &mut z);
            sum = z;
        } else {
            for v in 0..V {
                // SAFETY: `job.z` and `job.sums` hold 16 blocks, BLOCKS V <= 16.
                z[v] = L::load(job.z.as_ptr().add(L::BLOCKS * v));
                sum[v] = L::load(job.sums.as_ptr().add(L::BLOCKS * v));
            }
        }
        // The offsets of each pair of registers p (chains 2 BLOCKS p ..;
        // entries from V / 2 on unused).
        let mut off: [L::GdOff; V] =
            core::array::from_fn(|p| L::chain_off(job.r0, job.first, (2 * L::BLOCKS * p) as u128));
        // Chains in the last register.
        let last = job.lanes - L::BLOCKS * (V - 1);
        let lanes = |v: usize| if v + 1 < V { L::BLOCKS } else { last };
        let rounds = job.n + usize::from(job.check);
        let mut t = 0;
        // Rounds t .. t + TILE from one 32-byte load per chain.
        while t + TILE <= job.n {
            let xs: [[L; TILE]; V] = core::array::from_fn(|v| {
                // SAFETY: t + TILE <= n: the caller's.
                L::gather2(&job.src[L::BLOCKS * v..], t, lanes(v))
            });
            let ys = [0, 1].map(|r| {
                let x = core::array::from_fn(|v| xs[v][r]);
                round::<L, NR, V>(&k, &mut z, &mut sum, &mut off, x, true)
            });
            for (r, y) in ys.iter().enumerate() {
                for (v, yv) in y.iter().enumerate() {
                    // SAFETY: t + r < n: the caller's.
                    L::scatter(&job.dst[L::BLOCKS * v..], t + r, lanes(v), *yv);
                }
            }
            t += TILE;
        }
        // Round t alone: x from 16-byte loads, or Σ in the check round.
        while t < rounds {
            let x: [L; V] = core::array::from_fn(|v| {
                if t < job.n {
                    // SAFETY: t < n: the caller's.
                    L::gather(&job.src[L::BLOCKS * v..], t, lanes(v))
                } else {
                    sum[v] // the check block
                }
            });
            let y = round::<L, NR, V>(&k, &mut z, &mut sum, &mut off, x, t < job.n);
            for (v, yv) in y.iter().enumerate() {
                // SAFETY: t < n + check: the caller's.
                L::scatter(&job.dst[L::BLOCKS * v..], t, lanes(v), *yv);
            }
            t += 1;
        }
        for v in 0..V {
            // SAFETY: as above.
            L::store(job.z.as_mut_ptr().add(L::BLOCKS * v), z[v]);
            L::store(job.sums.as_mut_ptr().add(L::BLOCKS * v), sum[v]);
        }
        // The offsets give r0 away (wiped in a copy: the address taken
        // would keep the loop's own in memory).
        let mut spent = off;
        for o in &mut spent {
            L::gd_wipe(o);
        }
        core::hint::black_box(&spent);
    }
}

/// One round of every chain with x from `x` (`Σ ^= x` if `add`):
/// `z = E_K(z xor x)`, returning `y = z + i r0^(s)` and advancing the
/// offsets.
///
/// # Safety
/// As [`run`].
#[inline(always)]
unsafe fn round<L: ChainLane, const NR: usize, const V: usize>(
    k: &[L; 15],
    z: &mut [L; V],
    sum: &mut [L; V],
    off: &mut [L::GdOff; V],
    x: [L; V],
    add: bool,
) -> [L; V] {
    // SAFETY: the caller's: the CPU has the features.
    unsafe {
        let zero = L::zero();
        let mut s = [zero; V];
        for v in 0..V {
            if add {
                sum[v] = L::xor(sum[v], x[v]);
            }
            s[v] = L::xor3(z[v], x[v], k[0]);
        }
        for kr in &k[1..NR] {
            for sv in s.iter_mut() {
                *sv = L::aesenc(*sv, *kr);
            }
            L::fence(&mut s);
        }
        for (zv, sv) in z.iter_mut().zip(s) {
            *zv = L::aesenclast(sv, k[NR]);
        }
        // y = z + i r0^(s), a pair of registers at a time.
        let mut y = [zero; V];
        let mut v = 0;
        while v < V {
            let b = if v + 1 < V { z[v + 1] } else { zero };
            let (ya, yb) = L::gd_pair::<false, false>(z[v], b, &mut off[v / 2]);
            y[v] = ya;
            if v + 1 < V {
                y[v + 1] = yb;
            }
            v += 2;
        }
        y
    }
}

/// z0^(s) of every chain: `E(c + l)` under `keys` for chain l, the
/// counters made in registers (the offsets' form with r0 = c at i = 1,
/// added to zero blocks).
///
/// # Safety
/// As [`run`].
#[inline(always)]
unsafe fn fresh<L: ChainLane, const NR: usize, const V: usize>(
    keys: &[Block; 15],
    c: u128,
    z: &mut [L; V],
) {
    // SAFETY: the caller's: the CPU has the features.
    unsafe {
        let zero = L::zero();
        for p in 0..V.div_ceil(2) {
            let mut o = L::chain_off(c, 1, (2 * L::BLOCKS * p) as u128);
            let (za, zb) = L::gd_pair::<false, false>(zero, zero, &mut o);
            z[2 * p] = za;
            if 2 * p + 1 < V {
                z[2 * p + 1] = zb;
            }
        }
        let k0 = L::broadcast(load(&keys[0]));
        for zv in z.iter_mut() {
            *zv = L::xor(*zv, k0);
        }
        for kr in &keys[1..NR] {
            let kr = L::broadcast(load(kr));
            for zv in z.iter_mut() {
                *zv = L::aesenc(*zv, kr);
            }
            L::fence(z);
        }
        let last = L::broadcast(load(&keys[NR]));
        for zv in z.iter_mut() {
            *zv = L::aesenclast(*zv, last);
        }
    }
}

// ---- The gathers, scatters and offsets in each lane's form
// (`ChainLane::gather`, `ChainLane::gather2`, `ChainLane::scatter`, `ChainLane::chain_off`).
// Every `unsafe` method below needs its lane's tier's features (the
// caller's: each is called from that tier's entries, inlined).

/// The chains' offsets of a pair of registers on AES-NI: chains `c0`,
/// `c0 + 1`: `first (r0 + l)`, stepping by `r0 + l`.
#[inline(always)]
pub(super) fn xmm_chain_off(r0: u128, first: u128, c0: u128) -> XmmOff {
    let r = |l: u128| r0.wrapping_add(c0 + l);
    XmmOff::from(
        [first.wrapping_mul(r(0)), first.wrapping_mul(r(1))],
        [r(0), r(1)],
    )
}

/// The chains' offsets of a pair of registers on VAES-256: chains `c0 ..
/// c0 + 4`.
#[inline(always)]
pub(super) unsafe fn ymm_chain_off(r0: u128, first: u128, c0: u128) -> YmmOff {
    let r: [u128; 4] = core::array::from_fn(|l| r0.wrapping_add(c0 + l as u128));
    // SAFETY: the caller's.
    unsafe { YmmOff::from(r.map(|r| first.wrapping_mul(r)), r) }
}

/// Blocks t, t + 1 of the first `lanes` (1, 2) chains of `src`, round r's
/// in register r (block j from `src[j]`, the others zero): one 32-byte
/// load per chain, the two rows' 128-bit halves exchanged.
///
/// # Safety
/// AVX2; `src[j]` valid for `t + 2` blocks, j < `lanes`.
#[inline(always)]
pub(super) unsafe fn ymm_gather2(src: &[*const Block], t: usize, lanes: usize) -> [__m256i; 2] {
    // SAFETY: the caller's.
    unsafe {
        let a = _mm256_loadu_si256(src[0].add(t).cast());
        let b = if lanes > 1 {
            _mm256_loadu_si256(src[1].add(t).cast())
        } else {
            _mm256_setzero_si256()
        };
        [
            _mm256_permute2x128_si256::<0x20>(a, b),
            _mm256_permute2x128_si256::<0x31>(a, b),
        ]
    }
}

/// Block t of the first `lanes` (1, 2) chains of `src`.
///
/// # Safety
/// AVX2; `src[j]` valid for `t + 1` blocks, j < `lanes`.
#[inline(always)]
pub(super) unsafe fn ymm_gather(src: &[*const Block], t: usize, lanes: usize) -> __m256i {
    // SAFETY: the caller's.
    unsafe {
        let x = _mm256_zextsi128_si256(_mm_loadu_si128(src[0].add(t).cast()));
        if lanes > 1 {
            _mm256_inserti128_si256::<1>(x, _mm_loadu_si128(src[1].add(t).cast()))
        } else {
            x
        }
    }
}

/// Block j of `y` to block t of `dst[j]`, j < `lanes` (1, 2).
///
/// # Safety
/// AVX2; `dst[j]` valid for `t + 1` blocks, j < `lanes`.
#[inline(always)]
pub(super) unsafe fn ymm_scatter(dst: &[*mut Block], t: usize, lanes: usize, y: __m256i) {
    // SAFETY: the caller's.
    unsafe {
        _mm_storeu_si128(dst[0].add(t).cast(), _mm256_castsi256_si128(y));
        if lanes > 1 {
            _mm_storeu_si128(dst[1].add(t).cast(), _mm256_extracti128_si256::<1>(y));
        }
    }
}

/// The chain (within its pair of registers) of element `e` of the split
/// halves on VAES-512: [`split`](super::gd::split) puts block `e / 2 + 4
/// (e % 2)` of the pair there.
const fn chain_of(e: usize) -> usize {
    e / 2 + 4 * (e % 2)
}

/// The chains' offsets of a pair of registers on VAES-512: chains `c0 ..
/// c0 + 8`, `first (r0 + l)` stepping by `r0 + l`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn zmm_chain_off(r0: u128, first: u128, c0: u128) -> ZmmOff {
    if first == 1 {
        let (lo, hi) = zmm_first_offsets(r0, c0);
        return ZmmOff::from_halves((lo, hi), (lo, hi));
    }
    let mut h = [[0u64; 8]; 4];
    // (A counted loop: `e` indexes the four rows.)
    #[allow(clippy::needless_range_loop)]
    for e in 0..8 {
        let r = r0.wrapping_add(c0 + chain_of(e) as u128);
        let o = first.wrapping_mul(r);
        h[0][e] = o as u64;
        h[1][e] = (o >> 64) as u64;
        h[2][e] = r as u64;
        h[3][e] = (r >> 64) as u64;
    }
    // SAFETY: each row is 64 bytes.
    let off = unsafe {
        ZmmOff::from_halves(
            (
                _mm512_loadu_si512(h[0].as_ptr().cast()),
                _mm512_loadu_si512(h[1].as_ptr().cast()),
            ),
            (
                _mm512_loadu_si512(h[2].as_ptr().cast()),
                _mm512_loadu_si512(h[3].as_ptr().cast()),
            ),
        )
    };
    h = [[0; 8]; 4];
    core::hint::black_box(&h);
    off
}

/// The offsets at `first` = 1 (offset = step = `r0 + l`) in registers:
/// r0's halves broadcast, l added to the low halves with the carry into
/// the high ones (no scalar rows to reload: a 64-byte load of eight
/// 8-byte stores waits for them to retire).
#[inline]
#[target_feature(enable = "avx512f")]
fn zmm_first_offsets(r0: u128, c0: u128) -> (__m512i, __m512i) {
    // l = c0 + chain_of(e) in element e.
    let l = _mm512_add_epi64(
        _mm512_set1_epi64(c0 as i64),
        _mm512_setr_epi64(0, 4, 1, 5, 2, 6, 3, 7),
    );
    add128(
        _mm512_set1_epi64(r0 as u64 as i64),
        _mm512_set1_epi64((r0 >> 64) as u64 as i64),
        l,
        _mm512_setzero_si512(),
    )
}

/// Block `t` of the first `lanes` (1 ..= 4) chains of `src`, lane j from
/// `src[j]` (the lanes above `lanes` zero).
///
/// # Safety
/// `src[j]` valid for `t + 1` blocks, j < `lanes`.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn zmm_gather(src: &[*const Block], t: usize, lanes: usize) -> __m512i {
    let at = |j: usize| {
        // SAFETY: the caller's (only j < lanes is asked for).
        unsafe { _mm_loadu_si128(src[j].add(t).cast()) }
    };
    let mut x = _mm512_zextsi128_si512(at(0));
    if lanes > 1 {
        x = _mm512_inserti32x4::<1>(x, at(1));
    }
    if lanes > 2 {
        x = _mm512_inserti32x4::<2>(x, at(2));
    }
    if lanes > 3 {
        x = _mm512_inserti32x4::<3>(x, at(3));
    }
    x
}

/// Blocks t, t + 1 of the first `lanes` (1 ..= 4) chains of `src`, round
/// r's in register r, lane j from `src[j]` (the lanes above `lanes`
/// zero): one 32-byte load per chain, chains 0, 1 (and 2, 3) joined by a
/// `vinserti64x4` into [x_t, x_t+1 of chain 0 | of chain 1], then two
/// `vshufi64x2` pick the even and the odd lanes of both: four ops for two
/// registers' rounds, where [`zmm_gather`] takes three `vinserti32x4` per
/// register and round.
///
/// # Safety
/// `src[j]` valid for `t + 2` blocks, j < `lanes`.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn zmm_gather2(src: &[*const Block], t: usize, lanes: usize) -> [__m512i; 2] {
    let row = |j: usize| {
        if j < lanes {
            // SAFETY: the caller's.
            unsafe { _mm256_loadu_si256(src[j].add(t).cast()) }
        } else {
            _mm256_setzero_si256()
        }
    };
    let p = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(row(0)), row(1));
    let q = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(row(2)), row(3));
    [
        _mm512_shuffle_i64x2::<0x88>(p, q),
        _mm512_shuffle_i64x2::<0xdd>(p, q),
    ]
}

/// Lane j of `y` to block `t` of `dst[j]`, j < `lanes` (1 ..= 4).
///
/// # Safety
/// `dst[j]` valid for `t + 1` blocks, j < `lanes`.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn zmm_scatter(dst: &[*mut Block], t: usize, lanes: usize, y: __m512i) {
    // SAFETY (all four): the caller's.
    unsafe { _mm_storeu_si128(dst[0].add(t).cast(), _mm512_castsi512_si128(y)) };
    if lanes > 1 {
        let b = _mm512_extracti32x4_epi32::<1>(y);
        // SAFETY: as above.
        unsafe { _mm_storeu_si128(dst[1].add(t).cast(), b) };
    }
    if lanes > 2 {
        let b = _mm512_extracti32x4_epi32::<2>(y);
        // SAFETY: as above.
        unsafe { _mm_storeu_si128(dst[2].add(t).cast(), b) };
    }
    if lanes > 3 {
        let b = _mm512_extracti32x4_epi32::<3>(y);
        // SAFETY: as above.
        unsafe { _mm_storeu_si128(dst[3].add(t).cast(), b) };
    }
}

/// pXCBC's chains on a lane: the gathers and scatters of the chains'
/// blocks, their offsets, and the tier's `#[target_feature]` entry to
/// [`run`].
pub(super) trait ChainLane: GdLane {
    /// The offsets `first (r0 + l)` of the pair of registers whose first
    /// block is chain `c0` (chain `c0 + j` in its block j), stepping by
    /// `r0 + l` (applied by [`GdLane::gd_pair`]).
    unsafe fn chain_off(r0: u128, first: u128, c0: u128) -> Self::GdOff;
    /// Block t of the first `lanes` (`1 ..= BLOCKS`) chains of `src`
    /// (block j from `src[j]`, the others zero); `src[j]` valid for `t + 1`
    /// blocks.
    unsafe fn gather(src: &[*const Block], t: usize, lanes: usize) -> Self;
    /// As [`gather`](Self::gather) for blocks t and t + 1 (round r's in
    /// register r); `src[j]` valid for `t + 2` blocks.
    unsafe fn gather2(src: &[*const Block], t: usize, lanes: usize) -> [Self; 2];
    /// Block j of `y` to block t of `dst[j]`, j < `lanes` (`1 ..= BLOCKS`);
    /// `dst[j]` valid for `t + 1` blocks.
    unsafe fn scatter(dst: &[*mut Block], t: usize, lanes: usize, y: Self);
    /// The tier's entry to pXCBC's chains ([`run`], `V` registers).
    ///
    /// # Safety
    /// The CPU has the tier's features; `job` as [`run`] says.
    unsafe fn chains<const NR: usize, const V: usize>(job: &mut ChainsJob<'_>);
}

/// The tier's entry to [`run`] (features `$f`).
macro_rules! chains_entry {
    ($f:literal) => {
        #[target_feature(enable = $f)]
        unsafe fn chains<const NR: usize, const V: usize>(job: &mut ChainsJob<'_>) {
            // SAFETY: this function has the tier's features; `job` is the
            // caller's.
            unsafe { run::<Self, NR, V>(job) }
        }
    };
}

// SAFETY (every `unsafe` block of the three impls): the caller's guarantees
// (the tier's features; pointers valid as each method says).
impl ChainLane for Xmm {
    #[inline(always)]
    unsafe fn chain_off(r0: u128, first: u128, c0: u128) -> XmmOff {
        xmm_chain_off(r0, first, c0)
    }
    #[inline(always)]
    unsafe fn gather(src: &[*const Block], t: usize, _lanes: usize) -> Self {
        unsafe { Self::load(src[0].add(t)) }
    }
    #[inline(always)]
    unsafe fn gather2(src: &[*const Block], t: usize, _lanes: usize) -> [Self; 2] {
        unsafe { [Self::load(src[0].add(t)), Self::load(src[0].add(t + 1))] }
    }
    #[inline(always)]
    unsafe fn scatter(dst: &[*mut Block], t: usize, _lanes: usize, y: Self) {
        unsafe { Self::store(dst[0].add(t), y) }
    }
    chains_entry!("aes,sse2");
}

impl ChainLane for Ymm {
    #[inline(always)]
    unsafe fn chain_off(r0: u128, first: u128, c0: u128) -> YmmOff {
        unsafe { ymm_chain_off(r0, first, c0) }
    }
    #[inline(always)]
    unsafe fn gather(src: &[*const Block], t: usize, lanes: usize) -> Self {
        unsafe { Ymm(ymm_gather(src, t, lanes)) }
    }
    #[inline(always)]
    unsafe fn gather2(src: &[*const Block], t: usize, lanes: usize) -> [Self; 2] {
        unsafe { ymm_gather2(src, t, lanes).map(Ymm) }
    }
    #[inline(always)]
    unsafe fn scatter(dst: &[*mut Block], t: usize, lanes: usize, y: Self) {
        unsafe { ymm_scatter(dst, t, lanes, y.0) }
    }
    chains_entry!("avx,avx2,aes,vaes,pclmulqdq,vpclmulqdq");
}

impl ChainLane for Zmm {
    #[inline(always)]
    unsafe fn chain_off(r0: u128, first: u128, c0: u128) -> ZmmOff {
        unsafe { zmm_chain_off(r0, first, c0) }
    }
    #[inline(always)]
    unsafe fn gather(src: &[*const Block], t: usize, lanes: usize) -> Self {
        unsafe { Zmm(zmm_gather(src, t, lanes)) }
    }
    #[inline(always)]
    unsafe fn gather2(src: &[*const Block], t: usize, lanes: usize) -> [Self; 2] {
        unsafe { zmm_gather2(src, t, lanes).map(Zmm) }
    }
    #[inline(always)]
    unsafe fn scatter(dst: &[*mut Block], t: usize, lanes: usize, y: Self) {
        unsafe { zmm_scatter(dst, t, lanes, y.0) }
    }
    chains_entry!("avx512f,avx512bw,vaes,vpclmulqdq");
}
