//! The disk ciphers' carry-less and AVX-512 kernels: the one module of the
//! disk family with `unsafe` code (x86-64 only; everything else stays safe).
//!
//! # What it does, and for whom
//!
//! * [`Clmul::mul_le`]: `a·b` in GF(2^128), LE, by four `pclmulqdq`: the
//!   middle of EME on the engine (`eme::fused::times_sum`: `M·(x + ... +
//!   x^(m-1))`, once per unit of EME2 and of EME / EtE where the kernel
//!   does not take the middle). The portable alternative, m - 2 doublings,
//!   made EME2-AES 3-5x slower on every tier.
//! * [`Avx512::powers_x_be`]: `a·x^j` for a run of j (XEX's deltas
//!   `E_K(N)·2^i`) without a chain of doublings: for `0 <= j <= 64`,
//!   `a·x^j = (a << j) ⊕ c·(x^7 + x^2 + x + 1)` where `c = a >> (128 - j)`
//!   is the part shifted out, multiplied carry-less with one `vpclmulqdq`.
//!   That gives the first eight powers in two vectors (four lanes each,
//!   per-lane shift counts); then each vector steps by `x^8` (two byte
//!   shifts, one `vpclmulqdq`, one xor), two independent chains. Blocks
//!   are byte-reversed in and out (`vpshufb`). For XEX on the engine where
//!   its kernel does not make the deltas itself (`xex::fused`: runs of
//!   blocks, `Xex::encrypt_blocks`; units outside `AesKey::xex_units`):
//!   1.5-1.7x the portable `powers_x_be` there.
//! * [`Avx512::swap_xor`]: StE's constant-time swap of K and H fused with a
//!   xor (XEX's Δ), four blocks per 512-bit vector, for StE's fixed-tweak
//!   batches (`StE::fix_tweak`, and EtE built with [`crate::ete::EtE::new`]),
//!   which run through the cipher's own backend even for AES keys. A lane
//!   equals K when both of its 64-bit halves do: the xor with K of the
//!   block and of the block with its halves swapped, or-ed, is zero in both
//!   halves exactly then; the minimum of that and the same for H is zero
//!   when the block is K or H, which one `vptestnmq` turns into a mask, and
//!   the lanes selected get `K ⊕ H` by a masked xor. No branch, no table
//!   index. 4x the portable loop (whose `subtle` selections stay scalar).
//!
//! The portable code ([`crate::arith::gf128::powers_x_be`], StE's portable
//! swap, doublings) is the fallback and the reference of the tests. The
//! generic path's other AVX-512 whitening (XEX's and EME's per-batch
//! powers) was removed on 2026-11-27: it served only ciphers other than
//! AES keyed from bytes (`docs/lab/2026-11-27-generic-islands.md`).
//!
//! # Why `unsafe`
//!
//! * The kernels are `#[target_feature]` functions: calling them is
//!   `unsafe` because the CPU must have the features. A [`Clmul`] or
//!   [`Avx512`] value can only be made by its `detect`, which checks them
//!   at run time: it is the proof, and its methods are the safe entry
//!   points.
//! * Vector loads and stores take raw pointers: each full one covers four
//!   blocks inside the slice, and the last partial vector is masked to the
//!   blocks inside it.
//!
//! # The benchmark that justified it
//!
//! `docs/performance.md`, section "The disk ciphers' carry-less kernels";
//! the measurement in `docs/lab/2026-11-27-generic-islands.md`.
#![allow(unsafe_code)]

use crate::arith::gf128::Block;

/// Proof that the CPU has PCLMULQDQ: [`Clmul::mul_le`]'s safe entry.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)] // used by the engine only
pub(crate) struct Clmul(());

/// Proof that the CPU has AVX-512 F/BW/VL/DQ and VPCLMULQDQ: the vector
/// kernels' safe entry points are its methods.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512(());

#[cfg(target_arch = "x86_64")]
cpufeatures::new!(cpu_clmul, "pclmulqdq", "sse2");

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

#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)] // used by the engine only
impl Clmul {
    /// `Some` if the CPU has PCLMULQDQ (x86-64) or `PMULL` (aarch64: the
    /// `aes` feature, which `cpufeatures` checks with it) (checked once,
    /// cached by `cpufeatures`).
    #[inline]
    pub(crate) fn detect() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        {
            if cpu_clmul::get() {
                return Some(Clmul(()));
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            if crate::armv8::detect() {
                return Some(Clmul(()));
            }
        }
        None
    }

    /// `a·b` in GF(2^128), LE convention (carry-less, constant time).
    #[inline]
    pub(crate) fn mul_le(self, a: &Block, b: &Block) -> Block {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `self` proves the CPU has the kernel's features.
        unsafe {
            x86::mul_le(a, b)
        }
        #[cfg(target_arch = "aarch64")]
        // SAFETY: `self` proves the CPU has `PMULL`.
        unsafe {
            arm::mul_le(a, b)
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            let _ = (a, b);
            [0; 16]
        }
    }
}

impl Avx512 {
    /// `Some` if the CPU has the features the kernels need (checked once,
    /// cached by `cpufeatures`).
    pub(crate) fn detect() -> Option<Self> {
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
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // used by the x86 engine only
    pub(crate) fn powers_x_be(self, a: &Block, out: &mut [Block]) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `self` proves the CPU has the kernel's features.
        unsafe {
            x86::powers_x_be(a, out);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (a, out);
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

    /// `out[j] = a·x^j`, BE (the blocks byte-reversed to values and back).
    ///
    /// Two vectors (eight consecutive powers) each step by `x^8`: no chain
    /// of dependent doublings, and the two chains overlap.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq")]
    pub(super) unsafe fn powers_x_be(a: &Block, out: &mut [Block]) {
        let rev = rev_bytes();
        let order = |v: __m512i| _mm512_shuffle_epi8(v, rev);
        // SAFETY: reads the 16 bytes of `a`.
        let base = order(unsafe { bcast(a) });
        let poly = _mm512_set1_epi64(0x87);
        let first = _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0);
        let mut d0 = times_x_pow(base, first, poly);
        let mut d1 = times_x_pow(base, _mm512_add_epi64(first, _mm512_set1_epi64(4)), poly);
        let mut chunks = out.chunks_exact_mut(8);
        for c in &mut chunks {
            let p = c.as_mut_ptr().cast::<__m512i>();
            // SAFETY: `c` is eight blocks, 128 bytes.
            unsafe {
                _mm512_storeu_si512(p, order(d0));
                _mm512_storeu_si512(p.add(1), order(d1));
            }
            d0 = times_x8(d0, poly);
            d1 = times_x8(d1, poly);
        }
        let mut rest = chunks.into_remainder();
        if rest.len() >= 4 {
            let (four, tail) = rest.split_at_mut(4);
            // SAFETY: `four` is four blocks, 64 bytes.
            unsafe { _mm512_storeu_si512(four.as_mut_ptr().cast(), order(d0)) };
            d0 = d1;
            rest = tail;
        }
        if !rest.is_empty() {
            let m = tail_mask(rest.len());
            // SAFETY: the mask covers the `rest.len()` blocks of `rest`.
            unsafe { _mm512_mask_storeu_epi64(rest.as_mut_ptr().cast(), m, order(d0)) };
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
}

/// `Clmul::mul_le` on aarch64 (`PMULL`, 64 x 64 bits).
#[cfg(target_arch = "aarch64")]
mod arm {
    use core::arch::aarch64::vmull_p64;

    use crate::arith::gf128::Block;

    /// `h x^128` reduced: `h (x^7 + x^2 + x + 1)`, the bits shifted past
    /// `x^127` folded once more (constant-time shifts).
    #[inline(always)]
    fn fold(h: u128) -> u128 {
        let over = (h >> 121) ^ (h >> 126) ^ (h >> 127);
        let t = h ^ (h << 1) ^ (h << 2) ^ (h << 7);
        t ^ over ^ (over << 1) ^ (over << 2) ^ (over << 7)
    }

    /// `a·b` mod `x^128 + x^7 + x^2 + x + 1`, LE convention (the blocks'
    /// little-endian words are the polynomial's halves): four `PMULL`s.
    #[target_feature(enable = "aes,neon")]
    pub(super) unsafe fn mul_le(a: &Block, b: &Block) -> Block {
        let (a, b) = (u128::from_le_bytes(*a), u128::from_le_bytes(*b));
        let (a0, a1, b0, b1) = (a as u64, (a >> 64) as u64, b as u64, (b >> 64) as u64);
        let (lo, hi) = (vmull_p64(a0, b0), vmull_p64(a1, b1));
        let mid = vmull_p64(a0, b1) ^ vmull_p64(a1, b0);
        let (lo, hi) = (lo ^ (mid << 64), hi ^ (mid >> 64));
        (lo ^ fold(hi)).to_le_bytes()
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
            simd.powers_x_be(&a, &mut be);
            let mut d = a;
            for (j, b) in be.iter().enumerate() {
                assert_eq!(*b, d, "be {j}");
                d = double_be(&d);
            }
            for n in 0..=130 {
                let mut out = vec![[7u8; 16]; n + 1];
                simd.powers_x_be(&a, &mut out[..n]);
                assert_eq!(&out[..n], &be[..n]);
                assert_eq!(out[n], [7; 16], "wrote past the end");
            }
        }
    }

    #[test]
    fn mul_matches_the_definition() {
        let Some(clmul) = Clmul::detect() else { return };
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
                assert_eq!(clmul.mul_le(a, b), want);
            }
        }
        let mut x = [0u8; 16];
        x[0] = 2;
        assert_eq!(clmul.mul_le(&[0x81; 16], &x), double_le(&[0x81; 16]));
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
