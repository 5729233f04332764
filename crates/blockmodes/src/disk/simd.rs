//! AVX-512 kernels of the disk ciphers: the one module of the disk family
//! with `unsafe` code (x86-64 only; everything else stays safe).
//!
//! # What it does
//!
//! * [`Avx512::swap_xor`]: StE's constant-time swap of K and H fused with a
//!   xor (XEX's Δ), four blocks per 512-bit vector. A lane equals K when
//!   both of its 64-bit halves do: the xor with K of the block and of the
//!   block with its halves swapped, or-ed, is zero in both halves exactly
//!   then; the minimum of that and the same for H is zero when the block is
//!   K or H, which one `vptestnmq` turns into a mask, and the lanes selected
//!   get `K ⊕ H` by a masked xor. No branch, no table index.
//! * [`Avx512::xex_batch`] / [`Avx512::powers_x_le`]: `a·x^j` for a run
//!   of j (XEX's deltas `E_K(N)·2^i`, EME's `2^(i-1)·M`) without a chain of
//!   doublings: for `0 <= j <= 64`, `a·x^j = (a << j) ⊕ c·(x^7 + x^2 + x + 1)`
//!   where `c = a >> (128 - j)` is the part shifted out, multiplied
//!   carry-less with one `vpclmulqdq`. That gives the first eight powers of
//!   a run in two vectors (four lanes each, per-lane shift counts); then
//!   each vector steps by `x^8` (two byte shifts, one `vpclmulqdq`, one
//!   xor: all port-5 work, beside the rounds on port 0), two independent
//!   chains. BE blocks are byte-reversed in and out
//!   (`vpshufb`). XEX's kernel also xors the deltas into the batch, and is
//!   called once per batch inside the cipher's call, so the processor
//!   overlaps it with the previous batch's rounds.
//!
//! The portable code ([`crate::arith::gf128::powers_x_be`], `powers_x_le`, StE's
//! portable swap) is the fallback and the reference of the tests.
//!
//! # Why `unsafe`
//!
//! * The kernels are `#[target_feature]` functions: calling them is
//!   `unsafe` because the CPU must have the features. An [`Avx512`] value
//!   can only be made by [`Avx512::detect`], which checks them at run time:
//!   it is the proof, and its methods are the safe entry points.
//! * Vector loads and stores take raw pointers: each full one covers four
//!   blocks inside the slice, and the last partial vector is masked to the
//!   blocks inside it.
//!
//! # The benchmark that justified it
//!
//! In `docs/performance.md`, section "The generic path's AVX-512
//! kernels"; the measurement itself in
//! `docs/lab/2026-11-24-generic-avx512-kernels.md`.
#![allow(unsafe_code)]

use crate::arith::gf128::Block;

/// Proof that the CPU has AVX-512 F/BW/VL/DQ and VPCLMULQDQ: the kernels'
/// safe entry points are its methods.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512(());

#[cfg(target_arch = "x86_64")]
cpufeatures::new!(
    cpu_avx512_clmul,
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512dq",
    "vpclmulqdq",
    "pclmulqdq"
);

impl Avx512 {
    /// `Some` if the CPU has the features the kernels need (checked once,
    /// cached by `cpufeatures`).
    pub(crate) fn detect() -> Option<Self> {
        if crate::backend::ISLANDS_OFF.load(core::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        {
            if cpu_avx512_clmul::get() {
                return Some(Avx512(()));
            }
        }
        None
    }

    /// `blocks[k] = swap(blocks[k] ⊕ pre) ⊕ post`, where swap exchanges K
    /// and H (see `crate::ste::SteSwap`), in constant time.
    #[inline]
    pub(crate) fn swap_xor(
        self,
        k: &Block,
        h: &Block,
        pre: &Block,
        post: &Block,
        blocks: &mut [Block],
    ) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `self` proves the CPU has the kernel's features.
        unsafe {
            x86::swap_xor(k, h, pre, post, blocks)
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (k, h, pre, post, blocks);
    }

    /// `out[j] = a·x^j` in the BE convention (as
    /// [`crate::arith::gf128::powers_x_be`]).
    #[inline]
    pub(crate) fn powers_x_be(self, a: &Block, out: &mut [Block]) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `self` proves the CPU has the kernel's features.
        unsafe {
            x86::powers::<true>(a, out);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (a, out);
    }

    /// XEX's whitening of one batch of a group of units of `m` blocks
    /// (`1 <= m <= 128`): for block k of the batch, block `start + k` of the
    /// group, i.e. block `j` of unit `s`: `deltas[k] = en[s]·x^(j+1)` (BE)
    /// and `blocks[k] = data[k] ⊕ deltas[k]`. Called once per batch inside
    /// the cipher's call, so the processor overlaps it with the rounds of
    /// the batch before.
    #[inline]
    pub(crate) fn xex_batch(
        self,
        en: &[Block],
        m: usize,
        start: usize,
        data: &[Block],
        deltas: &mut [Block],
        blocks: &mut [Block],
    ) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `self` proves the CPU has the kernel's features.
        unsafe {
            x86::xex_batch(en, m, start, data, deltas, blocks);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (en, m, start, data, deltas, blocks);
    }

    /// EME's second-pass whitening of one batch of a group of units of `m`
    /// blocks (`1 <= m <= 128`): for block k of the batch, block `start + k`
    /// of the group, i.e. block `j` of unit `s`:
    /// `blocks[k] = data[k] ⊕ ms[s]·x^j` (LE), except `blocks[k] = data[k]`
    /// for j = 0 (EME's CCC_1 takes no power of M).
    #[inline]
    pub(crate) fn eme_batch(
        self,
        ms: &[Block],
        m: usize,
        start: usize,
        data: &[Block],
        blocks: &mut [Block],
    ) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `self` proves the CPU has the kernel's features.
        unsafe {
            x86::eme_batch(ms, m, start, data, blocks);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (ms, m, start, data, blocks);
    }

    /// `a·b` in GF(2^128), LE convention (carry-less, constant time).
    #[inline]
    pub(crate) fn mul_le(self, a: &Block, b: &Block) -> Block {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `self` proves the CPU has the kernel's features.
        unsafe {
            x86::mul_le(a, b)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (a, b);
            [0; 16]
        }
    }

    /// `out[j] = a·x^j` in the LE convention, returning the xor of the
    /// blocks written (as [`crate::arith::gf128::powers_x_le`]).
    #[inline]
    pub(crate) fn powers_x_le(self, a: &Block, out: &mut [Block]) -> Block {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `self` proves the CPU has the kernel's features.
        unsafe {
            x86::powers::<false>(a, out)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (a, out);
            [0; 16]
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    use crate::arith::gf128::Block;

    /// The mask of the blocks `0..r` of a vector (two 64-bit lanes each).
    #[inline(always)]
    fn tail_mask(r: usize) -> __mmask8 {
        ((1u32 << (2 * r)) - 1) as __mmask8
    }

    /// One block in every 128-bit lane.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn bcast(b: &Block) -> __m512i {
        // SAFETY: reads the 16 bytes of `b`.
        unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(b.as_ptr().cast())) }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    pub(super) unsafe fn swap_xor(
        k: &Block,
        h: &Block,
        pre: &Block,
        post: &Block,
        blocks: &mut [Block],
    ) {
        // SAFETY: each `bcast` reads one block.
        let (k4, h4, pre4, post4) = unsafe { (bcast(k), bcast(h), bcast(pre), bcast(post)) };
        // x = v ⊕ pre equals K exactly when v equals K ⊕ pre.
        let (kp, hp) = (_mm512_xor_si512(k4, pre4), _mm512_xor_si512(h4, pre4));
        let (kps, hps) = (
            _mm512_shuffle_epi32::<_MM_PERM_BADC>(kp),
            _mm512_shuffle_epi32::<_MM_PERM_BADC>(hp),
        );
        let (c4, kh4) = (_mm512_xor_si512(pre4, post4), _mm512_xor_si512(k4, h4));
        // Per 64-bit half: zk = (v ⊕ K') | (v' ⊕ K'') with v' the block's
        // halves swapped, zero in both halves exactly when the block is
        // K' = K ⊕ pre; the same for H; min(zk, zh) = 0 when either is.
        // One shuffle and one mask-making compare per vector (the only
        // port-5-only operations: the cipher's rounds run on port 0).
        let one = |v: __m512i| -> __m512i {
            let vs = _mm512_shuffle_epi32::<_MM_PERM_BADC>(v);
            let zk = _mm512_ternarylogic_epi64::<0xf6>(_mm512_xor_si512(v, kp), vs, kps);
            let zh = _mm512_ternarylogic_epi64::<0xf6>(_mm512_xor_si512(v, hp), vs, hps);
            let e = _mm512_min_epu64(zk, zh);
            let swap = _mm512_testn_epi64_mask(e, e);
            let y = _mm512_xor_si512(v, c4);
            _mm512_mask_xor_epi64(y, swap, y, kh4)
        };
        let mut chunks = blocks.chunks_exact_mut(4);
        for c in &mut chunks {
            let p = c.as_mut_ptr().cast::<__m512i>();
            // SAFETY: `c` is four blocks, 64 bytes.
            unsafe { _mm512_storeu_si512(p, one(_mm512_loadu_si512(p))) };
        }
        let rest = chunks.into_remainder();
        if !rest.is_empty() {
            let m = tail_mask(rest.len());
            let p = rest.as_mut_ptr().cast::<i64>();
            // SAFETY: the mask covers the `rest.len()` blocks of `rest`.
            unsafe {
                let v = _mm512_maskz_loadu_epi64(m, p);
                _mm512_mask_storeu_epi64(p, m, one(v));
            }
        }
    }

    /// `base·x^(e + l)` for l = 0..8 (`0 <= e <= 64`) as two vectors: in one
    /// step from `base` when `e + 7 <= 64`, else through `base·x^e`.
    #[target_feature(enable = "avx512f,avx512dq,vpclmulqdq")]
    #[inline]
    fn first_eight(base: __m512i, e: i64, poly: __m512i) -> (__m512i, __m512i) {
        let lanes = _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0);
        let four = _mm512_set1_epi64(4);
        let (from, cnt) = if e + 7 <= 64 {
            (base, _mm512_add_epi64(lanes, _mm512_set1_epi64(e)))
        } else {
            (times_x_pow(base, _mm512_set1_epi64(e), poly), lanes)
        };
        (
            times_x_pow(from, cnt, poly),
            times_x_pow(from, _mm512_add_epi64(cnt, four), poly),
        )
    }

    /// `a·x^j` for the four j of `cnt` (each count twice, one per 64-bit
    /// half), `0 <= j <= 64`, on the value `v` (low half first) in every
    /// lane.
    #[target_feature(enable = "avx512f,avx512dq,vpclmulqdq")]
    #[inline]
    fn times_x_pow(v: __m512i, cnt: __m512i, poly: __m512i) -> __m512i {
        let shl = _mm512_sllv_epi64(v, cnt);
        let spill = _mm512_srlv_epi64(v, _mm512_sub_epi64(_mm512_set1_epi64(64), cnt));
        // Low half: the carry c = hi >> (64 - j); high half: lo >> (64 - j).
        let sw = _mm512_shuffle_epi32::<_MM_PERM_BADC>(spill);
        let red = _mm512_clmulepi64_epi128::<0x00>(sw, poly);
        let t = _mm512_xor_si512(shl, red);
        _mm512_mask_xor_epi64(t, 0xaa, t, sw)
    }

    /// The byte reversal of every lane (BE blocks to values and back).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn rev_bytes() -> __m512i {
        _mm512_broadcast_i32x4(_mm_set_epi8(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        ))
    }

    /// `out[j] = a·x^j`; BE (blocks byte-reversed) or LE. Returns the xor of
    /// the blocks written (LE value layout, i.e. the blocks' own bytes).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq")]
    pub(super) unsafe fn powers<const BE: bool>(a: &Block, out: &mut [Block]) -> Block {
        let rev = rev_bytes();
        let order = |v: __m512i| if BE { _mm512_shuffle_epi8(v, rev) } else { v };
        // SAFETY: reads the 16 bytes of `a`.
        let base = order(unsafe { bcast(a) });
        let first = _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0);
        // SAFETY: our caller's CPU has the features (we do).
        let sum = unsafe { run::<BE>(base, first, out) };
        let s = _mm_xor_si128(
            _mm_xor_si128(
                _mm512_castsi512_si128(sum),
                _mm512_extracti64x2_epi64::<1>(sum),
            ),
            _mm_xor_si128(
                _mm512_extracti64x2_epi64::<2>(sum),
                _mm512_extracti64x2_epi64::<3>(sum),
            ),
        );
        let mut r = [0u8; 16];
        // SAFETY: writes the 16 bytes of `r`.
        unsafe { _mm_storeu_si128(r.as_mut_ptr().cast(), s) };
        r
    }

    /// See [`super::Avx512::xex_batch`].
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq")]
    pub(super) unsafe fn xex_batch(
        en: &[Block],
        m: usize,
        start: usize,
        data: &[Block],
        deltas: &mut [Block],
        blocks: &mut [Block],
    ) {
        let n = data.len().min(deltas.len()).min(blocks.len());
        let m = m.max(1);
        let rev = rev_bytes();
        let poly = _mm512_set1_epi64(0x87);
        let mut k = 0;
        while k < n {
            let (s, j) = ((start + k) / m, (start + k) % m);
            let len = (m - j).min(n - k);
            let Some(e) = en.get(s) else { break };
            // SAFETY: reads the 16 bytes of `e`.
            let mut base = _mm512_shuffle_epi8(unsafe { bcast(e) }, rev);
            // The first delta of the piece, e·x^(j+1), by steps of at most x^64.
            let mut exp = j as i64 + 1;
            while exp > 64 {
                base = times_x_pow(base, _mm512_set1_epi64(64), poly);
                exp -= 64;
            }
            let (d0, d1) = first_eight(base, exp, poly);
            let r = k..k + len;
            // SAFETY: our caller's CPU has the features (we do).
            unsafe {
                xor_run::<true, true>(
                    d0,
                    d1,
                    &data[r.clone()],
                    &mut deltas[r.clone()],
                    &mut blocks[r],
                )
            };
            k += len;
        }
    }

    /// See [`super::Avx512::eme_batch`].
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq")]
    pub(super) unsafe fn eme_batch(
        ms: &[Block],
        m: usize,
        start: usize,
        data: &[Block],
        blocks: &mut [Block],
    ) {
        let n = data.len().min(blocks.len());
        let m = m.max(1);
        let poly = _mm512_set1_epi64(0x87);
        let mut k = 0;
        while k < n {
            let (s, mut j) = ((start + k) / m, (start + k) % m);
            let mut len = (m - j).min(n - k);
            if j == 0 {
                blocks[k] = data[k];
                (k, j, len) = (k + 1, 1, len - 1);
                if len == 0 {
                    continue;
                }
            }
            let Some(big_m) = ms.get(s) else { break };
            // SAFETY: reads the 16 bytes of `big_m`.
            let mut base = unsafe { bcast(big_m) };
            let mut exp = j as i64;
            while exp > 64 {
                base = times_x_pow(base, _mm512_set1_epi64(64), poly);
                exp -= 64;
            }
            let (d0, d1) = first_eight(base, exp, poly);
            let r = k..k + len;
            // SAFETY: our caller's CPU has the features (we do).
            unsafe { xor_run::<false, false>(d0, d1, &data[r.clone()], &mut [], &mut blocks[r]) };
            k += len;
        }
    }

    /// `a·b` mod `x^128 + x^7 + x^2 + x + 1`, LE convention (the blocks'
    /// little-endian words are the polynomial's halves).
    #[target_feature(enable = "pclmulqdq,sse2")]
    pub(super) unsafe fn mul_le(a: &Block, b: &Block) -> Block {
        // SAFETY: reads the 16 bytes of `a` and of `b`.
        let (a, b) = unsafe {
            (
                _mm_loadu_si128(a.as_ptr().cast()),
                _mm_loadu_si128(b.as_ptr().cast()),
            )
        };
        let mid = _mm_xor_si128(
            _mm_clmulepi64_si128::<0x01>(a, b),
            _mm_clmulepi64_si128::<0x10>(a, b),
        );
        let lo = _mm_xor_si128(_mm_clmulepi64_si128::<0x00>(a, b), _mm_slli_si128::<8>(mid));
        let hi = _mm_xor_si128(_mm_clmulepi64_si128::<0x11>(a, b), _mm_srli_si128::<8>(mid));
        // hi = h0 + h1 x^64 stands at x^128: h1 x^192 = (h1·0x87) x^64 = t0 x^64
        // + t1 x^128, and h0 x^128 + t1 x^128 = (h0 ⊕ t1)·0x87.
        let poly = _mm_set_epi64x(0, 0x87);
        let t = _mm_clmulepi64_si128::<0x01>(hi, poly);
        let lo = _mm_xor_si128(lo, _mm_slli_si128::<8>(t));
        let u = _mm_clmulepi64_si128::<0x00>(_mm_xor_si128(hi, _mm_srli_si128::<8>(t)), poly);
        let mut r = [0u8; 16];
        // SAFETY: writes the 16 bytes of `r`.
        unsafe { _mm_storeu_si128(r.as_mut_ptr().cast(), _mm_xor_si128(lo, u)) };
        r
    }

    /// The powers `d0, d1, d0·x^8, d1·x^8, ...` (values; stored BE if `BE`)
    /// into `deltas` if `KEEP`, and `blocks = data ⊕ powers`; the slices the
    /// same length (`deltas` unused unless `KEEP`).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq")]
    #[inline]
    unsafe fn xor_run<const BE: bool, const KEEP: bool>(
        mut d0: __m512i,
        mut d1: __m512i,
        data: &[Block],
        deltas: &mut [Block],
        blocks: &mut [Block],
    ) {
        let rev = rev_bytes();
        let order = |v: __m512i| if BE { _mm512_shuffle_epi8(v, rev) } else { v };
        let poly = _mm512_set1_epi64(0x87);
        let mut n = data.len().min(blocks.len());
        if KEEP {
            n = n.min(deltas.len());
        }
        let (dp, op, ip) = (
            deltas.as_mut_ptr().cast::<__m512i>(),
            blocks.as_mut_ptr().cast::<__m512i>(),
            data.as_ptr().cast::<__m512i>(),
        );
        let mut v = 0;
        // SAFETY (all the loads and stores below): vector v covers blocks
        // 4v..4v + 4 of the three slices, inside their first n blocks (the
        // last one masked to them).
        while 4 * v + 8 <= n {
            let (o0, o1) = (order(d0), order(d1));
            unsafe {
                if KEEP {
                    _mm512_storeu_si512(dp.add(v), o0);
                    _mm512_storeu_si512(dp.add(v + 1), o1);
                }
                let (x0, x1) = (
                    _mm512_loadu_si512(ip.add(v)),
                    _mm512_loadu_si512(ip.add(v + 1)),
                );
                _mm512_storeu_si512(op.add(v), _mm512_xor_si512(x0, o0));
                _mm512_storeu_si512(op.add(v + 1), _mm512_xor_si512(x1, o1));
            }
            d0 = times_x8(d0, poly);
            d1 = times_x8(d1, poly);
            v += 2;
        }
        if 4 * v + 4 <= n {
            let o0 = order(d0);
            unsafe {
                if KEEP {
                    _mm512_storeu_si512(dp.add(v), o0);
                }
                let x0 = _mm512_loadu_si512(ip.add(v));
                _mm512_storeu_si512(op.add(v), _mm512_xor_si512(x0, o0));
            }
            d0 = d1;
            v += 1;
        }
        let r = n - 4 * v;
        if r > 0 {
            let mk = tail_mask(r);
            let o0 = order(d0);
            unsafe {
                if KEEP {
                    _mm512_mask_storeu_epi64(dp.add(v).cast(), mk, o0);
                }
                let x0 = _mm512_maskz_loadu_epi64(mk, ip.add(v).cast());
                _mm512_mask_storeu_epi64(op.add(v).cast(), mk, _mm512_xor_si512(x0, o0));
            }
        }
    }

    /// `v·x^8` in every lane (value layout, low byte first): the lane
    /// shifted up one byte, and its top byte `c` back as
    /// `c·(x^7 + x^2 + x + 1)`. Byte shifts and the carry-less multiply run
    /// on port 5, leaving port 0 to the cipher's rounds (64-bit shifts would
    /// compete with them).
    #[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
    #[inline]
    fn times_x8(v: __m512i, poly: __m512i) -> __m512i {
        let shl = _mm512_bslli_epi128::<1>(v);
        let c = _mm512_bsrli_epi128::<15>(v);
        _mm512_xor_si512(shl, _mm512_clmulepi64_epi128::<0x00>(c, poly))
    }

    /// `out[j] = base·x^(j + e)` where `first` holds the exponents
    /// `e, e, e + 1, e + 1, ..., e + 3` (`e <= 1`), `base` the value in every
    /// lane; BE: stored byte-reversed. Returns the xor of the vectors stored.
    ///
    /// Two vectors (eight consecutive powers) each step by `x^8`: no chain
    /// of dependent doublings, and the two chains overlap.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq")]
    #[inline]
    unsafe fn run<const BE: bool>(base: __m512i, first: __m512i, out: &mut [Block]) -> __m512i {
        let rev = rev_bytes();
        let order = |v: __m512i| if BE { _mm512_shuffle_epi8(v, rev) } else { v };
        let poly = _mm512_set1_epi64(0x87);
        let mut d0 = times_x_pow(base, first, poly);
        let mut d1 = times_x_pow(base, _mm512_add_epi64(first, _mm512_set1_epi64(4)), poly);
        let mut sum = _mm512_setzero_si512();
        let mut chunks = out.chunks_exact_mut(8);
        for c in &mut chunks {
            let (o0, o1) = (order(d0), order(d1));
            sum = _mm512_ternarylogic_epi64::<0x96>(sum, o0, o1);
            let p = c.as_mut_ptr().cast::<__m512i>();
            // SAFETY: `c` is eight blocks, 128 bytes.
            unsafe {
                _mm512_storeu_si512(p, o0);
                _mm512_storeu_si512(p.add(1), o1);
            }
            d0 = times_x8(d0, poly);
            d1 = times_x8(d1, poly);
        }
        let mut rest = chunks.into_remainder();
        if rest.len() >= 4 {
            let (four, tail) = rest.split_at_mut(4);
            let o0 = order(d0);
            sum = _mm512_xor_si512(sum, o0);
            // SAFETY: `four` is four blocks, 64 bytes.
            unsafe { _mm512_storeu_si512(four.as_mut_ptr().cast(), o0) };
            d0 = d1;
            rest = tail;
        }
        if !rest.is_empty() {
            let m = tail_mask(rest.len());
            let o = _mm512_maskz_mov_epi64(m, order(d0));
            sum = _mm512_xor_si512(sum, o);
            // SAFETY: the mask covers the `rest.len()` blocks of `rest`.
            unsafe { _mm512_mask_storeu_epi64(rest.as_mut_ptr().cast(), m, o) };
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::gf128::{double_be, double_le, xor};

    fn blocks(n: usize, seed: u8) -> Vec<Block> {
        (0..n)
            .map(|i| core::array::from_fn(|b| (i * 31 + b * 7) as u8 ^ seed))
            .collect()
    }

    #[test]
    fn powers_match_doubling_at_every_length() {
        let Some(simd) = Avx512::detect() else { return };
        for a in [[0x81u8; 16], [0xff; 16], [0; 16], [0x5a; 16], [1; 16]] {
            let mut be = vec![[0u8; 16]; 300];
            let mut le = vec![[0u8; 16]; 300];
            simd.powers_x_be(&a, &mut be);
            let le_sum = simd.powers_x_le(&a, &mut le);
            let (mut d_be, mut d_le) = (a, a);
            for j in 0..300 {
                assert_eq!(be[j], d_be, "be {j}");
                assert_eq!(le[j], d_le, "le {j}");
                d_be = double_be(&d_be);
                d_le = double_le(&d_le);
            }
            for n in 0..=130 {
                let mut out = vec![[7u8; 16]; n + 1];
                let sum = simd.powers_x_le(&a, &mut out[..n]);
                assert_eq!(&out[..n], &le[..n]);
                assert_eq!(out[n], [7; 16], "wrote past the end");
                let mut port = vec![[0u8; 16]; n];
                assert_eq!(sum, crate::arith::gf128::powers_x_le(&a, &mut port));
                simd.powers_x_be(&a, &mut out[..n]);
                assert_eq!(&out[..n], &be[..n]);
                assert_eq!(out[n], [7; 16], "wrote past the end");
            }
            assert_eq!(le_sum, le.iter().fold([0; 16], |s, b| xor(&s, b)));
            // XEX batches: every start and length across unit boundaries.
            for m in [1usize, 5, 32, 64, 100, 128] {
                let en = blocks(6, a[1]);
                let data = blocks(6 * m, 0x33);
                let mut want = vec![[0u8; 16]; 6 * m];
                for (s, e) in en.iter().enumerate() {
                    let mut d = double_be(e);
                    for j in 0..m {
                        want[s * m + j] = d;
                        d = double_be(&d);
                    }
                }
                for start in [0usize, 1, 3, m.saturating_sub(1), m, 2 * m + 1] {
                    for n in [0usize, 1, 3, 4, 5, 8, 13, 64] {
                        if start + n > 6 * m {
                            continue;
                        }
                        let mut deltas = vec![[9u8; 16]; n + 1];
                        let mut out = vec![[9u8; 16]; n + 1];
                        simd.xex_batch(
                            &en,
                            m,
                            start,
                            &data[start..start + n],
                            &mut deltas[..n],
                            &mut out[..n],
                        );
                        assert_eq!(
                            (deltas[n], out[n]),
                            ([9; 16], [9; 16]),
                            "wrote past the end"
                        );
                        for k in 0..n {
                            assert_eq!(deltas[k], want[start + k], "m {m} start {start} k {k}");
                            assert_eq!(out[k], xor(&data[start + k], &want[start + k]));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn eme_batches_and_mul_match_the_definition() {
        let Some(simd) = Avx512::detect() else { return };
        for m in [1usize, 2, 5, 32, 64, 65, 100, 128] {
            let ms = blocks(5, 0x44);
            let data = blocks(5 * m, 0x55);
            let mut want = data.clone();
            for (s, big_m) in ms.iter().enumerate() {
                let mut p = double_le(big_m);
                for j in 1..m {
                    want[s * m + j] = xor(&want[s * m + j], &p);
                    p = double_le(&p);
                }
            }
            for start in [0usize, 1, 3, m.saturating_sub(1), m, 2 * m + 1] {
                for n in [0usize, 1, 2, 4, 5, 8, 13, 64] {
                    if start + n > 5 * m {
                        continue;
                    }
                    let mut out = vec![[9u8; 16]; n + 1];
                    simd.eme_batch(&ms, m, start, &data[start..start + n], &mut out[..n]);
                    assert_eq!(out[n], [9; 16], "wrote past the end");
                    assert_eq!(
                        &out[..n],
                        &want[start..start + n],
                        "m {m} start {start} n {n}"
                    );
                }
            }
        }
        // mul_le against the BE product of the byte-reversed operands.
        let rev = |b: &Block| {
            let mut r = *b;
            r.reverse();
            r
        };
        for (i, a) in blocks(20, 1).iter().enumerate() {
            for b in blocks(20, i as u8)
                .iter()
                .chain([[0xff; 16], [0; 16]].iter())
            {
                let want = rev(&crate::arith::gf128::mul_be(&rev(a), &rev(b)));
                assert_eq!(simd.mul_le(a, b), want);
            }
        }
        let mut x = [0u8; 16];
        x[0] = 2;
        assert_eq!(simd.mul_le(&[0x81; 16], &x), double_le(&[0x81; 16]));
    }

    /// The definition: if M = K then H, else if M = H then K, else M.
    fn swap_def(k: &Block, h: &Block, m: &Block) -> Block {
        if m == k {
            *h
        } else if m == h {
            *k
        } else {
            *m
        }
    }

    #[test]
    fn swap_xor_matches_the_definition() {
        let Some(simd) = Avx512::detect() else { return };
        let (k, h) = ([0x11u8; 16], [0x22u8; 16]);
        let c = [0x3cu8; 16];
        for n in 0..=70 {
            let mut m = blocks(n, 9);
            // K, H, near misses (one half equal) and the pre-xored forms.
            for (i, b) in m.iter_mut().enumerate() {
                match i % 7 {
                    0 => *b = k,
                    1 => *b = h,
                    2 => b[..8].copy_from_slice(&k[..8]),
                    3 => b[8..].copy_from_slice(&h[8..]),
                    4 => *b = xor(&k, &c),
                    5 => *b = xor(&h, &c),
                    _ => {}
                }
            }
            for (pre, post) in [(c, [0; 16]), ([0; 16], c), ([0; 16], [0; 16])] {
                let mut got = m.clone();
                got.push([0xee; 16]);
                simd.swap_xor(&k, &h, &pre, &post, &mut got[..n]);
                assert_eq!(got[n], [0xee; 16], "wrote past the end");
                for (g, b) in got.iter().zip(&m) {
                    assert_eq!(*g, xor(&swap_def(&k, &h, &xor(b, &pre)), &post));
                }
            }
        }
        // K = H: a block equal to both stays.
        let mut one = [k, h];
        simd.swap_xor(&k, &k, &[0; 16], &[0; 16], &mut one);
        assert_eq!(one, [k, h]);
    }
}
