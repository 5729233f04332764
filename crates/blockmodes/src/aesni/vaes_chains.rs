//! pXCBC encryption's segment chains on VAES-512 (with AVX-512BW): up
//! to [`CHAINS`] independent XCBC-XOR chains (Gligor–Donescu, section 4:
//! one per segment) in lock step, four per zmm register (chain 4v + j in
//! lane j of register v). Round t of every chain:
//!
//! * `x` gathered from the chain's own run of blocks, two rounds at a
//!   time (one 32-byte load per chain, the 4 x 2 blocks of a register
//!   pair transposed: [`gather_tile`]; a lone round: one load and three
//!   inserts per register), `Σ ^= x` (the check block's sum, seeded with
//!   z0^(s) by the caller);
//! * `z = E_K(z xor x)`: `z xor x xor K0` is one `vpternlogq`;
//! * `y = z + i r0^(s)` (i = first + t, mod 2^128 on big-endian blocks) on
//!   pairs of registers split into 64-bit halves by `vaes_gd.rs`'s
//!   [`split`] (a byte reversal and `vpunpck{l,h}qdq`: single-uop shuffles
//!   off the AES port) and back by [`join`], a 128-bit addition with the
//!   low halves' carry through a mask; the offsets `i r0^(s)` advance by r0^(s) per
//!   round in the same split form;
//! * the lanes of `y` scattered into each chain's run of outputs (three
//!   extracts, four stores per register).
//!
//! With `check`, one more round takes `x = Σ` (the check block
//! `x_{n+1} = z0 xor x_1 xor ... xor x_n`).
//!
//! Why sixteen chains: a chain's round is the AES latency times the round
//! count (about 30 cycles for AES-128); four registers keep the one
//! 512-bit AES port busy. Measured with `aesni::bench::bench_chain_bound`
//! (16 KiB, AES-128, Sapphire Rapids): `z = E(z xor x)` on 1, 2, 3, 4, 6
//! registers runs at 0.32, 0.62, 0.92, 0.96, 1.02x of ECB. The round's
//! other work (gathers, offsets, scatters) then shares the vector ports
//! with the rounds: that, not the latency, bounds the kernel.

use core::arch::x86_64::*;

use super::schedule::load;
use super::vaes_gd::{BSWAP, add128, idx, join, split};
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

/// The offsets `i r0^(s)` of a pair of registers (chains 8p .. 8p + 7,
/// element e: chain 8p + [`chain_of`]`(e)`, [`split`]'s order) as low and
/// high 64-bit halves, and the step r0^(s) that advances them by one
/// round.
struct Off {
    lo: __m512i,
    hi: __m512i,
    step_lo: __m512i,
    step_hi: __m512i,
}

/// The chain (within its pair of registers) of element `e` of the split
/// halves: [`split`] puts block `e / 2 + 4 (e % 2)` of the pair there.
const fn chain_of(e: usize) -> usize {
    e / 2 + 4 * (e % 2)
}

/// Run `job` with `NR` rounds on `V` registers (`4 (V - 1) < lanes <= 4 V`).
///
/// # Safety
/// The CPU must have AVX-512F, AVX-512BW and VAES. For
/// every chain l below `job.lanes`, `job.src[l]` must be valid for
/// `job.n` blocks and `job.dst[l]` for `job.n + job.check` blocks, the
/// outputs disjoint from each other and from the inputs.
#[target_feature(enable = "avx512f,avx512bw,vaes")]
pub(super) unsafe fn run<const NR: usize, const V: usize>(job: &mut ChainsJob<'_>) {
    let mut k = [_mm512_setzero_si512(); 15];
    for (kr, b) in k.iter_mut().zip(job.keys.iter()).take(NR + 1) {
        *kr = _mm512_broadcast_i32x4(load(b));
    }
    let bswap = idx(&BSWAP);
    let zero = _mm512_setzero_si512();
    let mut z = [zero; V];
    let mut sum = [zero; V];
    if let Some((keys, c)) = job.z0 {
        fresh::<NR, V>(keys, c, bswap, &mut z);
        sum = z;
    } else {
        for v in 0..V {
            // SAFETY: `job.z` and `job.sums` hold 16 blocks, 4 V <= 16.
            unsafe {
                z[v] = _mm512_loadu_si512(job.z.as_ptr().add(4 * v).cast());
                sum[v] = _mm512_loadu_si512(job.sums.as_ptr().add(4 * v).cast());
            }
        }
    }
    let off: [Off; 2] = core::array::from_fn(|p| offsets(job.r0, job.first, p));
    // Chains in the last register.
    let last = job.lanes - 4 * (V - 1);
    let lanes = |v: usize| if v + 1 < V { 4 } else { last };
    let rounds = job.n + usize::from(job.check);
    let c = Consts { k, bswap };
    let mut st = Lanes { z, sum, off };
    let mut t = 0;
    // Rounds t .. t + TILE from one 32-byte load per chain.
    while t + TILE <= job.n {
        let xs: [[__m512i; TILE]; V] = core::array::from_fn(|v| {
            // SAFETY: t + TILE <= n: the caller's.
            unsafe { gather_tile(&job.src[4 * v..], t, lanes(v)) }
        });
        let ys = [0, 1].map(|r| st.round::<NR>(&c, core::array::from_fn(|v| xs[v][r]), true));
        for (r, y) in ys.iter().enumerate() {
            for (v, yv) in y.iter().enumerate() {
                // SAFETY: t + r < n: the caller's.
                unsafe { scatter(&job.dst[4 * v..], t + r, lanes(v), *yv) };
            }
        }
        t += TILE;
    }
    // Round t alone: x from 16-byte loads, or Σ in the check round.
    while t < rounds {
        let x: [__m512i; V] = core::array::from_fn(|v| {
            if t < job.n {
                // SAFETY: t < n: the caller's.
                unsafe { gather(&job.src[4 * v..], t, lanes(v)) }
            } else {
                st.sum[v] // the check block
            }
        });
        let y = st.round::<NR>(&c, x, t < job.n);
        for (v, yv) in y.iter().enumerate() {
            // SAFETY: t < n + check: the caller's.
            unsafe { scatter(&job.dst[4 * v..], t, lanes(v), *yv) };
        }
        t += 1;
    }
    let Lanes { z, sum, mut off } = st;
    for v in 0..V {
        // SAFETY: as above.
        unsafe {
            _mm512_storeu_si512(job.z.as_mut_ptr().add(4 * v).cast(), z[v]);
            _mm512_storeu_si512(job.sums.as_mut_ptr().add(4 * v).cast(), sum[v]);
        }
    }
    // The offsets give r0 away.
    for o in &mut off {
        *o = Off {
            lo: zero,
            hi: zero,
            step_lo: zero,
            step_hi: zero,
        };
    }
    core::hint::black_box(&off);
}

/// The round keys (broadcast) and the byte reversal of [`split`] and
/// [`join`].
struct Consts {
    k: [__m512i; 15],
    bswap: __m512i,
}

/// The chains' state between rounds: z, Σ and the offsets.
struct Lanes<const V: usize> {
    z: [__m512i; V],
    sum: [__m512i; V],
    off: [Off; 2],
}

impl<const V: usize> Lanes<V> {
    /// One round of every chain with x from `x` (`Σ ^= x` if `add`):
    /// `z = E_K(z xor x)`, returning `y = z + i r0^(s)` and advancing the
    /// offsets.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes")]
    fn round<const NR: usize>(&mut self, c: &Consts, x: [__m512i; V], add: bool) -> [__m512i; V] {
        let zero = _mm512_setzero_si512();
        let mut s = [zero; V];
        for v in 0..V {
            if add {
                self.sum[v] = _mm512_xor_si512(self.sum[v], x[v]);
            }
            s[v] = _mm512_ternarylogic_epi64::<0x96>(self.z[v], x[v], c.k[0]);
        }
        for kr in &c.k[1..NR] {
            for sv in s.iter_mut() {
                *sv = _mm512_aesenc_epi128(*sv, *kr);
            }
        }
        for (zv, sv) in self.z.iter_mut().zip(s) {
            *zv = _mm512_aesenclast_epi128(sv, c.k[NR]);
        }
        // y = z + i r0^(s), a pair of registers at a time.
        let mut y = [zero; V];
        let mut v = 0;
        while v < V {
            let o = &mut self.off[v / 2];
            let b = if v + 1 < V { self.z[v + 1] } else { zero };
            let (lo, hi) = split(c.bswap, self.z[v], b);
            let (lo, hi) = add128(lo, hi, o.lo, o.hi);
            let (ya, yb) = join(c.bswap, lo, hi);
            y[v] = ya;
            if v + 1 < V {
                y[v + 1] = yb;
            }
            (o.lo, o.hi) = add128(o.lo, o.hi, o.step_lo, o.step_hi);
            v += 2;
        }
        y
    }
}

/// The offsets of pair `p` before round 0: `first (r0 + l)` for chains
/// l = 8p .. 8p + 7, and their step `r0 + l`.
#[inline]
#[target_feature(enable = "avx512f")]
fn offsets(r0: u128, first: u128, p: usize) -> Off {
    if first == 1 {
        return first_offsets(r0, p);
    }
    let mut h = [[0u64; 8]; 4];
    // (A counted loop: `e` indexes the four rows.)
    #[allow(clippy::needless_range_loop)]
    for e in 0..8 {
        let r = r0.wrapping_add((8 * p + chain_of(e)) as u128);
        let o = first.wrapping_mul(r);
        h[0][e] = o as u64;
        h[1][e] = (o >> 64) as u64;
        h[2][e] = r as u64;
        h[3][e] = (r >> 64) as u64;
    }
    // SAFETY: each row is 64 bytes.
    let off = unsafe {
        Off {
            lo: _mm512_loadu_si512(h[0].as_ptr().cast()),
            hi: _mm512_loadu_si512(h[1].as_ptr().cast()),
            step_lo: _mm512_loadu_si512(h[2].as_ptr().cast()),
            step_hi: _mm512_loadu_si512(h[3].as_ptr().cast()),
        }
    };
    h = [[0; 8]; 4];
    core::hint::black_box(&h);
    off
}

/// z0^(s) of every chain: `E(c + l)` under `keys` for chain l, the
/// counters made in registers (as the offsets, then joined into
/// big-endian blocks).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes")]
fn fresh<const NR: usize, const V: usize>(
    keys: &[Block; 15],
    c: u128,
    bswap: __m512i,
    z: &mut [__m512i; V],
) {
    for p in 0..V.div_ceil(2) {
        let Off { lo, hi, .. } = first_offsets(c, p);
        let (za, zb) = join(bswap, lo, hi);
        z[2 * p] = za;
        if 2 * p + 1 < V {
            z[2 * p + 1] = zb;
        }
    }
    let k0 = _mm512_broadcast_i32x4(load(&keys[0]));
    for zv in z.iter_mut() {
        *zv = _mm512_xor_si512(*zv, k0);
    }
    for kr in &keys[1..NR] {
        let kr = _mm512_broadcast_i32x4(load(kr));
        for zv in z.iter_mut() {
            *zv = _mm512_aesenc_epi128(*zv, kr);
        }
    }
    let last = _mm512_broadcast_i32x4(load(&keys[NR]));
    for zv in z.iter_mut() {
        *zv = _mm512_aesenclast_epi128(*zv, last);
    }
}

/// [`offsets`] for `first` = 1 (offset = step = `r0 + l`) in registers:
/// r0's halves broadcast, l added to the low halves with the carry into
/// the high ones (no scalar rows to reload: a 64-byte load of eight
/// 8-byte stores waits for them to retire).
#[inline]
#[target_feature(enable = "avx512f")]
fn first_offsets(r0: u128, p: usize) -> Off {
    // l = 8p + chain_of(e) in element e.
    let l = _mm512_add_epi64(
        _mm512_set1_epi64((8 * p) as i64),
        _mm512_setr_epi64(0, 4, 1, 5, 2, 6, 3, 7),
    );
    let (lo, hi) = add128(
        _mm512_set1_epi64(r0 as u64 as i64),
        _mm512_set1_epi64((r0 >> 64) as u64 as i64),
        l,
        _mm512_setzero_si512(),
    );
    Off {
        lo,
        hi,
        step_lo: lo,
        step_hi: hi,
    }
}

/// Block `t` of the first `lanes` (1 ..= 4) chains of `src`, lane j from
/// `src[j]` (the lanes above `lanes` zero).
///
/// # Safety
/// `src[j]` valid for `t + 1` blocks, j < `lanes`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn gather(src: &[*const Block], t: usize, lanes: usize) -> __m512i {
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

/// Rounds per tile: one 32-byte load per chain, transposed.
const TILE: usize = 2;

/// Blocks t, t + 1 of the first `lanes` (1 ..= 4) chains of `src`, round
/// r's in register r, lane j from `src[j]` (the lanes above `lanes`
/// zero): one 32-byte load per chain, chains 0, 1 (and 2, 3) joined by a
/// `vinserti64x4` into [x_t, x_t+1 of chain 0 | of chain 1], then two
/// `vshufi64x2` pick the even and the odd lanes of both: four ops for two
/// registers' rounds, where [`gather`] takes three `vinserti32x4` per
/// register and round.
///
/// # Safety
/// `src[j]` valid for `t + 2` blocks, j < `lanes`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn gather_tile(src: &[*const Block], t: usize, lanes: usize) -> [__m512i; TILE] {
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
unsafe fn scatter(dst: &[*mut Block], t: usize, lanes: usize, y: __m512i) {
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
